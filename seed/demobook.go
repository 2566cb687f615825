package seed

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/lending"
)

// demoLenders are the demo organization's panel (of lenderTemplates).
var demoLenders = []string{"Northstar Capital Funding", "Lakeshore Term Lending", "Redline Equipment Finance"}

// demoSubmission is an application of the demo book and where it ends: the
// lead (by business name) and lender, and the lender's answer, if any.
type demoSubmission struct {
	lead, lender, product, ref string
	underwriting               bool
	approve                    *demoOffer
	decline                    string // the reason; its category in declineCategory
	declineCategory            application.DeclineCategory
}

type demoOffer struct {
	amount, rate string
	rateType     application.RateType
	term         int
	frequency    application.PaymentFrequency
	conditions   []string
}

// demoSubmissions leave applications in every status: Beacon's two still
// with their lenders (one over the lender's maximum, so it carries a
// warning), Maple's approved and declined, Willow's declined, and
// Granite's two approvals, one funded below and the other withdrawn by it.
var demoSubmissions = []demoSubmission{
	{lead: "Beacon Logistics Partners", lender: "Lakeshore Term Lending", product: "term_loan", ref: "LTL-1001"},
	{lead: "Beacon Logistics Partners", lender: "Northstar Capital Funding", product: "mca", ref: "NSC-2207", underwriting: true},
	{lead: "Maple Salon & Sons", lender: "Northstar Capital Funding", product: "mca", ref: "NSC-2188",
		approve: &demoOffer{"25000", "1.35", application.RateTypeFactor, 9, application.PaymentFrequencyDaily, []string{"Voided business check"}}},
	{lead: "Maple Salon & Sons", lender: "Lakeshore Term Lending", product: "term_loan",
		decline: "Less time in business than we require", declineCategory: application.DeclineCategoryTimeInBusiness},
	{lead: "Willow Pharmacy Inc", lender: "Northstar Capital Funding", product: "mca",
		decline: "Owner's credit score is below our minimum of 550", declineCategory: application.DeclineCategoryCredit},
	{lead: "Granite Construction Group", lender: "Lakeshore Term Lending", product: "term_loan", ref: "LTL-0994",
		approve: &demoOffer{"600000", "0.145", application.RateTypeApr, 36, application.PaymentFrequencyMonthly, nil}},
	{lead: "Granite Construction Group", lender: "Redline Equipment Finance", product: "equipment", ref: "RLE-5310",
		approve: &demoOffer{"700000", "0.119", application.RateTypeApr, 60, application.PaymentFrequencyMonthly,
			[]string{"Equipment invoice", "Proof of insurance"}}},
}

// The demo's deal: Granite's Redline offer, funded, its commission
// (700,000.00 × 0.05 = 35,000.00) partly paid.
const (
	demoFundedLead      = "Granite Construction Group"
	demoFundedLender    = "Redline Equipment Finance"
	demoCommissionPaid  = "15000"
	demoPaymentReceived = "RLE-REM-0001"
	demoWaiver          = "The insurance certificate follows at closing"
)

// createDemoBook builds the demo organization's lending book (its lenders,
// applications, deal and payment) in the demo's transaction, through the
// lending flows, as the GraphQL operations do: every rule, move and event
// applies. It counts what it makes in demo; ctx is the system's, and acts
// for org.
func createDemoBook(ctx context.Context, tx *ent.Client, org uuid.UUID, leads map[string]*ent.Lead, demo *Demo) error {
	ctx = viewer.NewContext(ctx, viewer.Viewer{OrgID: org})
	lenders := map[string]*ent.Lender{}
	for _, name := range demoLenders {
		l, err := templateLender(ctx, tx, org, name)
		if err != nil {
			return err
		}
		lenders[name] = l
		demo.Lenders++
	}
	var funding uuid.UUID
	for _, s := range demoSubmissions {
		lead, ld := leads[s.lead], lenders[s.lender]
		if lead == nil || ld == nil {
			return fmt.Errorf("demo application of %q to %q: no such lead or lender", s.lead, s.lender)
		}
		in := lending.Submission{LeadID: lead.ID, LenderID: ld.ID, Product: ptr(application.Product(s.product))}
		if s.ref != "" {
			in.ExternalRef = &s.ref
		}
		a, err := lending.Submit(ctx, tx, in)
		if err != nil {
			return fmt.Errorf("submitting %s to %s: %w", s.lead, s.lender, err)
		}
		demo.Applications++
		switch {
		case s.underwriting:
			_, err = lending.MarkUnderwriting(ctx, tx, a.ID)
		case s.approve != nil:
			o := s.approve
			amount, aerr := money.ParseAmount(o.amount)
			rate, rerr := money.ParseRate(o.rate)
			if aerr != nil || rerr != nil {
				return fmt.Errorf("the demo offer %+v: %v %v", o, aerr, rerr)
			}
			_, err = lending.Decide(ctx, tx, a.ID, lending.Decision{Approved: true, ApprovedAmount: &amount, InterestRate: &rate,
				RateType: &o.rateType, TermMonths: &o.term, PaymentFrequency: &o.frequency, Conditions: o.conditions})
		case s.decline != "":
			_, err = lending.Decide(ctx, tx, a.ID, lending.Decision{Reason: &s.decline, DeclineCategory: &s.declineCategory})
		}
		if err != nil {
			return fmt.Errorf("deciding %s's application to %s: %w", s.lead, s.lender, err)
		}
		if s.lead == demoFundedLead && s.lender == demoFundedLender {
			funding = a.ID
		}
	}
	// Of the deal's two stipulations an admin waives one; the lender funds
	// before the other arrives, which the funding waives (reason funded).
	// Maple's voided check stays outstanding.
	stips, err := lending.ApplicationStipulations(ctx, tx, funding)
	if err != nil || len(stips) == 0 {
		return fmt.Errorf("reading the demo deal's stipulations: %d, %w", len(stips), err)
	}
	if _, err := lending.WaiveStipulation(ctx, tx, stips[len(stips)-1].ID, demoWaiver); err != nil {
		return fmt.Errorf("waiving the demo stipulation: %w", err)
	}
	deal, err := lending.Fund(ctx, tx, lending.Funding{ApplicationID: funding, WaiveOutstanding: true})
	if err != nil {
		return fmt.Errorf("funding the demo deal: %w", err)
	}
	demo.Deals++
	paid, err := money.ParseAmount(demoCommissionPaid)
	if err != nil {
		return err
	}
	reference := demoPaymentReceived
	if _, err := lending.RecordPayment(ctx, tx, lending.Payment{DealID: deal.ID, Amount: paid, Reference: &reference}); err != nil {
		return fmt.Errorf("recording the demo commission payment: %w", err)
	}
	return nil
}

// templateLender creates the lender of the seeded panel named name in org.
func templateLender(ctx context.Context, tx *ent.Client, org uuid.UUID, name string) (*ent.Lender, error) {
	t, ok := lenderTemplateNamed(name)
	if !ok {
		return nil, fmt.Errorf("no lender template %q", name)
	}
	return createLender(ctx, tx, org, t, nil)
}

func ptr[T any](v T) *T { return &v }
