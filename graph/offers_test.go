package graph_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

// approveOffer submits lead to a new lender and approves it with the
// decision's offer fields; it returns the application's id.
func (l *lendingEnv) approveOffer(t *testing.T, lead, lender, amount string, decision string) string {
	t.Helper()
	app := l.submit(t, lead, l.lender(t, lender, nil), map[string]any{"requestedAmount": amount})["id"].(string)
	l.must(t, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, `+decision+`}) { id } }`,
		map[string]any{"id": app})
	return app
}

// Lead.offers over GraphQL: the approved applications cheapest first with
// the figures computed by hand, and leadsReadyToFund naming the lead once
// an offer is ready.
func TestLeadOffersOverGraphQL(t *testing.T) {
	l := newLendingEnv(t)
	lead := l.lead(t, nil)
	l.approveOffer(t, lead, "Alpha Capital", "50000.00", `interestRate: "0.189", rateType: apr, termMonths: 24, paymentFrequency: monthly`)
	l.approveOffer(t, lead, "Beta Funding", "25000.00", `interestRate: "1.35", rateType: factor, termMonths: 12, paymentFrequency: daily, conditions: ["Voided check"]`)
	l.approveOffer(t, lead, "Gamma Lending", "30000.00", `interestRate: "1.2", rateType: factor, termMonths: 7, paymentFrequency: weekly`)
	declined := l.submit(t, lead, l.lender(t, "Delta Bank", nil), nil)["id"].(string)
	l.do(t, declineDoc, declined)

	data := l.must(t, `query($id: ID!) { lead(id: $id) { offers { applicationId lenderId lenderName approvedAmount rateType interestRate
		termMonths paymentFrequency paybackAmount payments paymentAmount costOfCapital readyToFund } } }`, map[string]any{"id": lead})
	offers := data["lead"].(map[string]any)["offers"].([]any)
	want := []string{
		// 36000 / ceil(7×52/12 = 30.33) = 36000 / 31 = 1161.290…
		"Gamma Lending 30000.00 factor 1.2 7 weekly 36000.00 31 1161.29 6000.00 true",
		// 33750 / (12×21) = 133.928…
		"Beta Funding 25000.00 factor 1.35 12 daily 33750.00 252 133.93 8750.00 false",
		// 50000 + 50000×0.189×24/12; 68900 / 24 = 2870.833…
		"Alpha Capital 50000.00 apr 0.189 24 monthly 68900.00 24 2870.83 18900.00 true",
	}
	if len(offers) != len(want) {
		t.Fatalf("%d offers, want %d: %v", len(offers), len(want), offers)
	}
	for i, o := range offers {
		m := o.(map[string]any)
		got := fmt.Sprintf("%v %v %v %v %v %v %v %v %v %v", m["lenderName"], m["approvedAmount"], m["rateType"], m["interestRate"],
			m["termMonths"], m["paymentFrequency"], m["paybackAmount"], m["payments"], m["paymentAmount"], m["costOfCapital"])
		got += fmt.Sprintf(" %v", m["readyToFund"])
		if got != want[i] {
			t.Errorf("offer %d: %s\nwant %s", i, got, want[i])
		}
	}

	// The board's badge: one read for a page of leads.
	bare := l.lead(t, nil)
	ready := l.must(t, `query($ids: [ID!]!) { leadsReadyToFund(leadIds: $ids) }`, map[string]any{"ids": []string{bare, lead}})
	if got := ready["leadsReadyToFund"].([]any); len(got) != 1 || got[0] != lead {
		t.Errorf("leadsReadyToFund = %v, want [%s]", got, lead)
	}
	// Another organization's key learns nothing of the lead.
	_, otherKey := l.NewOrg("Other Shop", viewer.AllScopes...)
	data, ext := gqlExt(t, l.Env, otherKey, `query($ids: [ID!]!) { leadsReadyToFund(leadIds: $ids) }`, map[string]any{"ids": []string{lead}})
	if ext != nil || len(data["leadsReadyToFund"].([]any)) != 0 {
		t.Errorf("another organization's leadsReadyToFund: %v %v, want []", data, ext)
	}
	if _, ext := gqlExt(t, l.Env, otherKey, `query($id: ID!) { lead(id: $id) { offers { applicationId } } }`, map[string]any{"id": lead}); ext == nil || ext["code"] != "NOT_FOUND" {
		t.Errorf("another organization's Lead.offers: %v, want NOT_FOUND", ext)
	}
	// leads:read reads the lead, not its offers.
	leadsOnly, _, err := store.CreateAPIKey(context.Background(), l.DB.Client, l.Org.ID, "live", "leads only", []string{viewer.ScopeLeadsRead})
	if err != nil {
		t.Fatal(err)
	}
	if _, ext := gqlExt(t, l.Env, leadsOnly, `query($id: ID!) { lead(id: $id) { id offers { applicationId } } }`, map[string]any{"id": lead}); ext == nil || ext["code"] != "FORBIDDEN" {
		t.Errorf("Lead.offers with leads:read only: %v, want FORBIDDEN", ext)
	}
	ids := make([]string, 101)
	for i := range ids {
		ids[i] = lead
	}
	wantError(t, l.refused(t, `query($ids: [ID!]!) { leadsReadyToFund(leadIds: $ids) }`, map[string]any{"ids": ids}), "VALIDATION_ERROR", "leadIds")
}

// Lead.offers is one statement beside the lead's own, however many offers
// the lead has, and leadsReadyToFund one for a whole page of leads: no
// query an offer or a card.
func TestOffersAreOneStatement(t *testing.T) {
	s := newStatementServer(t)
	_, key := resttest.OrgWithKey(t, s.db, "Counted", viewer.AllScopes...)
	s.key = key
	e := &resttest.Env{T: t, Server: s.srv}
	do := func(query string, vars map[string]any) map[string]any {
		t.Helper()
		r := e.Post("/graphql", key, map[string]any{"query": query, "variables": vars})
		if code, _ := r.Error(); r.Status != http.StatusOK || code != "" {
			t.Fatalf("%s: %d %s", query, r.Status, r.Raw)
		}
		return r.Body["data"].(map[string]any)
	}
	newLead := func(name string) string {
		return do(`mutation($n: String) { createLead(input: {businessName: $n}) { id } }`, map[string]any{"n": name})["createLead"].(map[string]any)["id"].(string)
	}
	approve := func(lead string, n int) {
		for i := range n {
			lender := do(`mutation($n: String!) { createLender(input: {name: $n}) { id } }`,
				map[string]any{"n": fmt.Sprintf("%s lender %d", lead, i)})["createLender"].(map[string]any)["id"].(string)
			app := do(`mutation($l: ID!, $r: ID!) { submitApplication(input: {leadId: $l, lenderId: $r, requestedAmount: "10000"}) { id } }`,
				map[string]any{"l": lead, "r": lender})["submitApplication"].(map[string]any)["id"].(string)
			do(`mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, interestRate: "1.3", rateType: factor, termMonths: 6, paymentFrequency: daily}) { id } }`,
				map[string]any{"id": app})
		}
	}
	one, four := newLead("One Offer"), newLead("Four Offers")
	approve(one, 1)
	approve(four, 4)
	bare := s.statements(t, `query($id: ID!) { lead(id: $id) { id } }`, map[string]any{"id": four})
	offers := func(id string) int {
		return s.statements(t, `query($id: ID!) { lead(id: $id) { id offers { applicationId costOfCapital readyToFund } } }`, map[string]any{"id": id})
	}
	if a, b := offers(one), offers(four); a != bare+1 || b != bare+1 {
		t.Errorf("Lead.offers: %d statements with 1 offer, %d with 4; the lead alone %d", a, b, bare)
	}
	ready := func(ids []string) int {
		return s.statements(t, `query($ids: [ID!]!) { leadsReadyToFund(leadIds: $ids) }`, map[string]any{"ids": ids})
	}
	page := []string{one, four}
	for range 23 {
		page = append(page, newLead("Card"))
	}
	if a, b := ready(page[:1]), ready(page); a != b {
		t.Errorf("leadsReadyToFund: %d statements for 1 lead, %d for 25", a, b)
	}
}
