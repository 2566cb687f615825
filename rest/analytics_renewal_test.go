package rest_test

import (
	"context"
	"net/http"
	"reflect"
	"testing"

	"github.com/lendingpipe/svc/analytics"
	"github.com/lendingpipe/svc/rest/resttest"
)

// PRODUCT 12.3: a lead's deal renewed. The funding report counts the
// renewal deal and its amount apart, in the totals and in its series
// bucket; the commissions report sums the renewal's commission, expected
// and paid (gross of its clawback), apart; over REST, as the organization's
// rollups answer and as the records do.
func TestAnalyticsRenewalFigures(t *testing.T) {
	e := resttest.New(t)
	key := e.Key
	lender := field(gql(t, e, key, `mutation { createLender(input: {name: "Renewal Capital", commissionRate: "0.1"}) { id } }`, nil),
		"createLender")["id"].(string)
	lead := createLead(t, e, key, map[string]any{"businessName": "Renewed Bakery", "requestedAmount": "20000"})
	fund := func(renews string, amount string) string {
		t.Helper()
		in := map[string]any{"leadId": lead, "lenderId": lender, "requestedAmount": amount}
		if renews != "" {
			in["renewalOfDealId"] = renews
		}
		app := field(gql(t, e, key, `mutation($in: SubmitApplicationInput!) { submitApplication(input: $in) { id } }`,
			map[string]any{"in": in}), "submitApplication")["id"].(string)
		gql(t, e, key, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, interestRate: "1.3", rateType: factor, termMonths: 6}) { id } }`,
			map[string]any{"id": app})
		return field(gql(t, e, key, `mutation($id: ID!) { fundDeal(input: {applicationId: $id}) { id } }`, map[string]any{"id": app}),
			"fundDeal")["id"].(string)
	}
	first := fund("", "20000.00")
	renewal := fund(first, "30000.10")
	pay := func(op, deal, amount string) {
		t.Helper()
		gql(t, e, key, `mutation($in: CommissionPaymentInput!) { `+op+`(input: $in) { id } }`,
			map[string]any{"in": map[string]any{"dealId": deal, "amount": amount}})
	}
	pay("recordCommissionPayment", first, "2000.00")
	pay("recordCommissionPayment", renewal, "1500.00")
	pay("recordCommissionClawback", renewal, "500.00")

	// The organization's rollups built, the default range in its zone reads
	// them; in another zone the reports read the records.
	if err := analytics.RebuildRollups(context.Background(), e.DB.Client, e.Org.ID); err != nil {
		t.Fatal(err)
	}
	for _, query := range []string{"interval=month", "interval=month&timezone=Asia/Kathmandu"} {
		r := e.Get("/v1/analytics/funding?"+query, key)
		mustStatus(t, r, http.StatusOK)
		totals := r.Attr("totals").(map[string]any)
		if totals["deals"] != 2.0 || totals["renewalDeals"] != 1.0 || totals["renewalAmount"] != "30000.10" || totals["fundedAmount"] != "50000.10" {
			t.Errorf("%s: funding totals = %v", query, totals)
		}
		renewals, renewed := 0.0, 0.0
		for _, b := range r.Attr("series").([]any) {
			b := b.(map[string]any)
			renewals += b["renewalDeals"].(float64)
			renewed += cents(t, b["renewalAmount"])
		}
		if renewals != 1 || renewed != 3000010 {
			t.Errorf("%s: series hold %v renewal deals, %v cents", query, renewals, renewed)
		}
		r = e.Get("/v1/analytics/commissions?"+query, key)
		mustStatus(t, r, http.StatusOK)
		// The renewal's commission: 10 % of 30000.10, 1500.00 paid gross.
		if got, want := r.Attr("renewal"), map[string]any{"expected": "3000.01", "paid": "1500.00"}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: commissions renewal = %v, want %v", query, got, want)
		}
	}
}
