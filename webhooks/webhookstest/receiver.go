// Package webhookstest is a real HTTP endpoint that receives webhook
// deliveries for tests: the worker's own tests and those of the surfaces
// that subscribe through the API share it.
//
// It is imported by tests only, and imports only webhooks (the envelope).
package webhookstest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/lendingpipe/svc/webhooks"
)

// Receiver records deliveries and answers with the status its respond
// func chooses.
type Receiver struct {
	*httptest.Server
	mu      sync.Mutex
	got     []Delivery
	respond func(n int) int // guarded by mu: tests change it while deliveries run
	header  http.Header     // sent with every answer
	arrived chan struct{}
}

// Delivery is one request the receiver got.
type Delivery struct {
	At     time.Time
	Header http.Header
	Body   []byte
	Env    webhooks.Envelope
}

// NewReceiver starts a receiver that answers the nth delivery (from 1)
// with respond(n); it stops when tb ends.
func NewReceiver(tb testing.TB, respond func(n int) int) *Receiver {
	return NewReceiverWithHeader(tb, respond, nil)
}

// NewReceiverWithHeader is NewReceiver sending header with every answer.
func NewReceiverWithHeader(tb testing.TB, respond func(n int) int, header http.Header) *Receiver {
	rc := &Receiver{respond: respond, header: header, arrived: make(chan struct{}, 1000)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		d := Delivery{At: time.Now(), Header: r.Header.Clone(), Body: body}
		_ = json.Unmarshal(body, &d.Env)
		rc.mu.Lock()
		rc.got = append(rc.got, d)
		status := rc.respond(len(rc.got))
		rc.mu.Unlock()
		for k, v := range rc.header {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
		// A signal, not a count: Wait reads the deliveries themselves, so
		// a full channel already wakes it, and a receiver that blocked here
		// while no one waits would time its senders out.
		select {
		case rc.arrived <- struct{}{}:
		default:
		}
	}))
	tb.Cleanup(rc.Close)
	return rc
}

// OK answers every delivery 200.
func OK(int) int { return http.StatusOK }

// SetRespond changes the answers from the next delivery on.
func (rc *Receiver) SetRespond(f func(int) int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.respond = f
}

// Wait blocks until n deliveries arrived and returns all so far, or fails
// the test after 30 seconds.
func (rc *Receiver) Wait(tb testing.TB, n int) []Delivery {
	tb.Helper()
	deadline := time.After(30 * time.Second)
	for {
		rc.mu.Lock()
		got := len(rc.got)
		rc.mu.Unlock()
		if got >= n {
			rc.mu.Lock()
			defer rc.mu.Unlock()
			return append([]Delivery(nil), rc.got...)
		}
		select {
		case <-rc.arrived:
		case <-deadline:
			tb.Fatalf("received %d deliveries, want %d", got, n)
		}
	}
}

// Config is the delivery configuration of tests: receivers listen on
// loopback over plain http, and a short poll keeps tests quick when another
// test's worker took a wake-up.
func Config() webhooks.Config {
	cfg := webhooks.DefaultConfig()
	cfg.AllowPrivate, cfg.AllowHTTP, cfg.Poll = true, true, 20*time.Millisecond
	return cfg
}
