// Package netguard decides which network addresses outbound webhooks may
// reach. The subscribe-time URL check and the dial-time check share it, so
// a host is read the same way in both: as the system resolver would read it
// (inet_aton numbers, a trailing dot, brackets, zone ids) against one list.
//
// A leaf: it imports nothing of this service.
package netguard

import (
	"net/netip"
	"strconv"
	"strings"
)

// denied are the IPv4 and IPv6 ranges that are not the public internet:
// this-network, private, CGNAT, loopback, link-local (cloud metadata),
// IETF protocol assignments, documentation, benchmarking (198.18.0.0/15),
// 6to4 relay, multicast and reserved (240.0.0.0/4, broadcast included);
// IPv6 unspecified, loopback, IPv4-compatible, discard, Teredo,
// documentation, unique local, link-local, multicast and local-use NAT64.
var denied = prefixes(
	"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
	"192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15",
	"198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
	"::/96", "100::/64", "2001::/32", "2001:db8::/32", "64:ff9b:1::/48", "fc00::/7", "fe80::/10", "ff00::/8",
)

// Translation prefixes whose addresses carry an IPv4 address that the
// packet ends up at: they are as forbidden as the address they embed.
var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// Forbidden reports whether ip is outside the public internet, directly or
// through the IPv4 address an IPv4-mapped, NAT64 or 6to4 address embeds.
func Forbidden(ip netip.Addr) bool {
	ip = ip.WithZone("").Unmap()
	if !ip.IsValid() {
		return true
	}
	if embedded, ok := embeddedIPv4(ip); ok {
		return Forbidden(embedded)
	}
	for _, p := range denied {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// embeddedIPv4 is the IPv4 address a NAT64 (last 32 bits) or 6to4 (bits
// 16-47) address routes to.
func embeddedIPv4(ip netip.Addr) (netip.Addr, bool) {
	b := ip.As16()
	switch {
	case !ip.Is6():
		return netip.Addr{}, false
	case nat64.Contains(ip):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixToFour.Contains(ip):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}

// ParseIP reads host (a URL's host, with or without brackets or port-less)
// as an IP address the way the system resolver would take it literally:
// dotted IPv4, inet_aton's shorter and numeric forms ("2130706433",
// "0x7f.1", "0177.0.0.1"), a trailing dot, IPv6 with a zone id. ok is false
// for a name.
func ParseIP(host string) (ip netip.Addr, ok bool) {
	host = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), ".")
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.WithZone(""), true
	}
	return parseInetAton(host)
}

// parseInetAton parses 1 to 4 numeric parts (decimal, 0x hex or 0 octal);
// the last part fills all the bytes the earlier parts leave.
func parseInetAton(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, p := range parts {
		n, ok := parseAtonPart(p)
		if !ok {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if n > 0xff {
				return netip.Addr{}, false
			}
			v |= n << (8 * (3 - i))
			continue
		}
		if n >= 1<<(8*(4-i)) {
			return netip.Addr{}, false
		}
		v |= n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func parseAtonPart(p string) (uint64, bool) {
	base, digits := 10, p
	switch {
	case len(p) > 1 && (p[:2] == "0x" || p[:2] == "0X"):
		base, digits = 16, p[2:]
	case len(p) > 1 && p[0] == '0':
		base, digits = 8, p[1:]
	}
	if digits == "" || strings.ContainsAny(digits, "+-_") {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, base, 32)
	return n, err == nil
}

// IsLocalName reports whether host names this machine: localhost and its
// subdomains, with or without the trailing dot of a fully qualified name.
func IsLocalName(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}
