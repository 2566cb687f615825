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

func TestForbiddenRanges(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1": true, "10.0.0.8": true, "172.16.5.4": true, "192.168.1.1": true, "169.254.169.254": true,
		"100.64.0.1": true, "0.0.0.0": true, "::1": true, "fc00::1": true, "fe80::1": true, "::ffff:127.0.0.1": true,
		"8.8.8.8": false, "2606:4700:4700::1111": false, "93.184.216.34": false,
	} {
		if got := forbidden(netip.MustParseAddr(addr)); got != want {
			t.Errorf("forbidden(%s) = %v, want %v", addr, got, want)
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
