package graph_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/rest/resttest"
)

// lendingFixture makes lenders and leads over GraphQL and REST.
type lendingFixture struct {
	t *testing.T
	e *resttest.Env
}

func (f lendingFixture) do(query string, vars map[string]any) map[string]any {
	f.t.Helper()
	data, code := gql(f.t, f.e, f.e.Key, query, vars)
	if code != "" {
		f.t.Fatalf("%s: %s", query, code)
	}
	return data
}

func (f lendingFixture) lender(name, rate string) string {
	f.t.Helper()
	data := f.do(`mutation($in: CreateLenderInput!) { createLender(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"name": name, "products": []string{"mca"}, "commissionRate": rate}})
	return data["createLender"].(map[string]any)["id"].(string)
}

func (f lendingFixture) lead(name string) string {
	f.t.Helper()
	r := f.e.Post("/v1/leads", f.e.Key, map[string]any{"businessName": name, "requestedAmount": "50000"})
	if r.Status != http.StatusCreated {
		f.t.Fatalf("creating a lead: %s", r.Raw)
	}
	return r.Data()["id"].(string)
}

func (f lendingFixture) submit(lead, lender string) string {
	f.t.Helper()
	data := f.do(`mutation($in: SubmitApplicationInput!) { submitApplication(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"leadId": lead, "lenderId": lender}})
	return data["submitApplication"].(map[string]any)["id"].(string)
}

func (f lendingFixture) approve(app string) {
	f.t.Helper()
	f.do(`mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, approvedAmount: "40000.00",
		interestRate: "1.3", rateType: factor, termMonths: 8}) { id } }`, map[string]any{"id": app})
}

func (f lendingFixture) fund(app string, at time.Time) map[string]any {
	f.t.Helper()
	data := f.do(`mutation($in: FundDealInput!) { fundDeal(input: $in) { id fundedAmount expectedCommission paybackAmount fundedAt
		commission { id status expectedAmount } lead { convertedAt stage { semanticSlot } } } }`,
		map[string]any{"in": map[string]any{"applicationId": app, "fundedAt": at.UTC().Format(time.RFC3339Nano)}})
	return data["fundDeal"].(map[string]any)
}

