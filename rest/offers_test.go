package rest_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

// GET /v1/leads/{id}/offers: the lead's approved applications cheapest
// first, each with every attribute computed by hand, in the total-only
// collection envelope; the same list GraphQL's Lead.offers answers.
func TestLeadOffers(t *testing.T) {
	e := resttest.New(t)
	lead := createLead(t, e, e.Key, map[string]any{"businessName": "Offers Diner"})
	approve := func(lender, amount string, decision map[string]any) string {
		l := field(gql(t, e, e.Key, `mutation($in: CreateLenderInput!) { createLender(input: $in) { id } }`,
			map[string]any{"in": map[string]any{"name": lender}}), "createLender")["id"].(string)
		app := field(gql(t, e, e.Key, `mutation($in: SubmitApplicationInput!) { submitApplication(input: $in) { id } }`,
			map[string]any{"in": map[string]any{"leadId": lead, "lenderId": l, "requestedAmount": amount}}), "submitApplication")["id"].(string)
		decision["decision"] = "APPROVED"
		gql(t, e, e.Key, `mutation($id: ID!, $in: DecideApplicationInput!) { decideApplication(id: $id, input: $in) { id } }`,
			map[string]any{"id": app, "in": decision})
		return app + " " + l
	}
	harbor := approve("Harbor Lending", "40000.00", map[string]any{"interestRate": "0.289", "rateType": "apr", "termMonths": 18,
		"paymentFrequency": "weekly", "conditions": []string{"Voided check"}})
	summit := approve("Summit Capital", "45000.00", map[string]any{"interestRate": "1.35", "rateType": "factor", "termMonths": 9,
		"paymentFrequency": "daily"})
	// 10000.10 x 1.125 = 11250.1125 -> 11250.11; no frequency, so no payments.
	quick := approve("Quick Cash", "10000.10", map[string]any{"interestRate": "1.125", "rateType": "factor", "termMonths": 3})

	r := e.Get("/v1/leads/"+lead+"/offers", e.Key)
	mustStatus(t, r, http.StatusOK)
	items := r.Items()
	if len(items) != 3 || r.Meta()["total"] != float64(3) {
		t.Fatalf("%d offers (meta %v), want 3: %s", len(items), r.Meta(), r.Raw)
	}
	split := func(s string) (string, string) { return s[:36], s[37:] }
	for i, c := range []struct {
		ids  string
		want map[string]any
	}{
		{quick, map[string]any{"lenderName": "Quick Cash", "approvedAmount": "10000.10", "rateType": "factor", "interestRate": "1.125",
			"termMonths": float64(3), "paymentFrequency": nil, "paybackAmount": "11250.11", "payments": nil, "paymentAmount": nil,
			"costOfCapital": "1250.01", "readyToFund": true}},
		// 45000 x 1.35 = 60750.00 over 9 x 21 = 189 payments: 321.428…
		{summit, map[string]any{"lenderName": "Summit Capital", "approvedAmount": "45000.00", "rateType": "factor", "interestRate": "1.35",
			"termMonths": float64(9), "paymentFrequency": "daily", "paybackAmount": "60750.00", "payments": float64(189), "paymentAmount": "321.43",
			"costOfCapital": "15750.00", "readyToFund": true}},
		// 40000 + 40000 x 0.289 x 18 / 12 = 57340.00 over 78 weeks: 735.128…
		{harbor, map[string]any{"lenderName": "Harbor Lending", "approvedAmount": "40000.00", "rateType": "apr", "interestRate": "0.289",
			"termMonths": float64(18), "paymentFrequency": "weekly", "paybackAmount": "57340.00", "payments": float64(78), "paymentAmount": "735.13",
			"costOfCapital": "17340.00", "readyToFund": false}},
	} {
		app, lender := split(c.ids)
		c.want["applicationId"], c.want["lenderId"] = app, lender
		if items[i]["id"] != app {
			t.Errorf("offer %d is %v, want %s", i, items[i]["id"], app)
		}
		mustAttrs(t, items[i], "offer", c.want)
	}

	// Unknown, another organization's, malformed: 404; lacking lending:read: 403.
	_, otherKey := e.NewOrg("Other Shop", viewer.AllScopes...)
	for _, c := range []struct{ path, key string }{
		{"/v1/leads/" + uuid.NewString() + "/offers", e.Key},
		{"/v1/leads/" + lead + "/offers", otherKey},
		{"/v1/leads/not-a-uuid/offers", e.Key},
	} {
		if code, _ := e.Get(c.path, c.key).Error(); code != "NOT_FOUND" {
			t.Errorf("GET %s: %s, want NOT_FOUND", c.path, code)
		}
	}
	if code, _ := e.Get("/v1/leads/"+lead+"/offers", e.NewKey(e.Org.ID, viewer.ScopeLeadsRead)).Error(); code != "FORBIDDEN" {
		t.Errorf("with leads:read only: %s, want FORBIDDEN", code)
	}
	// lending:read alone reads them, and a lead without offers has none.
	bare := createLead(t, e, e.Key, map[string]any{"businessName": "No Offers Yet"})
	if r := e.Get("/v1/leads/"+bare+"/offers", e.NewKey(e.Org.ID, viewer.ScopeLendingRead)); r.Status != http.StatusOK || len(r.Items()) != 0 {
		t.Errorf("a lead without offers: %d %s", r.Status, r.Raw)
	}
}

// offersFixture is a lead with two approved offers, one at a factor and
// daily, one at an APR with no frequency (its payments null); it returns
// the lead's id.
func offersFixture(t *testing.T, e *resttest.Env) string {
	t.Helper()
	lead := createLead(t, e, e.Key, map[string]any{"businessName": "Compared Offers"})
	for i, terms := range []string{
		`interestRate: "1.35", rateType: factor, termMonths: 9, paymentFrequency: daily`,
		`interestRate: "0.189", rateType: apr, termMonths: 24, conditions: ["Voided check"]`,
	} {
		lender := field(gql(t, e, e.Key, `mutation($n: String!) { createLender(input: {name: $n}) { id } }`,
			map[string]any{"n": fmt.Sprintf("Offers lender %d", i)}), "createLender")["id"].(string)
		app := field(gql(t, e, e.Key, `mutation($l: ID!, $r: ID!) { submitApplication(input: {leadId: $l, lenderId: $r, requestedAmount: "30000"}) { id } }`,
			map[string]any{"l": lead, "r": lender}), "submitApplication")["id"].(string)
		gql(t, e, e.Key, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, `+terms+`}) { id } }`, map[string]any{"id": app})
	}
	return lead
}
