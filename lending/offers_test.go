package lending_test

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"entgo.io/ent/privacy"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
	"github.com/lendingpipe/svc/lending"
)

// offerSpec is an application to submit and, when decision is set, decide.
type offerSpec struct {
	lender     string
	amount     int64 // cents
	decision   string
	rateType   application.RateType
	rate       string
	term       int
	freq       *application.PaymentFrequency
	conditions []string
}

func freq(f application.PaymentFrequency) *application.PaymentFrequency { return &f }

// offersLead submits the lead to a lender per spec and decides each as
// it says ("approved", "declined", or "" to leave it submitted).
func offersLead(t *testing.T, e *env, specs []offerSpec) uuid.UUID {
	t.Helper()
	ctx, c := e.a.as, e.db.Client
	name := "Offers Bakery"
	l, err := leads.Create(ctx, c, ent.CreateLeadInput{BusinessName: &name})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		ld, err := c.Lender.Create().SetName(s.lender).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		amount := money.FromCents(s.amount)
		a, err := lending.Submit(ctx, c, lending.Submission{LeadID: l.ID, LenderID: ld.ID, RequestedAmount: &amount})
		if err != nil {
			t.Fatal(err)
		}
		switch s.decision {
		case "approved":
			rate, err := money.ParseRate(s.rate)
			if err != nil {
				t.Fatal(err)
			}
			_, err = lending.Decide(ctx, c, a.ID, lending.Decision{Approved: true, InterestRate: &rate,
				RateType: &s.rateType, TermMonths: &s.term, PaymentFrequency: s.freq, Conditions: s.conditions})
			if err != nil {
				t.Fatal(err)
			}
		case "declined":
			if _, err := lending.Decide(ctx, c, a.ID, lending.Decision{Reason: ptr("revenue too low")}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return l.ID
}

// The lead's approved applications only, cheapest first, with the figures
// computed by hand: a tie on cost goes to the lender name ignoring case.
func TestOffersSideBySide(t *testing.T) {
	e := newEnv(t)
	lead := offersLead(t, e, []offerSpec{
		{lender: "Alpha Capital", amount: 5_000_000, decision: "approved", rateType: application.RateTypeApr, rate: "0.189", term: 24},
		{lender: "Beta Funding", amount: 2_500_000, decision: "approved", rateType: application.RateTypeFactor, rate: "1.35", term: 12,
			freq: freq(application.PaymentFrequencyMonthly)},
		{lender: "Gamma Lending", amount: 3_000_000, decision: "approved", rateType: application.RateTypeFactor, rate: "1.2", term: 6,
			freq: freq(application.PaymentFrequencyWeekly), conditions: []string{"Three months of bank statements"}},
		{lender: "delta Bank", amount: 3_000_000, decision: "approved", rateType: application.RateTypeApr, rate: "0.4", term: 6,
			freq: freq(application.PaymentFrequencyDaily)},
		{lender: "Epsilon Credit", amount: 1_000_000, decision: "declined"},
		{lender: "Zeta Finance", amount: 1_000_000},
	})
	offers, err := lending.Offers(e.a.as, e.db.Client, lead)
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ lender, amount, rateType, rate, payback, payments, each, cost string }
	want := []row{
		{"delta Bank", "30000.00", "apr", "0.4", "36000.00", "126", "285.71", "6000.00"},       // 36000/126 = 285.714…
		{"Gamma Lending", "30000.00", "factor", "1.2", "36000.00", "26", "1384.62", "6000.00"}, // 36000/26 = 1384.615…
		{"Beta Funding", "25000.00", "factor", "1.35", "33750.00", "12", "2812.50", "8750.00"},
		{"Alpha Capital", "50000.00", "apr", "0.189", "68900.00", "-", "-", "18900.00"}, // no frequency
	}
	if len(offers) != len(want) {
		t.Fatalf("%d offers, want %d: %+v", len(offers), len(want), offers)
	}
	for i, o := range offers {
		got := row{o.LenderName, o.ApprovedAmount.String(), o.RateType.String(), o.InterestRate.String(),
			o.PaybackAmount.String(), "-", "-", o.CostOfCapital.String()}
		if o.Payments != nil {
			got.payments = strconv.Itoa(*o.Payments)
		}
		if o.PaymentAmount != nil {
			got.each = o.PaymentAmount.String()
		}
		if got != want[i] {
			t.Errorf("offer %d: %+v, want %+v", i, got, want[i])
		}
		if wantReady := o.LenderName != "Gamma Lending"; o.ReadyToFund != wantReady {
			t.Errorf("%s ready to fund: %v, want %v", o.LenderName, o.ReadyToFund, wantReady)
		}
	}
}

// A lead without an approved application has no offers; an unknown lead,
// or one of another organization, is NOT_FOUND; lending:read alone reads
// offers, leads:read alone does not.
func TestOffersOfWhichLead(t *testing.T) {
	e := newEnv(t)
	lead := offersLead(t, e, []offerSpec{
		{lender: "Beta Funding", amount: 2_500_000, decision: "approved", rateType: application.RateTypeFactor, rate: "1.35", term: 12},
	})
	bare := offersLead(t, e, []offerSpec{{lender: "Zeta Finance", amount: 1_000_000}})
	if got, err := lending.Offers(e.a.as, e.db.Client, bare); err != nil || got == nil || len(got) != 0 {
		t.Errorf("a lead with no approval: %v, %v; want an empty list", got, err)
	}
	other, _, err := store.CreateOrganization(context.Background(), e.db.Client, "Other Brokers")
	if err != nil {
		t.Fatal(err)
	}
	stranger := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: other.ID, KeyID: uuid.New(), Scopes: viewer.AllScopes})
	for name, ctx := range map[string]context.Context{"another organization": stranger, "an unknown lead": e.a.as} {
		id := lead
		if name == "an unknown lead" {
			id = uuid.New()
		}
		_, err := lending.Offers(ctx, e.db.Client, id)
		if ae, ok := apperr.As(err); !ok || ae.Code != apperr.NotFound {
			t.Errorf("%s: %v; want NOT_FOUND", name, err)
		}
	}
	scoped := func(scopes ...string) context.Context {
		return viewer.NewContext(context.Background(), viewer.Viewer{OrgID: e.a.ID, KeyID: uuid.New(), Scopes: scopes})
	}
	if got, err := lending.Offers(scoped(viewer.ScopeLendingRead), e.db.Client, lead); err != nil || len(got) != 1 {
		t.Errorf("with lending:read: %d offers, %v; want 1", len(got), err)
	}
	if _, err := lending.Offers(scoped(viewer.ScopeLeadsRead), e.db.Client, uuid.New()); !errors.Is(err, privacy.Deny) {
		t.Errorf("with leads:read only: %v; want the privacy denial before any read", err)
	}
}
