package webhooks

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"

	"github.com/lendingpipe/svc/webhooks/netguard"
)

// ErrForbiddenAddress is returned when a delivery would reach an address
// that is not on the public internet.
var ErrForbiddenAddress = errors.New("destination address is not public")

// newHTTPClient returns the client deliveries go out on. Unless private
// addresses are allowed, the address is checked when the connection is
// made, after DNS resolution, so a name that resolves (or re-resolves) to a
// private address is refused too. Redirects are not followed: a 3xx is a
// failed delivery, not a way around the check.
func newHTTPClient(cfg Config) *http.Client {
	dialer := &net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second}
	if !cfg.AllowPrivate {
		dialer.Control = dialGuard
	}
	return &http.Client{
		Timeout: cfg.Timeout,
		Transport: addressFreeErrors{&http.Transport{
			Proxy:               nil,
			DialContext:         dialer.DialContext,
			MaxIdleConnsPerHost: cfg.Concurrency,
			IdleConnTimeout:     90 * time.Second,
			TLSHandshakeTimeout: cfg.Timeout,
		}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// dialGuard refuses a connection to an address netguard forbids; the
// address is the resolved one, so every way of naming it is covered.
func dialGuard(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || netguard.Forbidden(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
	}
	return nil
}

// addressFreeErrors words transport errors without network addresses: an
// attempt's error is shown to the subscriber (the deliveries API), and the
// addresses a name resolved to, or our own, are not theirs to learn.
type addressFreeErrors struct{ t *http.Transport }

func (a addressFreeErrors) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := a.t.RoundTrip(r)
	if err != nil {
		return nil, deliveryError{msg: describeNetError(err), err: err}
	}
	return resp, nil
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the transport.
func (a addressFreeErrors) CloseIdleConnections() { a.t.CloseIdleConnections() }

// deliveryError is an error worded for the subscriber that still unwraps to
// its cause (errors.Is(err, ErrForbiddenAddress) holds).
type deliveryError struct {
	msg string
	err error
}

func (e deliveryError) Error() string { return e.msg }
func (e deliveryError) Unwrap() error { return e.err }

// describeNetError says what went wrong in words that name no address.
func describeNetError(err error) string {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.Is(err, ErrForbiddenAddress):
		return "the receiver's address resolves to a private or reserved network"
	case errors.As(err, &dns) && dns.IsNotFound:
		return "the receiver's host name does not resolve"
	case errors.As(err, &dns):
		return "resolving the receiver's host name failed"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the receiver refused the connection"
	case errors.Is(err, syscall.ECONNRESET):
		return "the receiver reset the connection"
	case errors.As(err, &op) && op.Timeout():
		return "the connection to the receiver timed out"
	case errors.As(err, &op) && op.Op == "dial":
		return "could not connect to the receiver"
	case errors.As(err, &op):
		return "the connection to the receiver failed"
	}
	return err.Error() // TLS, protocol and timeout errors carry no addresses
}

// CheckURL validates a subscription URL: https (or http when allowed), a
// host, no credentials, and no literal non-public address. A URL refused
// only because a development setting is off names that setting: a local
// receiver is the first thing a developer tries.
func CheckURL(raw string, cfg Config) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "" || u.Hostname() == "":
		return errors.New("must be an absolute URL")
	case u.Scheme == "http" && !cfg.AllowHTTP:
		return fmt.Errorf("must use https (set %s=true to allow http in development)", SettingAllowHTTP)
	case u.Scheme != "https" && u.Scheme != "http":
		return errors.New("must use https")
	case u.User != nil:
		return errors.New("must not carry credentials")
	}
	if cfg.AllowPrivate {
		return nil
	}
	// The host as the resolver will read it, checked against the list the
	// dialer uses, so no spelling of an address passes here and fails there.
	if ip, ok := netguard.ParseIP(u.Hostname()); ok && netguard.Forbidden(ip) {
		return fmt.Errorf("must not point to a private, loopback, link-local or reserved address (set %s=true to allow it in development)", SettingAllowPrivate)
	}
	if netguard.IsLocalName(u.Hostname()) {
		return fmt.Errorf("must not point to localhost (set %s=true to allow it in development)", SettingAllowPrivate)
	}
	return nil
}
