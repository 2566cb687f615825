package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/lendingpipe/svc/rest/resttest"
)

// FuzzTimesAndAmounts drives a timestamp and an amount through both
// surfaces (PRODUCT 8.4): a call event's occurredAt over REST, and a
// funding's fundedAt and fundedAmount over GraphQL. A refusal is the
// caller's error, never a 5xx; whatever a write accepts reads back the
// same on REST and on GraphQL, and every read of it succeeds.
func FuzzTimesAndAmounts(f *testing.F) {
	for _, seed := range []struct{ at, amount string }{
		{"2026-01-02T03:04:05Z", "1000.00"}, {"0001-01-01T00:00:00Z", "0.01"}, {"1970-01-01T00:00:00Z", "1"},
		{"1969-12-31T23:59:59.999999999-00:00", "999999.99"}, {"2026-11-27T10:00:00.123456789+14:00", "0"},
		{"9999-12-31T23:59:59Z", "1e3"}, {"2026-02-30T00:00:00Z", "-5"}, {"2026-01-01", "12.345"},
	} {
		f.Add(seed.at, seed.amount)
	}
	e := resttest.New(f)
	agent := e.NewUser(e.Org.ID, "Fuzz", "Agent", "agent", "").ID.String()
	lender := gqlData(f, e, `mutation { createLender(input: {name: "Fuzz Capital"}) { id } }`, nil)["createLender"].(map[string]any)["id"].(string)
	n := 0
	f.Fuzz(func(t *testing.T, at, amount string) {
		n++
		status, call := fuzzJSON(t, e, http.MethodPost, "/v1/dialer/events", map[string]any{"externalCallId": fmt.Sprintf("fuzz-%d", n),
			"userId": agent, "eventType": "call_started", "occurredAt": at})
		if status == http.StatusCreated {
			stored := call["data"].(map[string]any)["attributes"].(map[string]any)["occurredAt"]
			g := gqlData(t, e, `query($c: String!) { callEvents(first: 1, where: {externalCallId: $c}) { edges { node { occurredAt } } } }`,
				map[string]any{"c": fmt.Sprintf("fuzz-%d", n)})
			edges := g["callEvents"].(map[string]any)["edges"].([]any)
			if len(edges) != 1 || edges[0].(map[string]any)["node"].(map[string]any)["occurredAt"] != stored {
				t.Fatalf("occurredAt %q: REST %v, GraphQL %v", at, stored, edges)
			}
		}

		_, created := fuzzJSON(t, e, http.MethodPost, "/v1/leads", map[string]any{"businessName": fmt.Sprintf("Fuzz %d", n)})
		lead := created["data"].(map[string]any)["id"].(string)
		app := gqlData(t, e, `mutation($l: ID!, $r: ID!) { submitApplication(input: {leadId: $l, lenderId: $r, requestedAmount: "1000000"}) { id } }`,
			map[string]any{"l": lead, "r": lender})["submitApplication"].(map[string]any)["id"].(string)
		gqlData(t, e, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, interestRate: "1.2", rateType: factor, termMonths: 6}) { id } }`,
			map[string]any{"id": app})
		_, r := fuzzJSON(t, e, http.MethodPost, "/graphql", map[string]any{
			"query":     `mutation($in: FundDealInput!) { fundDeal(input: $in) { id fundedAt fundedAmount } }`,
			"variables": map[string]any{"in": map[string]any{"applicationId": app, "fundedAt": at, "fundedAmount": amount}}})
		if errs, refused := r["errors"].([]any); refused {
			if ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any); ext["code"] == "INTERNAL_ERROR" {
				t.Fatalf("fundDeal(%q, %q): %v", at, amount, r)
			}
			return
		}
		deal := r["data"].(map[string]any)["fundDeal"].(map[string]any)
		status, rest := fuzzJSON(t, e, http.MethodGet, "/v1/funded-deals/"+deal["id"].(string), nil)
		attrs, _ := rest["data"].(map[string]any)["attributes"].(map[string]any)
		if status != http.StatusOK || attrs["fundedAt"] != deal["fundedAt"] || attrs["fundedAmount"] != deal["fundedAmount"] {
			t.Fatalf("deal funded at %q for %q: GraphQL %v, REST %d %v", at, amount, deal, status, rest)
		}
		list := gqlData(t, e, `query($l: ID!) { fundedDealsPage(leadId: $l) { nodes { fundedAt fundedAmount } } }`, map[string]any{"l": lead})
		nodes := list["fundedDealsPage"].(map[string]any)["nodes"].([]any)
		if len(nodes) != 1 || nodes[0].(map[string]any)["fundedAt"] != deal["fundedAt"] {
			t.Fatalf("the lead's deals read %v, want the one funded at %v", nodes, deal["fundedAt"])
		}
	})
}

// gqlData runs a GraphQL operation that must succeed and returns its data.
func gqlData(tb testing.TB, e *resttest.Env, query string, vars map[string]any) map[string]any {
	tb.Helper()
	status, body := fuzzJSON(tb, e, http.MethodPost, "/graphql", map[string]any{"query": query, "variables": vars})
	if _, failed := body["errors"]; failed || status != http.StatusOK {
		tb.Fatalf("%s: %d %v", query, status, body)
	}
	return body["data"].(map[string]any)
}

// fuzzJSON sends a JSON request with the environment's key over the
// server's own client (a fuzz function may not use the F's helpers) and
// decodes the answer; a 5xx or an answer that is not JSON fails tb.
func fuzzJSON(tb testing.TB, e *resttest.Env, method, path string, body any) (int, map[string]any) {
	tb.Helper()
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			tb.Fatal(err)
		}
	}
	status, answer := fuzzDo(tb, e, method, path, nil, raw)
	var out map[string]any
	_ = json.Unmarshal(answer, &out)
	return status, out
}
