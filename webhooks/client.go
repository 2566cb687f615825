package webhooks

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// ErrForbiddenAddress is returned when a delivery would reach an address
// that is not on the public internet.
var ErrForbiddenAddress = errors.New("destination address is not public")

// forbidden reports whether ip is loopback, private, link-local (which
// includes cloud metadata at 169.254.169.254), CGNAT, multicast or unspecified.
func forbidden(ip netip.Addr) bool {
	ip = ip.Unmap()
	cgnat := netip.MustParsePrefix("100.64.0.0/10")
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || cgnat.Contains(ip)
}

// newHTTPClient returns the client deliveries go out on. Unless private
// addresses are allowed, the address is checked when the connection is
// made, after DNS resolution, so a name that resolves (or re-resolves) to a
// private address is refused too. Redirects are not followed: a 3xx is a
// failed delivery, not a way around the check.
func newHTTPClient(cfg Config) *http.Client {
	dialer := &net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second}
	if !cfg.AllowPrivate {
		dialer.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || forbidden(ap.Addr()) {
				return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
			}
			return nil
		}
	}
	return &http.Client{
		Timeout: cfg.Timeout,
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         dialer.DialContext,
			MaxIdleConnsPerHost: cfg.Concurrency,
			IdleConnTimeout:     90 * time.Second,
			TLSHandshakeTimeout: cfg.Timeout,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// CheckURL validates a subscription URL: https (or http when allowed), a
// host, no credentials, and no literal non-public address.
func CheckURL(raw string, cfg Config) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "" || u.Hostname() == "":
		return errors.New("must be an absolute URL")
	case u.Scheme != "https" && !(cfg.AllowHTTP && u.Scheme == "http"):
		return errors.New("must use https")
	case u.User != nil:
		return errors.New("must not carry credentials")
	}
	if ip, err := netip.ParseAddr(u.Hostname()); err == nil && !cfg.AllowPrivate && forbidden(ip) {
		return errors.New("must not point to a private, loopback or link-local address")
	}
	host := strings.ToLower(u.Hostname())
	if !cfg.AllowPrivate && (host == "localhost" || strings.HasSuffix(host, ".localhost")) {
		return errors.New("must not point to localhost")
	}
	return nil
}
