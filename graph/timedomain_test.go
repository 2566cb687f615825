package graph_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// The time domain (PRODUCT 8.1): a timestamp a client sends lies between
// 1970-01-01T00:00:00Z and five minutes past now (fundedAt and paidAt: not
// past now). Outside it the write is refused naming the field, on REST and
// GraphQL alike, and nothing is stored; so every read of what was stored
// succeeds, on both surfaces.
func TestTimeDomain(t *testing.T) {
	l := newLendingEnv(t)
	agent := l.NewUser(l.Org.ID, "Riley", "Agent", "agent", "")
	lead := l.lead(t, nil)
	now := time.Now().UTC()
	tooEarly := []string{"0001-01-01T00:00:00Z", "0000-12-31T23:59:59Z", "1969-12-31T23:59:59.999Z", "1900-06-01T12:00:00+05:00"}

	t.Run("CallEvent", func(t *testing.T) {
		post := func(at string) (int, string) {
			r := l.Post("/v1/dialer/events", l.key, map[string]any{"externalCallId": "domain-" + at, "userId": agent.ID,
				"leadId": lead, "eventType": "call_started", "occurredAt": at})
			_, field := r.Error()
			return r.Status, field
		}
		for _, at := range append(tooEarly, now.Add(6*time.Minute).Format(time.RFC3339)) {
			if code, field := post(at); code != http.StatusUnprocessableEntity || field != "occurredAt" {
				t.Errorf("occurredAt %s: %d naming %q, want 422 naming occurredAt", at, code, field)
			}
		}
		for _, at := range []string{"1970-01-01T00:00:00Z", now.Add(time.Minute).Format(time.RFC3339)} {
			if code, _ := post(at); code != http.StatusCreated {
				t.Errorf("occurredAt %s: %d, want 201", at, code)
			}
		}
		// Every stored event reads back through GraphQL.
		data := l.must(t, `{ callEvents(first: 100) { totalCount edges { node { id occurredAt } } } }`, nil)
		if n := data["callEvents"].(map[string]any)["totalCount"]; n != 2.0 {
			t.Errorf("%v call events stored, want the 2 accepted", n)
		}
	})
	t.Run("Funding", func(t *testing.T) {
		lender := l.lender(t, "Epoch Capital", nil)
		app := l.approved(t, lead, lender, "10000", nil)
		for _, at := range append(tooEarly, now.Add(time.Minute).Format(time.RFC3339)) {
			ext := l.refused(t, fundDealDoc, map[string]any{"in": map[string]any{"applicationId": app, "fundedAt": at}})
			wantError(t, ext, "VALIDATION_ERROR", "fundedAt")
		}
		if got := l.application(t, app)["status"]; got != "approved" {
			t.Fatalf("after refused fundings the application is %v, want approved", got)
		}
		deal := l.fund(t, map[string]any{"applicationId": app, "fundedAt": "1970-01-01T00:00:00Z"})
		for _, at := range tooEarly {
			ext := l.refused(t, `mutation($d: ID!, $at: Time) { recordCommissionPayment(input: {dealId: $d, amount: "1", paidAt: $at}) { id } }`,
				map[string]any{"d": deal["id"], "at": at})
			wantError(t, ext, "VALIDATION_ERROR", "paidAt")
		}
		// The deal funded at the epoch reads back on every list.
		data := l.must(t, `query($id: ID!) { node(id: $id) { ... on FundedDeal { fundedAt } }
			fundedDeals(first: 10) { edges { node { fundedAt } } } }`, map[string]any{"id": deal["id"]})
		if got := fmt.Sprint(data["node"]); got != "map[fundedAt:1970-01-01T00:00:00.000Z]" {
			t.Errorf("node = %s", got)
		}
		if r := l.Get("/v1/funded-deals/"+deal["id"].(string), l.key); r.Status != http.StatusOK || r.Attr("fundedAt") != "1970-01-01T00:00:00.000Z" {
			t.Errorf("REST: %d %s", r.Status, r.Raw)
		}
	})
}
