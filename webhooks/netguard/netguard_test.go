package netguard

import (
	"net/netip"
	"testing"
)

func TestParseIP(t *testing.T) {
	for host, want := range map[string]string{
		"127.0.0.1": "127.0.0.1", "2130706433": "127.0.0.1", "0x7f.1": "127.0.0.1", "0X7F.0.0.1": "127.0.0.1",
		"0177.0.0.1": "127.0.0.1", "127.1": "127.0.0.1", "10.0.258": "10.0.1.2", "127.0.0.1.": "127.0.0.1",
		"[::1]": "::1", "fe80::1%eth0": "fe80::1", "0": "0.0.0.0", "0x0": "0.0.0.0",
		"example.com": "", "1.2.3.4.5": "", "256.1.1.1": "", "4294967296": "", "0x": "", "08.1.1.1": "", "1..2": "",
		"127.0.0.1..": "", "+1.2.3.4": "",
	} {
		ip, ok := ParseIP(host)
		got := ""
		if ok {
			got = ip.String()
		}
		if got != want {
			t.Errorf("ParseIP(%q) = %q, want %q", host, got, want)
		}
	}
}

func TestForbidden(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1": true, "10.0.0.8": true, "172.16.5.4": true, "192.168.1.1": true, "169.254.169.254": true,
		"100.64.0.1": true, "0.0.0.0": true, "198.18.0.1": true, "198.19.1.1": true, "240.0.0.1": true,
		"255.255.255.255": true, "224.0.0.1": true, "192.0.2.1": true,
		"::1": true, "::": true, "fc00::1": true, "fe80::1": true, "ff02::1": true, "::ffff:127.0.0.1": true,
		"::127.0.0.1": true, "64:ff9b::127.0.0.1": true, "64:ff9b::10.1.2.3": true, "64:ff9b:1::1": true,
		"2002:0a00:0001::": true, "2002:a9fe:a9fe::1": true, "2001::1": true, "2001:db8::1": true,
		"8.8.8.8": false, "2606:4700:4700::1111": false, "93.184.216.34": false, "198.20.0.1": false,
		"64:ff9b::8.8.8.8": false, "2002:0808:0808::1": false, "::ffff:8.8.8.8": false,
	} {
		if got := Forbidden(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Forbidden(%s) = %v, want %v", addr, got, want)
		}
	}
	if !Forbidden(netip.Addr{}) {
		t.Error("the zero address is not forbidden")
	}
}

func TestIsLocalName(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "localhost.": true, "LocalHost": true, "a.localhost": true, "a.localhost.": true,
		"localhost.example.com": false, "notlocalhost": false, "example.com.": false,
	} {
		if got := IsLocalName(host); got != want {
			t.Errorf("IsLocalName(%q) = %v, want %v", host, got, want)
		}
	}
}
