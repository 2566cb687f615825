package lending

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Offer is one approved application of a lead as the broker compares it
// with the others (PRODUCT 12.1): the lender's terms and what they cost
// the merchant.
type Offer struct {
	ApplicationID    uuid.UUID
	LenderID         uuid.UUID
	LenderName       string
	ApprovedAmount   money.Amount
	RateType         application.RateType
	InterestRate     money.Rate
	TermMonths       int
	PaymentFrequency *application.PaymentFrequency
	PaybackAmount    money.Amount
	// Payments and PaymentAmount are nil when the offer states no payment
	// frequency (lendingrules.CostOf).
	Payments      *int
	PaymentAmount *money.Amount
	CostOfCapital money.Amount
	ReadyToFund   bool
}

// Offers is the lead's approved applications side by side, cheapest
// first: by cost of capital, then lender name (ignoring case), then
// application id. A lead of another organization, or none, is NOT_FOUND;
// the caller needs lending:read.
//
// It is one query by lead_id (the applications' lead_id index) when the
// lead has an offer; only a lead with none is looked up, to tell an
// unknown lead from one without offers.
func Offers(ctx context.Context, c *ent.Client, leadID uuid.UUID) ([]*Offer, error) {
	org, err := rule.RequireOrg(ctx, viewer.ScopeLendingRead, "reading a lead's offers")
	if err != nil {
		return nil, err
	}
	approved, err := c.Application.Query().
		Where(application.LeadID(leadID), application.StatusEQ(application.StatusApproved)).
		All(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the lead's approved applications: %w", err)
	}
	if len(approved) == 0 {
		return []*Offer{}, leadExists(ctx, c, org, leadID)
	}
	offers := make([]*Offer, 0, len(approved))
	for _, a := range approved {
		o, err := offerOf(a)
		if err != nil {
			return nil, err
		}
		offers = append(offers, o)
	}
	slices.SortFunc(offers, cheaperFirst)
	return offers, nil
}

// leadExists is nil when the lead is of org, else NOT_FOUND. The caller
// holds lending:read, which reads a lead's lending records without
// leads:read, so the lead is looked up in the system context, filtered
// by the caller's organization.
func leadExists(ctx context.Context, c *ent.Client, org, leadID uuid.UUID) error {
	ok, err := c.Lead.Query().Where(lead.ID(leadID), lead.OrgID(org)).Exist(rule.SystemContext(ctx))
	switch {
	case err != nil:
		return fmt.Errorf("finding the lead %s: %w", leadID, err)
	case !ok:
		return apperr.New(apperr.NotFound, "lead not found")
	}
	return nil
}

// offerOf is an approved application's offer and its cost. The
// application hooks require the amount, rate, rate type and term to
// approve, so a missing one is a broken row, not a caller's mistake.
func offerOf(a *ent.Application) (*Offer, error) {
	if a.ApprovedAmount == nil || a.InterestRate == nil || a.RateType == nil || a.TermMonths == nil {
		return nil, fmt.Errorf("the approved application %s has no complete offer", a.ID)
	}
	terms := lendingrules.OfferTerms{Amount: *a.ApprovedAmount, RateType: a.RateType.String(),
		Rate: *a.InterestRate, TermMonths: *a.TermMonths}
	if a.PaymentFrequency != nil {
		terms.PaymentFrequency = a.PaymentFrequency.String()
	}
	cost, err := lendingrules.CostOf(terms)
	if err != nil {
		return nil, fmt.Errorf("the offer of application %s: %w", a.ID, err)
	}
	return &Offer{ApplicationID: a.ID, LenderID: a.LenderID, LenderName: a.LenderName,
		ApprovedAmount: terms.Amount, RateType: *a.RateType, InterestRate: terms.Rate, TermMonths: terms.TermMonths,
		PaymentFrequency: a.PaymentFrequency, PaybackAmount: cost.Payback, Payments: cost.Payments,
		PaymentAmount: cost.PaymentAmount, CostOfCapital: cost.CostOfCapital,
		ReadyToFund: lendingrules.ReadyToFund(a.Status.String(), a.StipulationsOutstanding)}, nil
}

// cheaperFirst orders offers by cost of capital, then lender name
// ignoring case (then as written), then application id, so the order is
// the same on every read.
func cheaperFirst(a, b *Offer) int {
	return cmp.Or(cmp.Compare(a.CostOfCapital, b.CostOfCapital),
		cmp.Compare(strings.ToLower(a.LenderName), strings.ToLower(b.LenderName)),
		cmp.Compare(a.LenderName, b.LenderName),
		cmp.Compare(a.ApplicationID.String(), b.ApplicationID.String()))
}

// MaxReadyLeads is how many leads one LeadsReadyToFund call may name: a
// board page of cards is 25.
const MaxReadyLeads = 100

// LeadsReadyToFund is which of the leads (at most MaxReadyLeads) have an
// approved application ready to fund (lendingrules.ReadyToFund, asked of
// the database), in the order named: the board's
// badge for a page of cards, read in one query by lead_id rather than one
// a card. A lead the caller's organization does not have is left out, as
// is one named twice after the first; the caller needs lending:read.
func LeadsReadyToFund(ctx context.Context, c *ent.Client, leadIDs []uuid.UUID) ([]uuid.UUID, error) {
	if _, err := rule.RequireOrg(ctx, viewer.ScopeLendingRead, "reading which leads are ready to fund"); err != nil {
		return nil, err
	}
	if len(leadIDs) > MaxReadyLeads {
		return nil, apperr.Invalid("leadIds", "must name at most %d leads, not %d", MaxReadyLeads, len(leadIDs))
	}
	out := []uuid.UUID{}
	if len(leadIDs) == 0 {
		return out, nil
	}
	ready, err := c.Application.Query().
		Where(application.LeadIDIn(leadIDs...), application.StatusEQ(application.StatusApproved),
			application.StipulationsOutstanding(0)).
		Select(application.FieldLeadID).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading which leads are ready to fund: %w", err)
	}
	has := make(map[uuid.UUID]bool, len(ready))
	for _, a := range ready {
		has[a.LeadID] = true
	}
	for _, id := range leadIDs {
		if has[id] {
			out = append(out, id)
			delete(has, id)
		}
	}
	return out, nil
}
