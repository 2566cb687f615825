package webhooks

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// The address is checked when connecting, after DNS, so any name that
// resolves to loopback (here "localhost" itself, as a rebinding name would)
// is refused unless private addresses are allowed.
func TestDeliveryClientRefusesPrivateAddresses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	cfg := DefaultConfig()
	for _, url := range []string{srv.URL, "http://localhost" + port} {
		_, err := newHTTPClient(cfg).Post(url, "application/json", strings.NewReader("{}"))
		if !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("POST %s: err = %v, want ErrForbiddenAddress", url, err)
		}
	}
	cfg.AllowPrivate = true
	resp, err := newHTTPClient(cfg).Post(srv.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("with AllowPrivate: %v", err)
	}
	resp.Body.Close()
}

// Attempt errors reach the subscriber through the deliveries API: they say
// what failed without the addresses a name resolved to.
func TestDeliveryErrorsNameNoAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	closed := httptest.NewServer(http.NotFoundHandler())
	closedPort := closed.URL[strings.LastIndex(closed.URL, ":"):]
	closed.Close()
	defer srv.Close()
	for _, c := range []struct {
		name, url    string
		allowPrivate bool
		want         string
	}{
		{"Guarded", "http://localhost" + port, false, "the receiver's address resolves to a private or reserved network"},
		{"Refused", "http://localhost" + closedPort, true, "the receiver refused the connection"},
		{"Unresolvable", "http://receiver.invalid" + port, true, "the receiver's host name does not resolve"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.AllowPrivate = c.allowPrivate
			_, err := newHTTPClient(cfg).Post(c.url, "application/json", strings.NewReader("{}"))
			if err == nil {
				t.Fatal("the delivery did not fail")
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) {
				t.Errorf("error %q does not say %q", msg, c.want)
			}
			for _, addr := range []string{"127.0.0.1", "::1", "[::1]", "dial tcp", "lookup"} {
				if strings.Contains(msg, addr) {
					t.Errorf("error %q names %q", msg, addr)
				}
			}
		})
	}
}

