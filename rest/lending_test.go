package rest_test

import (
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

// gql runs a GraphQL operation with key and returns its data; any error
// fails the test. The lending half is written through GraphQL only.
func gql(t *testing.T, e *resttest.Env, key, query string, vars map[string]any) map[string]any {
	t.Helper()
	r := e.Post("/graphql", key, map[string]any{"query": query, "variables": vars})
	if r.Status != http.StatusOK || r.Body["errors"] != nil {
		t.Fatalf("GraphQL %s: %d %s", query, r.Status, r.Raw)
	}
	return r.Body["data"].(map[string]any)
}

// field is data's named object.
func field(data map[string]any, name string) map[string]any {
	return data[name].(map[string]any)
}

// lendingBook is one organization's lending records, written through
// GraphQL mutations with a clock that stands still except where it is moved,
// so every timestamp is known:
//
//   - lenders summit (a full box, 3 %), harbor (no box, 1.25 %) and dormant
//     (inactive), created in that order;
//   - lead A (Maya's, outside Summit's box on every count) submitted to
//     summit (a1) and harbor (a2); a2 is approved at 40000.40 on an APR
//     and funded (d1, commission 500.00: 500.005 rounded half-even), which
//     withdraws a1 (funded_elsewhere);
//   - lead B submitted to summit (a3), approved on a factor rate and funded
//     at 200000.30 (d2, payback 270000.40: 270000.405 rounded half-even;
//     advisor Sam), funded two days before d1 but recorded after it;
//   - lead C declined by harbor (a4), in underwriting at summit (a5);
//   - c1 (d1's commission) paid in two parts, the second dated earlier;
//     c2 (d2's) paid 1000.00, then 400.00 clawed back.
type lendingBook struct {
	e                          *resttest.Env
	key                        string
	base                       time.Time // the clock when the book was started
	maya, sam                  string
	summit, harbor, dormant    string
	leadA, leadB, leadC        string
	a1, a2, a3, a4, a5         string
	d1, d2, c1, c2             string
	d1FundedAt, d2FundedAt     time.Time
	created                    map[string]time.Time // each record's createdAt
	c1PaidFirst, c1PaidSecond  time.Time
	c2PaidAt, c2ClawedBackAt   time.Time
	a1Warnings                 []any
	keyLeadsOnly, keyWriteOnly string
}

// tick moves the clock one second, so records written one after the other
// have distinct times.
func (b *lendingBook) tick() time.Time {
	b.e.Clock.Advance(time.Second)
	return b.e.Clock.Now()
}

func (b *lendingBook) gql(t *testing.T, query string, vars map[string]any) map[string]any {
	t.Helper()
	b.tick()
	return gql(t, b.e, b.key, query, vars)
}

func (b *lendingBook) lender(t *testing.T, input map[string]any) string {
	t.Helper()
	id := field(b.gql(t, `mutation($input: CreateLenderInput!) { createLender(input: $input) { id } }`,
		map[string]any{"input": input}), "createLender")["id"].(string)
	b.created[id] = b.e.Clock.Now()
	return id
}

func (b *lendingBook) submit(t *testing.T, input map[string]any) string {
	t.Helper()
	id := field(b.gql(t, `mutation($input: SubmitApplicationInput!) { submitApplication(input: $input) { id } }`,
		map[string]any{"input": input}), "submitApplication")["id"].(string)
	b.created[id] = b.e.Clock.Now()
	return id
}

func (b *lendingBook) decide(t *testing.T, id string, input map[string]any) {
	t.Helper()
	b.gql(t, `mutation($id: ID!, $input: DecideApplicationInput!) { decideApplication(id: $id, input: $input) { id } }`,
		map[string]any{"id": id, "input": input})
}

func (b *lendingBook) fund(t *testing.T, input map[string]any) (deal, commission string) {
	t.Helper()
	d := field(b.gql(t, `mutation($input: FundDealInput!) { fundDeal(input: $input) { id commission { id } } }`,
		map[string]any{"input": input}), "fundDeal")
	deal, commission = d["id"].(string), field(d, "commission")["id"].(string)
	b.created[deal], b.created[commission] = b.e.Clock.Now(), b.e.Clock.Now()
	return deal, commission
}

func (b *lendingBook) pay(t *testing.T, mutation, deal, amount string, paidAt time.Time, reference string) {
	t.Helper()
	b.gql(t, `mutation($input: CommissionPaymentInput!) { `+mutation+`(input: $input) { id } }`,
		map[string]any{"input": map[string]any{"dealId": deal, "amount": amount, "paidAt": paidAt.Format(time.RFC3339Nano), "reference": reference}})
}

func newLendingBook(t *testing.T, e *resttest.Env) *lendingBook {
	t.Helper()
	e.Clock.Set(time.Now().UTC().Truncate(time.Second))
	b := &lendingBook{e: e, key: e.Key, base: e.Clock.Now(), created: map[string]time.Time{}}
	b.maya = e.NewUser(e.Org.ID, "Maya", "Chen", "advisor", "Closers").ID.String()
	b.sam = e.NewUser(e.Org.ID, "Sam", "Ortiz", "advisor", "Closers").ID.String()
	b.keyLeadsOnly = e.NewKey(e.Org.ID, viewer.ScopeLeadsRead, viewer.ScopeLeadsWrite)
	b.keyWriteOnly = e.NewKey(e.Org.ID, viewer.ScopeLendingWrite)

	b.summit = b.lender(t, map[string]any{"name": "Summit Capital", "products": []string{"mca", "term_loan"},
		"minAmount": "10000", "maxAmount": "40000", "minMonthlyRevenue": "15000.5", "minMonthsInBusiness": 6,
		"excludedIndustries": []string{"Cannabis"}, "commissionRate": "0.030", "contactEmail": "deals@summit.example"})
	b.harbor = b.lender(t, map[string]any{"name": "Harbor Funding", "commissionRate": "0.0125"})
	b.dormant = b.lender(t, map[string]any{"name": "Dormant Bank", "isActive": false})

	b.tick()
	b.leadA = createLead(t, e, b.key, map[string]any{"businessName": "Green Leaf Dispensary", "industry": "cannabis",
		"requestedAmount": "50000", "monthlyRevenue": "12000", "customFields": map[string]any{"monthsInBusiness": 3},
		"assignToAdvisorId": b.maya})
	b.leadB = createLead(t, e, b.key, map[string]any{"businessName": "Blue Wave Logistics", "requestedAmount": "20000"})
	b.leadC = createLead(t, e, b.key, map[string]any{"businessName": "Corner Bakery", "requestedAmount": "15000"})

	b.a1 = b.submit(t, map[string]any{"leadId": b.leadA, "lenderId": b.summit, "product": "mca", "externalRef": "SC-1001"})
	b.a2 = b.submit(t, map[string]any{"leadId": b.leadA, "lenderId": b.harbor, "requestedAmount": "45000.00",
		"product": "line_of_credit", "notes": "Prefers weekly payments"})
	b.a3 = b.submit(t, map[string]any{"leadId": b.leadB, "lenderId": b.summit, "requestedAmount": "200000.30"})
	b.a4 = b.submit(t, map[string]any{"leadId": b.leadC, "lenderId": b.harbor})
	b.a5 = b.submit(t, map[string]any{"leadId": b.leadC, "lenderId": b.summit})

	b.decide(t, b.a2, map[string]any{"decision": "APPROVED", "approvedAmount": "40000.40", "interestRate": "0.1890",
		"rateType": "apr", "termMonths": 24, "paymentFrequency": "monthly", "conditions": []string{"Voided check", "Last 3 bank statements"}})
	b.decide(t, b.a3, map[string]any{"decision": "APPROVED", "interestRate": "1.35", "rateType": "factor", "termMonths": 9})
	b.decide(t, b.a4, map[string]any{"decision": "DECLINED", "reason": "Too few months of statements", "declineCategory": "incomplete_file"})
	b.gql(t, `mutation($id: ID!) { markApplicationUnderwriting(id: $id) { id } }`, map[string]any{"id": b.a5})

	b.d1FundedAt = b.e.Clock.Now().Add(-time.Hour)
	// Its two conditions are outstanding: the lender funded anyway.
	b.d1, b.c1 = b.fund(t, map[string]any{"applicationId": b.a2, "fundedAt": b.d1FundedAt.Format(time.RFC3339), "waiveOutstanding": true})
	b.d2FundedAt = b.e.Clock.Now().Add(-48 * time.Hour).Add(123 * time.Millisecond)
	// An offset other than UTC: the deal is funded at the same instant.
	at := b.d2FundedAt.In(time.FixedZone("", -5*3600)).Format(time.RFC3339Nano)
	b.d2, b.c2 = b.fund(t, map[string]any{"applicationId": b.a3, "fundedAmount": "200000.30", "fundedAt": at, "advisorId": b.sam})

	b.c1PaidFirst, b.c1PaidSecond = b.e.Clock.Now().Add(-10*time.Minute), b.e.Clock.Now().Add(-20*time.Minute)
	b.pay(t, "recordCommissionPayment", b.d1, "200.00", b.c1PaidFirst, "ACH-1")
	b.pay(t, "recordCommissionPayment", b.d1, "300", b.c1PaidSecond, "ACH-2")
	b.c2PaidAt, b.c2ClawedBackAt = b.e.Clock.Now().Add(-time.Hour), b.e.Clock.Now().Add(-time.Minute)
	b.pay(t, "recordCommissionPayment", b.d2, "1000", b.c2PaidAt, "WIRE-9")
	b.pay(t, "recordCommissionClawback", b.d2, "400.00", b.c2ClawedBackAt, "CB-9")
	b.tick()
	return b
}

// ts is t as the API writes it.
func ts(t time.Time) string { return apitime.Format(t) }

// mustAttrs compares a resource's attributes with want, member for member.
func mustAttrs(t *testing.T, res map[string]any, typ string, want map[string]any) {
	t.Helper()
	if res["type"] != typ {
		t.Errorf("type = %v, want %s", res["type"], typ)
	}
	got := res["attributes"].(map[string]any)
	for k, w := range want {
		if g, ok := got[k]; !ok || !reflect.DeepEqual(g, w) {
			t.Errorf("%s %s: %s = %#v, want %#v", typ, res["id"], k, g, w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s %s: unexpected attribute %s = %#v", typ, res["id"], k, got[k])
		}
	}
}

// mustIDs checks a list's ids, in order, and its total.
func mustIDs(t *testing.T, r *resttest.Response, want ...string) {
	t.Helper()
	mustStatus(t, r, http.StatusOK)
	if got := idsOf(r); !slices.Equal(got, want) || r.Meta()["total"] != float64(len(want)) {
		t.Fatalf("ids = %v (total %v), want %v", got, r.Meta()["total"], want)
	}
}

func TestLenders(t *testing.T) {
	e := resttest.New(t)
	b := newLendingBook(t, e)

	t.Run("OK", func(t *testing.T) {
		r := e.Get("/v1/lenders", e.Key)
		mustPage(t, r, 3, 1, 20, false)
		mustIDs(t, r, b.dormant, b.harbor, b.summit)
		mustAttrs(t, r.Items()[2], "lender", map[string]any{
			"name": "Summit Capital", "isActive": true, "products": []any{"mca", "term_loan"},
			"minAmount": "10000.00", "maxAmount": "40000.00", "minMonthlyRevenue": "15000.50", "minMonthsInBusiness": float64(6),
			"excludedIndustries": []any{"Cannabis"}, "commissionRate": "0.03", "contactEmail": "deals@summit.example",
			"createdAt": ts(b.created[b.summit]), "updatedAt": ts(b.created[b.summit]),
		})
		one := e.Get("/v1/lenders/"+b.dormant, e.Key)
		mustStatus(t, one, http.StatusOK)
		mustAttrs(t, one.Data(), "lender", map[string]any{
			"name": "Dormant Bank", "isActive": false, "products": []any{}, "minAmount": nil, "maxAmount": nil,
			"minMonthlyRevenue": nil, "minMonthsInBusiness": nil, "excludedIndustries": []any{}, "commissionRate": "0",
			"contactEmail": nil, "createdAt": ts(b.created[b.dormant]), "updatedAt": ts(b.created[b.dormant]),
		})
	})
	t.Run("Filters", func(t *testing.T) {
		mustIDs(t, e.Get("/v1/lenders?isActive=true", e.Key), b.harbor, b.summit)
		mustIDs(t, e.Get("/v1/lenders?isActive=false", e.Key), b.dormant)
		p := e.Get("/v1/lenders?limit=2&page=2", e.Key)
		mustPage(t, p, 3, 2, 2, false)
		if got := idsOf(p); !slices.Equal(got, []string{b.summit}) {
			t.Fatalf("page 2 = %v", got)
		}
		mustPage(t, e.Get("/v1/lenders?limit=1&isActive=true", e.Key), 2, 1, 1, true)
	})
	t.Run("ErrMalformedFilter", func(t *testing.T) {
		for _, c := range []struct{ query, field string }{
			{"isActive=yes", "isActive"}, {"isActive=1", "isActive"}, {"isActive=TRUE", "isActive"},
			{"page=0", "page"}, {"limit=101", "limit"}, {"limit=ten", "limit"},
		} {
			mustError(t, e.Get("/v1/lenders?"+c.query, e.Key), http.StatusUnprocessableEntity, "VALIDATION_ERROR", c.field)
		}
	})
}

func TestApplications(t *testing.T) {
	e := resttest.New(t)
	b := newLendingBook(t, e)

	t.Run("OK", func(t *testing.T) {
		r := e.Get("/v1/applications", e.Key)
		mustPage(t, r, 5, 1, 20, false)
		mustIDs(t, r, b.a5, b.a4, b.a3, b.a2, b.a1)

		a1 := e.Get("/v1/applications/"+b.a1, e.Key)
		mustStatus(t, a1, http.StatusOK)
		submittedBy, _ := a1.Attr("submittedBy").(string)
		if _, err := uuid.Parse(submittedBy); err != nil {
			t.Errorf("submittedBy = %q, want the API key's id", submittedBy)
		}
		mustAttrs(t, a1.Data(), "application", map[string]any{
			"leadId": b.leadA, "lenderId": b.summit, "lenderName": "Summit Capital", "status": "withdrawn",
			"product": "mca", "requestedAmount": "50000.00", "submittedAt": ts(b.created[b.a1]), "submittedBy": submittedBy,
			"externalRef": "SC-1001", "notes": nil, "decidedAt": nil, "approvedAmount": nil, "interestRate": nil,
			"rateType": nil, "termMonths": nil, "paymentFrequency": nil, "conditions": []any{}, "declineReason": nil,
			"declineCategory": nil, "withdrawnReason": "funded_elsewhere", "fundedDealId": nil,
			"readyToFund": false, "stipulationsOutstanding": float64(0), "renewalOfDealId": nil, "isRenewal": false,
			"warnings": []any{
				"requestedAmount 50000.00 is above the lender's maxAmount 40000.00",
				"the lead's monthlyRevenue 12000.00 is below the lender's minMonthlyRevenue 15000.50",
				`the lead's industry "cannabis" is excluded by the lender`,
				"the lead's monthsInBusiness 3 is below the lender's minMonthsInBusiness 6",
			},
			"createdAt": ts(b.created[b.a1]), "updatedAt": a1.Attr("updatedAt"),
		})
		if a1.Attr("updatedAt") == ts(b.created[b.a1]) {
			t.Errorf("a withdrawn application's updatedAt is its createdAt")
		}

		a2 := e.Get("/v1/applications/"+b.a2, e.Key)
		mustStatus(t, a2, http.StatusOK)
		for k, want := range map[string]any{
			"status": "funded", "product": "line_of_credit", "requestedAmount": "45000.00", "notes": "Prefers weekly payments",
			"approvedAmount": "40000.40", "interestRate": "0.189", "rateType": "apr", "termMonths": float64(24),
			"paymentFrequency": "monthly", "conditions": []any{"Voided check", "Last 3 bank statements"},
			"warnings": []any{}, "fundedDealId": b.d1, "withdrawnReason": nil, "externalRef": nil,
		} {
			if got := a2.Attr(k); !reflect.DeepEqual(got, want) {
				t.Errorf("a2 %s = %#v, want %#v", k, got, want)
			}
		}
		if a2.Attr("decidedAt") == nil {
			t.Error("an approved application has no decidedAt")
		}
		// The approved amount defaults to the amount requested.
		if got := e.Get("/v1/applications/"+b.a3, e.Key).Attr("approvedAmount"); got != "200000.30" {
			t.Errorf("a3 approvedAmount = %v, want the requested 200000.30", got)
		}
		a4 := e.Get("/v1/applications/"+b.a4, e.Key)
		for k, want := range map[string]any{"status": "declined", "declineReason": "Too few months of statements",
			"declineCategory": "incomplete_file", "approvedAmount": nil, "rateType": nil, "product": nil} {
			if got := a4.Attr(k); !reflect.DeepEqual(got, want) {
				t.Errorf("a4 %s = %#v, want %#v", k, got, want)
			}
		}
		if got := e.Get("/v1/applications/"+b.a5, e.Key).Attr("status"); got != "underwriting" {
			t.Errorf("a5 status = %v", got)
		}
	})
	t.Run("Filters", func(t *testing.T) {
		mustIDs(t, e.Get("/v1/applications?leadId="+b.leadA, e.Key), b.a2, b.a1)
		mustIDs(t, e.Get("/v1/applications?lenderId="+b.summit, e.Key), b.a5, b.a3, b.a1)
		mustIDs(t, e.Get("/v1/applications?status=funded", e.Key), b.a3, b.a2)
		mustIDs(t, e.Get("/v1/applications?status=withdrawn", e.Key), b.a1)
		mustIDs(t, e.Get("/v1/applications?status=approved", e.Key))
		mustIDs(t, e.Get("/v1/applications?leadId="+b.leadC+"&lenderId="+b.harbor+"&status=declined", e.Key), b.a4)
		mustIDs(t, e.Get("/v1/applications?leadId="+b.leadC+"&status=funded", e.Key))
		p := e.Get("/v1/applications?limit=2&page=2", e.Key)
		mustPage(t, p, 5, 2, 2, true)
		if got := idsOf(p); !slices.Equal(got, []string{b.a3, b.a2}) {
			t.Fatalf("page 2 = %v", got)
		}
		mustPage(t, e.Get("/v1/applications?limit=2&page=4", e.Key), 5, 4, 2, false)
	})
	t.Run("ErrMalformedFilter", func(t *testing.T) {
		for _, c := range []struct{ query, field string }{
			{"leadId=lead-a", "leadId"}, {"lenderId=" + b.summit + "x", "lenderId"},
			{"status=open", "status"}, {"status=FUNDED", "status"}, {"page=-1", "page"}, {"limit=0", "limit"},
		} {
			mustError(t, e.Get("/v1/applications?"+c.query, e.Key), http.StatusUnprocessableEntity, "VALIDATION_ERROR", c.field)
		}
	})
}

func TestFundedDeals(t *testing.T) {
	e := resttest.New(t)
	b := newLendingBook(t, e)

	t.Run("OK", func(t *testing.T) {
		// Newest funding first: d2 was recorded after d1 but funded before it.
		r := e.Get("/v1/funded-deals", e.Key)
		mustPage(t, r, 2, 1, 20, false)
		mustIDs(t, r, b.d1, b.d2)
		mustAttrs(t, r.Items()[0], "funded_deal", map[string]any{
			"applicationId": b.a2, "leadId": b.leadA, "lenderId": b.harbor, "lenderName": "Harbor Funding",
			"advisorId": b.maya, "fundedAmount": "40000.40", "interestRate": "0.189", "rateType": "apr", "termMonths": float64(24),
			"paymentFrequency": "monthly", "paybackAmount": nil,
			"commission":   "500.00", // 40000.40 × 0.0125 = 500.005, half-even to the cent
			"commissionId": b.c1, "fundedAt": ts(b.d1FundedAt), "createdAt": ts(b.created[b.d1]),
			"renewalEligibleAt": renewalEligible(b.d1FundedAt, 24), "renewalOfDealId": nil, "isRenewal": false,
		})
		d2 := e.Get("/v1/funded-deals/"+b.d2, e.Key)
		mustStatus(t, d2, http.StatusOK)
		mustAttrs(t, d2.Data(), "funded_deal", map[string]any{
			"applicationId": b.a3, "leadId": b.leadB, "lenderId": b.summit, "lenderName": "Summit Capital",
			"advisorId": b.sam, "fundedAmount": "200000.30", "interestRate": "1.35", "rateType": "factor", "termMonths": float64(9),
			"paymentFrequency": nil,
			"paybackAmount":    "270000.40", // 200000.30 × 1.35 = 270000.405, half-even to the cent
			"commission":       "6000.01",   // 200000.30 × 0.03 = 6000.009
			"commissionId":     b.c2, "fundedAt": ts(b.d2FundedAt), "createdAt": ts(b.created[b.d2]),
			"renewalEligibleAt": renewalEligible(b.d2FundedAt, 9), "renewalOfDealId": nil, "isRenewal": false,
		})
	})
	t.Run("Filters", func(t *testing.T) {
		mustIDs(t, e.Get("/v1/funded-deals?leadId="+b.leadB, e.Key), b.d2)
		mustIDs(t, e.Get("/v1/funded-deals?lenderId="+b.harbor, e.Key), b.d1)
		mustIDs(t, e.Get("/v1/funded-deals?advisorId="+b.sam, e.Key), b.d2)
		mustIDs(t, e.Get("/v1/funded-deals?lenderId="+b.dormant, e.Key))
		q := func(from, to time.Time) string {
			v := url.Values{}
			if !from.IsZero() {
				v.Set("fundedFrom", from.Format(time.RFC3339Nano))
			}
			if !to.IsZero() {
				v.Set("fundedTo", to.Format(time.RFC3339Nano))
			}
			return "/v1/funded-deals?" + v.Encode()
		}
		day := b.base.Add(-24 * time.Hour)
		mustIDs(t, e.Get(q(day, time.Time{}), e.Key), b.d1)
		mustIDs(t, e.Get(q(time.Time{}, day), e.Key), b.d2)
		// fundedFrom is inclusive, fundedTo exclusive, at the millisecond.
		mustIDs(t, e.Get(q(b.d2FundedAt, b.d1FundedAt), e.Key), b.d2)
		mustIDs(t, e.Get(q(b.d2FundedAt, b.d1FundedAt.Add(time.Millisecond)), e.Key), b.d1, b.d2)
		// Any offset names the same instant.
		mustIDs(t, e.Get(q(b.d1FundedAt.In(time.FixedZone("", 9*3600)), time.Time{}), e.Key), b.d1)
		p := e.Get("/v1/funded-deals?limit=1&page=2", e.Key)
		mustPage(t, p, 2, 2, 1, false)
		if got := idsOf(p); !slices.Equal(got, []string{b.d2}) {
			t.Fatalf("page 2 = %v", got)
		}
	})
	t.Run("DateRange", func(t *testing.T) {
		// A date is a whole day in the organization's time zone (UTC here),
		// as in the reports: the day of d2's funding holds d2 alone.
		day := b.d2FundedAt.UTC().Format(time.DateOnly)
		mustIDs(t, e.Get("/v1/funded-deals?fundedFrom="+day+"&fundedTo="+day, e.Key), b.d2)
		// The day before d2's holds none. (The day after may hold d1, funded
		// an hour before now, when now is within an hour of midnight.)
		before := b.d2FundedAt.UTC().AddDate(0, 0, -1).Format(time.DateOnly)
		mustIDs(t, e.Get("/v1/funded-deals?fundedFrom="+before+"&fundedTo="+before, e.Key))
	})
	t.Run("ErrMalformedFilter", func(t *testing.T) {
		from := url.QueryEscape(b.d2FundedAt.Format(time.RFC3339))
		for _, c := range []struct{ query, field string }{
			{"leadId=1", "leadId"}, {"lenderId=harbor", "lenderId"}, {"advisorId=maya", "advisorId"},
			{"fundedFrom=yesterday", "fundedFrom"}, {"fundedFrom=2026-11-31", "fundedFrom"}, {"fundedFrom=20261120", "fundedFrom"},
			{"fundedTo=2026-13-01T00:00:00Z", "fundedTo"},
			{"fundedFrom=" + from + "&fundedTo=" + from, "fundedTo"},
			{"fundedFrom=2026-11-20T10:00:00Z&fundedTo=2026-11-20T09:00:00Z", "fundedTo"},
			{"page=x", "page"},
		} {
			mustError(t, e.Get("/v1/funded-deals?"+c.query, e.Key), http.StatusUnprocessableEntity, "VALIDATION_ERROR", c.field)
		}
	})
}

func TestCommissions(t *testing.T) {
	e := resttest.New(t)
	b := newLendingBook(t, e)

	t.Run("OK", func(t *testing.T) {
		r := e.Get("/v1/commissions", e.Key)
		mustPage(t, r, 2, 1, 20, false)
		mustIDs(t, r, b.c2, b.c1)
		c1 := r.Items()[1]
		mustAttrs(t, c1, "commission", map[string]any{
			"dealId": b.d1, "leadId": b.leadA, "lenderId": b.harbor, "advisorId": b.maya,
			"expectedAmount": "500.00", "paidAmount": "500.00", "status": "paid",
			// Oldest paidAt first: the second payment recorded is dated earlier.
			"payments": []any{
				map[string]any{"amount": "300.00", "kind": "payment", "paidAt": ts(b.c1PaidSecond), "reference": "ACH-2"},
				map[string]any{"amount": "200.00", "kind": "payment", "paidAt": ts(b.c1PaidFirst), "reference": "ACH-1"},
			},
			"createdAt": ts(b.created[b.c1]), "updatedAt": c1["attributes"].(map[string]any)["updatedAt"],
			"renewalOfDealId": nil, "isRenewal": false,
		})
		one := e.Get("/v1/commissions/"+b.c2, e.Key)
		mustStatus(t, one, http.StatusOK)
		mustAttrs(t, one.Data(), "commission", map[string]any{
			"dealId": b.d2, "leadId": b.leadB, "lenderId": b.summit, "advisorId": b.sam,
			"expectedAmount": "6000.01", "paidAmount": "600.00", "status": "clawed_back",
			"payments": []any{
				map[string]any{"amount": "1000.00", "kind": "payment", "paidAt": ts(b.c2PaidAt), "reference": "WIRE-9"},
				map[string]any{"amount": "400.00", "kind": "clawback", "paidAt": ts(b.c2ClawedBackAt), "reference": "CB-9"},
			},
			"createdAt": ts(b.created[b.c2]), "updatedAt": one.Attr("updatedAt"),
			"renewalOfDealId": nil, "isRenewal": false,
		})
		// The list and the read by id show the same commission.
		if !reflect.DeepEqual(one.Data(), r.Items()[0]) {
			t.Errorf("GET by id %v, in the list %v", one.Data(), r.Items()[0])
		}
	})
	t.Run("Filters", func(t *testing.T) {
		mustIDs(t, e.Get("/v1/commissions?dealId="+b.d1, e.Key), b.c1)
		mustIDs(t, e.Get("/v1/commissions?lenderId="+b.summit, e.Key), b.c2)
		mustIDs(t, e.Get("/v1/commissions?advisorId="+b.maya, e.Key), b.c1)
		mustIDs(t, e.Get("/v1/commissions?status=clawed_back", e.Key), b.c2)
		mustIDs(t, e.Get("/v1/commissions?status=paid&lenderId="+b.harbor, e.Key), b.c1)
		mustIDs(t, e.Get("/v1/commissions?status=pending", e.Key))
		p := e.Get("/v1/commissions?limit=1", e.Key)
		mustPage(t, p, 2, 1, 1, true)
	})
	t.Run("ErrMalformedFilter", func(t *testing.T) {
		for _, c := range []struct{ query, field string }{
			{"dealId=d1", "dealId"}, {"lenderId=%20", "lenderId"}, {"advisorId=0", "advisorId"},
			{"status=partial", "status"}, {"status=paid,pending", "status"}, {"limit=1000", "limit"},
		} {
			mustError(t, e.Get("/v1/commissions?"+c.query, e.Key), http.StatusUnprocessableEntity, "VALIDATION_ERROR", c.field)
		}
	})
}

// The lending reads need lending:read (lending:write and admin imply it),
// answer only GET, and know only the caller's organization.
func TestLendingAccess(t *testing.T) {
	e := resttest.New(t)
	b := newLendingBook(t, e)
	_, otherKey := e.NewOrg("Other Shop", viewer.AllScopes...)
	adminOnly := e.NewKey(e.Org.ID, viewer.ScopeAdmin)
	otherLead := createLead(t, e, otherKey, map[string]any{"businessName": "Other's lead"})
	records := map[string]string{
		"/v1/lenders": b.summit, "/v1/applications": b.a2, "/v1/funded-deals": b.d1, "/v1/commissions": b.c1,
	}
	for list, id := range records {
		t.Run(strings.TrimPrefix(list, "/v1/"), func(t *testing.T) {
			for _, path := range []string{list, list + "/" + id} {
				for _, key := range []string{b.keyWriteOnly, adminOnly} {
					mustStatus(t, e.Get(path, key), http.StatusOK)
				}
				mustError(t, e.Get(path, b.keyLeadsOnly), http.StatusForbidden, "FORBIDDEN", "")
				if r := e.Get(path, b.keyLeadsOnly); !strings.Contains(string(r.Raw), viewer.ScopeLendingRead) {
					t.Errorf("the 403 does not name %s: %s", viewer.ScopeLendingRead, r.Raw)
				}
				mustError(t, e.Get(path, ""), http.StatusUnauthorized, "UNAUTHORIZED", "")
				mustError(t, e.Get(path, "svc_live_not-a-key"), http.StatusUnauthorized, "UNAUTHORIZED", "")
				for _, method := range []string{"POST", "PUT", "PATCH", "DELETE"} {
					mustError(t, e.Do(resttest.Request{Method: method, Path: path, Key: e.Key, Body: map[string]any{}}),
						http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "")
				}
			}
			// Another organization: its own empty book, and 404 for this one's ids.
			mustIDs(t, e.Get(list, otherKey))
			r := e.Get(list+"/"+id, otherKey)
			mustError(t, r, http.StatusNotFound, "NOT_FOUND", "")
			if strings.Contains(string(r.Raw), id) {
				t.Errorf("the 404 names the id: %s", r.Raw)
			}
			// Unknown ids and ids that are not UUIDs are 404 alike.
			for _, unknown := range []string{uuid.NewString(), otherLead, "not-a-uuid", id + "0"} {
				mustError(t, e.Get(list+"/"+unknown, e.Key), http.StatusNotFound, "NOT_FOUND", "")
			}
		})
	}
	// Filtering by this organization's ids shows another organization nothing.
	for _, path := range []string{
		"/v1/applications?leadId=" + b.leadA, "/v1/applications?lenderId=" + b.summit,
		"/v1/funded-deals?leadId=" + b.leadA, "/v1/funded-deals?advisorId=" + b.maya,
		"/v1/commissions?dealId=" + b.d1, "/v1/commissions?lenderId=" + b.harbor,
	} {
		mustIDs(t, e.Get(path, otherKey))
	}
}

// REST reads the lending half through the GraphQL resolvers: the same
// records in the same order, the same amounts, on both surfaces; and the
// deal's expected commission is REST's commission and GraphQL's
// expectedCommission.
func TestLendingMatchesGraphQL(t *testing.T) {
	e := resttest.New(t)
	b := newLendingBook(t, e)
	page := func(query, name string) map[string]any {
		return field(gql(t, e, e.Key, query, nil), name)
	}
	nodeIDs := func(p map[string]any) []string {
		var out []string
		for _, n := range p["nodes"].([]any) {
			out = append(out, n.(map[string]any)["id"].(string))
		}
		return out
	}
	for _, c := range []struct{ rest, query, name string }{
		{"/v1/lenders?isActive=true", `{ lendersPage(isActive: true) { total nodes { id } } }`, "lendersPage"},
		{"/v1/applications?leadId=" + b.leadA, `{ applicationsPage(leadId: "` + b.leadA + `") { total nodes { id } } }`, "applicationsPage"},
		{"/v1/funded-deals?limit=1&page=2", `{ fundedDealsPage(limit: 1, page: 2) { total nodes { id } } }`, "fundedDealsPage"},
		{"/v1/commissions?status=paid", `{ commissionsPage(status: paid) { total nodes { id } } }`, "commissionsPage"},
	} {
		r := e.Get(c.rest, e.Key)
		p := page(c.query, c.name)
		if !slices.Equal(idsOf(r), nodeIDs(p)) || r.Meta()["total"] != p["total"] {
			t.Errorf("%s: REST %v (total %v), GraphQL %v", c.rest, idsOf(r), r.Meta()["total"], p)
		}
	}
	// The same bounds: a page over 100 is refused, naming the argument.
	for _, name := range []string{"lendersPage", "applicationsPage", "fundedDealsPage", "commissionsPage"} {
		r := e.Post("/graphql", e.Key, map[string]any{"query": `{ ` + name + `(limit: 101) { total } }`})
		if !strings.Contains(string(r.Raw), `"VALIDATION_ERROR"`) || !strings.Contains(string(r.Raw), `"limit"`) {
			t.Errorf("%s(limit: 101): %s", name, r.Raw)
		}
	}
	deals := page(`{ fundedDealsPage { nodes { id fundedAmount paybackAmount expectedCommission commission { id paidAmount } } } }`, "fundedDealsPage")
	for i, item := range e.Get("/v1/funded-deals", e.Key).Items() {
		g := deals["nodes"].([]any)[i].(map[string]any)
		a := item["attributes"].(map[string]any)
		if g["id"] != item["id"] || g["fundedAmount"] != a["fundedAmount"] || g["paybackAmount"] != a["paybackAmount"] ||
			g["expectedCommission"] != a["commission"] || field(g, "commission")["id"] != a["commissionId"] {
			t.Errorf("deal %d: GraphQL %v, REST %v", i, g, item)
		}
	}
}

// renewalEligible is when a deal funded at funded for term months may
// renew (PRODUCT 12.2), computed here by hand: half the term in calendar
// months, rounded up, on the same day of the month in UTC, or the month's
// last day when it has no such day.
func renewalEligible(funded time.Time, term int) string {
	t := funded.UTC()
	y, m, d := t.Date()
	target := m + time.Month((term+1)/2)
	last := time.Date(y, target+1, 0, 0, 0, 0, 0, time.UTC).Day()
	return ts(time.Date(y, target, min(d, last), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC))
}