// A lead's lending moves it through the pipeline and emits every event;
// funding withdraws the lead's other open applications and refuses one of
// them afterwards; each payment moves the commission's status.
func TestLendingFlowThroughGraphQL(t *testing.T) {
	e := resttest.New(t)
	f := lendingFixture{t, e}
	a, b := f.lender("Alpha Funding", "0.1"), f.lender("Beta Capital", "0.05")
	lead := f.lead("Flow Trucking LLC")
	slot := func() string {
		data := f.do(`query($id: ID!) { lead(id: $id) { stage { semanticSlot } } }`, map[string]any{"id": lead})
		return data["lead"].(map[string]any)["stage"].(map[string]any)["semanticSlot"].(string)
	}
	events := func(kind string) int {
		n, err := e.DB.Client.WebhookEvent.Query().Where(webhookevent.OrgID(e.Org.ID), webhookevent.EventType(kind)).
			Count(rule.SystemContext(context.Background()))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	first := f.submit(lead, a)
	if got := slot(); got != "application" || events("application.submitted") != 1 || events("lead.stage_changed") != 1 {
		t.Fatalf("after submitting: slot %s, %d submitted, %d stage changes", got, events("application.submitted"), events("lead.stage_changed"))
	}
	second := f.submit(lead, b)
	f.approve(first)
	f.approve(second)
	if got := slot(); got != "approved" || events("application.approved") != 2 || events("lead.status_changed") != 2 {
		t.Fatalf("after approving: slot %s, %d approved, %d status changes", got, events("application.approved"), events("lead.status_changed"))
	}
	at := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	deal := f.fund(first, at)
	cm := deal["commission"].(map[string]any)
	l := deal["lead"].(map[string]any)
	if deal["fundedAmount"] != "40000.00" || deal["expectedCommission"] != "4000.00" || deal["paybackAmount"] != "52000.00" ||
		cm["status"] != "pending" || cm["expectedAmount"] != "4000.00" ||
		l["stage"].(map[string]any)["semanticSlot"] != "won" || l["convertedAt"] != deal["fundedAt"] || events("deal.funded") != 1 {
		t.Fatalf("the deal: %v", deal)
	}
	data := f.do(`query($lead: ID!, $lender: ID!) { applicationsPage(leadId: $lead, lenderId: $lender) { nodes { id status withdrawnReason fundedDeal { id } } } }`,
		map[string]any{"lead": lead, "lender": b})
	if w := data["applicationsPage"].(map[string]any)["nodes"].([]any); len(w) != 1 || w[0].(map[string]any)["status"] != "withdrawn" ||
		w[0].(map[string]any)["withdrawnReason"] != "funded_elsewhere" || w[0].(map[string]any)["fundedDeal"] != nil {
		t.Errorf("the other approval: %v", w)
	}
	data, code := gql(t, e, e.Key, `mutation($in: FundDealInput!) { fundDeal(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"applicationId": second}})
	if code != "CONFLICT" || data["fundDeal"] != nil {
		t.Errorf("funding the withdrawn application: %s, %v", code, data)
	}

	for _, step := range []struct{ amount, status, paid string }{
		{"1500.00", "partially_paid", "1500.00"}, {"2500.00", "paid", "4000.00"},
	} {
		data := f.do(`mutation($in: CommissionPaymentInput!) { recordCommissionPayment(input: $in) { status paidAmount payments { amount } } }`,
			map[string]any{"in": map[string]any{"dealId": deal["id"], "amount": step.amount}})
		got := data["recordCommissionPayment"].(map[string]any)
		if got["status"] != step.status || got["paidAmount"] != step.paid {
			t.Errorf("after paying %s: %v", step.amount, got)
		}
	}
	if n := events("deal.commission_paid"); n != 2 {
		t.Errorf("%d deal.commission_paid events, want 2", n)
	}
}

// fundedDealsPage's total of a lender's deals since fundedFrom (the day
// counts) equals the deals themselves, at and around day boundaries.
func TestFundedDealsPageLenderTotal(t *testing.T) {
	e := resttest.New(t)
	f := lendingFixture{t, e}
	lenders := []string{f.lender("Gamma Advance", "0.08"), f.lender("Delta Lending", "0.03")}
	now := time.Now().UTC()
	midnight := now.Truncate(24 * time.Hour)
	// Deals at midnights, just before and after them, and today.
	fundedAt := []time.Time{midnight.AddDate(0, 0, -20), midnight.AddDate(0, 0, -20).Add(-time.Millisecond),
		midnight.AddDate(0, 0, -10).Add(13 * time.Hour), midnight.AddDate(0, 0, -10).Add(20 * time.Hour),
		midnight.AddDate(0, 0, -3).Add(time.Millisecond), midnight.AddDate(0, 0, -1), now.Add(-time.Minute)}
	var funded [2][]time.Time
	for i, at := range fundedAt {
		k := i % 2
		app := f.submit(f.lead(fmt.Sprintf("Total %d Bakery", i)), lenders[k])
		f.approve(app)
		f.fund(app, at)
		funded[k] = append(funded[k], at)
	}
	froms := []time.Time{midnight.AddDate(0, 0, -30), midnight.AddDate(0, 0, -20), midnight.AddDate(0, 0, -20).Add(-time.Millisecond),
		midnight.AddDate(0, 0, -10).Add(15 * time.Hour), midnight.AddDate(0, 0, -3), midnight.AddDate(0, 0, -3).Add(time.Millisecond),
		midnight, now.Add(-2 * time.Minute), now}
	for k, lender := range lenders {
		for _, from := range froms {
			want := 0
			for _, at := range funded[k] {
				if !at.Before(from) {
					want++
				}
			}
			for _, to := range []*time.Time{nil, ptr(midnight.AddDate(0, 0, -2)), ptr(midnight.AddDate(0, 0, -10).Add(14 * time.Hour))} {
				vars := map[string]any{"lender": lender, "from": from.Format(time.RFC3339Nano)}
				q := `query($lender: ID!, $from: Time!) { fundedDealsPage(lenderId: $lender, fundedFrom: $from) { total nodes { id } } }`
				expect := want
				if to != nil {
					if !to.After(from) {
						continue
					}
					vars["to"] = to.Format(time.RFC3339Nano)
					q = `query($lender: ID!, $from: Time!, $to: Time!) { fundedDealsPage(lenderId: $lender, fundedFrom: $from, fundedTo: $to) { total nodes { id } } }`
					expect = 0
					for _, at := range funded[k] {
						if !at.Before(from) && at.Before(*to) {
							expect++
						}
					}
				}
				page := f.do(q, vars)["fundedDealsPage"].(map[string]any)
				if page["total"] != float64(expect) || len(page["nodes"].([]any)) != expect {
					t.Errorf("lender %d from %s to %v: total %v, %d nodes; want %d", k, from, to, page["total"], len(page["nodes"].([]any)), expect)
				}
			}
		}
	}
	// Another organization's key sees none of them.
	_, other := e.NewOrg("Elsewhere", "lending:read")
	data, code := gql(t, e, other, `query($lender: ID!) { fundedDealsPage(lenderId: $lender) { total } }`, map[string]any{"lender": lenders[0]})
	if code != "" || data["fundedDealsPage"].(map[string]any)["total"] != 0.0 {
		t.Errorf("another organization's total: %v %s", data, code)
	}
}

func ptr[T any](v T) *T { return &v }