// TestSubscribeAndDialChecksAgree runs every spelling of a non-public
// address through both checks: the subscription URL check refuses it, and
// the dial-time guard refuses the address the resolver makes of it; both
// let it through when private addresses are allowed (development).
func TestSubscribeAndDialChecksAgree(t *testing.T) {
	for _, c := range []struct {
		name, url, resolved string
	}{
		{"Loopback", "http://127.0.0.1/", "127.0.0.1"},
		{"Decimal", "http://2130706433/", "127.0.0.1"},
		{"HexShort", "http://0x7f.1/", "127.0.0.1"},
		{"Octal", "http://0177.0.0.1/", "127.0.0.1"},
		{"ThreeParts", "http://10.0.258/", "10.0.1.2"},
		{"HexDotted", "http://0xa9.0xfe.0xa9.0xfe/", "169.254.169.254"},
		{"TrailingDot", "http://127.0.0.1./", "127.0.0.1"},
		{"LocalhostDot", "http://localhost./", "127.0.0.1"},
		{"LocalhostSub", "http://api.LOCALHOST/", "127.0.0.1"},
		{"Mapped", "http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1"},
		{"MappedHex", "http://[::ffff:a9fe:a9fe]/", "::ffff:169.254.169.254"},
		{"NAT64", "http://[64:ff9b::10.0.0.1]/", "64:ff9b::a00:1"},
		{"NAT64Metadata", "http://[64:ff9b::a9fe:a9fe]/", "64:ff9b::a9fe:a9fe"},
		{"SixToFour", "http://[2002:7f00:1::1]/", "2002:7f00:1::1"},
		{"SixToFourPrivate", "http://[2002:c0a8:101::]/", "2002:c0a8:101::"},
		{"ZoneID", "http://[fe80::1%25eth0]/", "fe80::1%eth0"},
		{"LoopbackV6", "http://[::1]:8443/", "::1"},
		{"Benchmarking", "http://198.18.0.1/", "198.18.0.1"},
		{"Benchmarking2", "http://198.19.255.254/", "198.19.255.254"},
		{"Reserved", "http://240.0.0.1/", "240.0.0.1"},
		{"Broadcast", "http://255.255.255.255/", "255.255.255.255"},
		{"ThisNetwork", "http://0.1.2.3/", "0.1.2.3"},
		{"CGNAT", "http://100.64.0.1/", "100.64.0.1"},
		{"ULA", "http://[fd00::1]/", "fd00::1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.AllowHTTP = true
			if err := CheckURL(c.url, cfg); err == nil {
				t.Errorf("CheckURL(%s) accepted it", c.url)
			}
			addr := netip.AddrPortFrom(netip.MustParseAddr(c.resolved), 443).String()
			if err := dialGuard("tcp", addr, nil); !errors.Is(err, ErrForbiddenAddress) {
				t.Errorf("the dial guard let %s through: %v", addr, err)
			}
			cfg.AllowPrivate = true
			if err := CheckURL(c.url, cfg); err != nil {
				t.Errorf("with AllowPrivate, CheckURL(%s) = %v", c.url, err)
			}
		})
	}
	cfg := DefaultConfig()
	if err := CheckURL("http://hooks.example.com/x", cfg); err == nil || !strings.Contains(err.Error(), SettingAllowHTTP+"=true") {
		t.Errorf("CheckURL(http://...) = %v, want it refused naming %s", err, SettingAllowHTTP)
	}
	for _, allow := range []bool{false, true} {
		cfg.AllowHTTP = allow
		if err := CheckURL("ftp://hooks.example.com/x", cfg); err == nil || strings.Contains(err.Error(), "SVC_") {
			t.Errorf("AllowHTTP %v: CheckURL(ftp://...) = %v, want it refused naming no setting (none allows it)", allow, err)
		}
	}
	if err := CheckURL("http://hooks.example.com/x", cfg); err != nil {
		t.Errorf("with AllowHTTP, CheckURL(http://...) = %v", err)
	}
	cfg = DefaultConfig()
	for _, public := range []string{"https://hooks.example.com/x", "https://93.184.216.34/", "https://[2606:4700:4700::1111]/",
		"https://[64:ff9b::808:808]/", "https://[2002:808:808::1]/", "https://1.1/", "https://example.com./"} {
		if err := CheckURL(public, cfg); err != nil {
			t.Errorf("CheckURL(%s) = %v, want it accepted", public, err)
		}
	}
}

func TestSignAndVerify(t *testing.T) {
	now := time.Unix(1795300000, 0)
	body := []byte(`{"id":"evt_1"}`)
	sig := Sign("whsec_test", now, body)
	ts := "1795300000"
	if !Verify("whsec_test", ts, sig, body, now.Add(299*time.Second)) {
		t.Error("a fresh signature did not verify")
	}
	if Verify("whsec_test", ts, sig, body, now.Add(301*time.Second)) {
		t.Error("a signature 301 s old verified")
	}
	if Verify("whsec_test", ts, sig, []byte(`{"id":"evt_2"}`), now) {
		t.Error("a changed body verified")
	}
}

func TestNextDelay(t *testing.T) {
	cfg := DefaultConfig()
	now := time.Now()
	for attempts, want := range map[int]time.Duration{1: time.Minute, 2: 5 * time.Minute, 3: 30 * time.Minute, 4: time.Hour} {
		if d, ok := cfg.nextDelay(attempts, nil, now); !ok || d != want {
			t.Errorf("after %d failures: %s %v, want %s", attempts, d, ok, want)
		}
	}
	if _, ok := cfg.nextDelay(5, nil, now); ok {
		t.Error("a 6th attempt was scheduled; SPEC 6.4 allows 5")
	}
	resp := &http.Response{StatusCode: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"7200"}}}
	if d, _ := cfg.nextDelay(1, resp, now); d != time.Hour {
		t.Errorf("Retry-After 7200 gave %s, want the 1 h cap", d)
	}
	resp.Header.Set("Retry-After", "10")
	if d, _ := cfg.nextDelay(1, resp, now); d != time.Minute {
		t.Errorf("Retry-After shorter than the schedule gave %s, want the schedule's 1 m", d)
	}
}
