package graph_test

import (
	"testing"
)

// The funding rules (PRODUCT 8.2): the advisor credited is an advisor or
// an admin, fundedAmount is at most the approved amount, and
// funded_elsewhere is the service's reason alone. A refused funding
// changes nothing.
func TestFundingRules(t *testing.T) {
	l := newLendingEnv(t)
	advisor := l.NewUser(l.Org.ID, "Ada", "Advisor", "advisor", "")
	admin := l.NewUser(l.Org.ID, "Ann", "Admin", "admin", "")
	agent := l.NewUser(l.Org.ID, "Riley", "Agent", "agent", "")
	lender := l.lender(t, "Rules Capital", nil)
	lead := l.lead(t, map[string]any{"assignToAdvisorId": advisor.ID})
	app := l.approved(t, lead, lender, "1000", map[string]any{"approvedAmount": "1000.00"})

	wantError(t, l.refused(t, fundDealDoc, map[string]any{"in": map[string]any{"applicationId": app, "advisorId": agent.ID}}),
		"VALIDATION_ERROR", "advisorId")
	for _, amount := range []string{"1000.01", "5000000.00"} {
		wantError(t, l.refused(t, fundDealDoc, map[string]any{"in": map[string]any{"applicationId": app, "fundedAmount": amount}}),
			"VALIDATION_ERROR", "fundedAmount")
	}
	if got := l.application(t, app)["status"]; got != "approved" {
		t.Fatalf("after refused fundings the application is %v", got)
	}
	deal := l.fund(t, map[string]any{"applicationId": app, "fundedAmount": "1000.00", "advisorId": admin.ID})
	if deal["advisorId"] != admin.ID.String() || deal["fundedAmount"] != "1000.00" {
		t.Errorf("funded %v, want the whole approval credited to the admin", deal)
	}

	// A lead assigned to a dialer agent funds a deal credited to no one.
	agentsLead := l.lead(t, map[string]any{"assignToAdvisorId": agent.ID})
	byAgent := l.fund(t, map[string]any{"applicationId": l.approved(t, agentsLead, lender, "1000", nil)})
	if byAgent["advisorId"] != nil {
		t.Errorf("a deal of an agent's lead is credited to %v, want no one", byAgent["advisorId"])
	}

	other := l.submit(t, l.lead(t, nil), lender, nil)["id"].(string)
	for _, reason := range []string{"funded_elsewhere", " Funded_Elsewhere "} {
		wantError(t, l.refused(t, `mutation($id: ID!, $r: String) { withdrawApplication(id: $id, reason: $r) { id } }`,
			map[string]any{"id": other, "r": reason}), "VALIDATION_ERROR", "reason")
	}
	if got := l.application(t, other)["status"]; got != "submitted" {
		t.Fatalf("after a refused withdrawal the application is %v", got)
	}
	// The service's own withdrawal still gives it.
	open := l.submit(t, lead, l.lender(t, "Second Look", nil), nil)["id"].(string)
	second := l.approved(t, lead, l.lender(t, "Third Look", nil), "500", nil)
	l.fund(t, map[string]any{"applicationId": second})
	if got := l.application(t, open); got["status"] != "withdrawn" || got["withdrawnReason"] != "funded_elsewhere" {
		t.Errorf("the lead's open application after a funding: %v", got)
	}
}
