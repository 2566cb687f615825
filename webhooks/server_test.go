package webhooks_test

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/lendingpipe/svc/rest/resttest"
)

// The tests here that need an operation of the API (resuming a paused
// subscription) or API clients as the load (the latency benchmark) run the
// whole server through resttest; the rest drive the worker directly.

// millisUTC is every timestamp the service writes.
var millisUTC = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// restSubscribe subscribes url through POST /v1/app-webhooks and returns
// the subscription's id.
func restSubscribe(tb testing.TB, e *resttest.Env, url string, events ...string) string {
	tb.Helper()
	r := e.Post("/v1/app-webhooks", e.Key, map[string]any{"url": url, "events": events})
	if r.Status != http.StatusCreated {
		tb.Fatalf("subscribing: status = %d, want %d; body: %s", r.Status, http.StatusCreated, r.Raw)
	}
	return r.Data()["id"].(string)
}

// restCreateLead creates a lead through POST /v1/leads.
func restCreateLead(tb testing.TB, e *resttest.Env, businessName string) {
	tb.Helper()
	r := e.Post("/v1/leads", e.Key, map[string]any{"businessName": businessName})
	if r.Status != http.StatusCreated {
		tb.Fatalf("creating lead: status = %d, want %d; body: %s", r.Status, http.StatusCreated, r.Raw)
	}
}
