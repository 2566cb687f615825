package lending

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/rollup"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/lender"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
)

// Submission is a deal sent to a lender.
type Submission struct {
	LeadID, LenderID uuid.UUID
	// RequestedAmount defaults to the lead's.
	RequestedAmount *money.Amount
	Product         *application.Product
	// ExternalRef is the lender's own reference, unique per lender.
	ExternalRef, Notes *string
	// RenewalOfDealID opens a renewal of a deal funded for the same lead
	// (PRODUCT 12.3): the lead stays where it is.
	RenewalOfDealID *uuid.UUID
}

// Submit sends the lead's deal to a lender: the lead and the lender must
// be the organization's, the lender active, and no other application of
// the lead with the lender open. The amount defaults to the lead's; the
// lender's box adds warnings. It counts the submission for its lender,
// emits application.submitted, counts the lead as applied on its first
// submission, and moves the lead to the application slot.
func Submit(ctx context.Context, c *ent.Client, in Submission) (*ent.Application, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Application, error) {
		return submit(ctx, c, in)
	})
}

func submit(ctx context.Context, c *ent.Client, in Submission) (*ent.Application, error) {
	org, err := writer(ctx)
	if err != nil {
		return nil, err
	}
	if err := refuseNUL(named{"externalRef", in.ExternalRef}, named{"notes", in.Notes}); err != nil {
		return nil, err
	}
	sys := rule.SystemContext(ctx)
	l, err := lockLead(ctx, c, store.SubmissionRead, lead.ID(in.LeadID), lead.OrgID(org))
	if err != nil {
		return nil, apperr.RefError(err, ent.IsNotFound, "leadId", "lead")
	}
	ld, err := c.Lender.Query().Where(lender.ID(in.LenderID), lender.OrgID(org)).Only(sys)
	if err != nil {
		return nil, apperr.RefError(err, ent.IsNotFound, "lenderId", "lender")
	}
	if !ld.IsActive {
		return nil, apperr.Invalid("lenderId", "the lender %s is inactive and takes no new applications", apperr.Quote(ld.Name))
	}
	first, err := checkOpenAndRef(sys, c, org, in)
	if err != nil {
		return nil, err
	}
	requested, err := requestedAmount(in, l)
	if err != nil {
		return nil, err
	}
	if err := checkRenewedDeal(sys, c, org, in); err != nil {
		return nil, err
	}
	a, err := c.Application.Create().
		SetLeadID(in.LeadID).SetLenderID(in.LenderID).SetNillableProduct(in.Product).
		SetNillableExternalRef(in.ExternalRef).SetNillableNotes(in.Notes).
		SetNillableRenewalOfDealID(in.RenewalOfDealID).SetIsRenewal(in.RenewalOfDealID != nil).
		SetRequestedAmount(requested).SetStatus(application.StatusSubmitted).SetLenderName(ld.Name).
		SetSubmittedAt(apitime.Now(ctx)).SetSubmittedBy(*events.Actor(ctx)).
		SetWarnings(boxOf(ld).Warnings(fileOf(l, &requested, in.Product))).
		SetAmountBand(lendingrules.AmountBand(requested)).SetNillableIndustryKey(lendingrules.IndustryKey(l.Industry)).
		Save(ctx)
	if err != nil {
		return nil, err
	}
	if err := rollup.ApplicationSubmitted(ctx, c, a); err != nil {
		return nil, err
	}
	if err := recordSubmitted(ctx, c, a); err != nil {
		return nil, err
	}
	data := map[string]any{"applicationId": a.ID, "orgId": a.OrgID, "lenderId": a.LenderID,
		"lenderName": a.LenderName, "requestedAmount": a.RequestedAmount.String(), "submittedBy": a.SubmittedBy}
	if err := events.Emit(ctx, c, a.OrgID, event.ApplicationSubmitted, data); err != nil {
		return nil, err
	}
	if first {
		if err := rollup.Submission(ctx, c, l); err != nil {
			return nil, err
		}
	}
	if a.IsRenewal {
		return a, nil // a renewal leaves the lead where its first deal put it
	}
	return a, moveLead(ctx, c, l, lendingrules.SlotApplication, nil)
}

// checkRenewedDeal refuses a renewal of a deal that is not one of the
// lead's: another lead's, another organization's, or none.
func checkRenewedDeal(ctx context.Context, c *ent.Client, org uuid.UUID, in Submission) error {
	if in.RenewalOfDealID == nil {
		return nil
	}
	ok, err := c.FundedDeal.Query().Where(fundeddeal.ID(*in.RenewalOfDealID),
		fundeddeal.LeadID(in.LeadID), fundeddeal.OrgID(org)).Exist(ctx)
	if err != nil {
		return fmt.Errorf("reading the renewed deal: %w", err)
	}
	if !ok {
		return apperr.Invalid("renewalOfDealId", "must be a funded deal of the lead %s", in.LeadID)
	}
	return nil
}

// checkOpenAndRef refuses a second open application of the lead with the
// lender and a reference the lender already uses (the unique indexes hold
// when two submissions race; these say which rule was hit). It reports
// whether the submission is the lead's first (the lead rollup counts the
// lead as applied then), from the same read of the lead's applications.
func checkOpenAndRef(ctx context.Context, c *ent.Client, org uuid.UUID, in Submission) (first bool, err error) {
	apps, err := c.Application.Query().Where(application.LeadID(in.LeadID)).
		Select(application.FieldLenderID, application.FieldStatus).All(ctx)
	if err != nil {
		return false, fmt.Errorf("checking open applications: %w", err)
	}
	for _, a := range apps {
		if a.LenderID == in.LenderID && slices.Contains(lendingrules.Open, string(a.Status)) {
			return false, &apperr.Error{Code: apperr.Conflict, Field: "lenderId",
				Message: "the lead already has an open application with this lender",
				Detail:  map[string]any{"applicationId": a.ID.String(), "status": string(a.Status)}}
		}
	}
	if in.ExternalRef == nil {
		return len(apps) == 0, nil
	}
	ref := *in.ExternalRef
	taken, err := c.Application.Query().
		Where(application.LenderID(in.LenderID), application.ExternalRef(ref), application.OrgID(org)).Exist(ctx)
	if err != nil {
		return false, fmt.Errorf("checking the external reference: %w", err)
	}
	if taken {
		return false, &apperr.Error{Code: apperr.Conflict, Field: "externalRef",
			Message: fmt.Sprintf("the lender already has an application with externalRef %s", apperr.Quote(ref))}
	}
	return len(apps) == 0, nil
}

// requestedAmount is the amount asked for, the lead's when the submission
// gives none.
func requestedAmount(in Submission, l *ent.Lead) (money.Amount, error) {
	if in.RequestedAmount != nil {
		if *in.RequestedAmount <= 0 {
			return 0, apperr.Invalid("requestedAmount", "must be more than 0")
		}
		return *in.RequestedAmount, nil
	}
	if l.RequestedAmount == nil {
		return 0, apperr.Invalid("requestedAmount", "is required: the lead has no requestedAmount")
	}
	amt, err := money.RoundDecimal(*l.RequestedAmount)
	if err != nil {
		return 0, apperr.Invalid("requestedAmount", "the lead's requestedAmount %s", err)
	}
	if amt <= 0 {
		return 0, apperr.Invalid("requestedAmount", "must be more than 0")
	}
	return amt, nil
}

func boxOf(ld *ent.Lender) lendingrules.Box {
	return lendingrules.Box{MinAmount: ld.MinAmount, MaxAmount: ld.MaxAmount, MinMonthlyRevenue: ld.MinMonthlyRevenue,
		MinMonthsInBusiness: ld.MinMonthsInBusiness, ExcludedIndustries: ld.ExcludedIndustries, Products: ld.Products}
}

// fileOf is what the lead says of the deal. A revenue or a months count the
// lead records in a form the box cannot compare is unknown, not a miss.
func fileOf(l *ent.Lead, requested *money.Amount, product *application.Product) lendingrules.File {
	f := lendingrules.File{Amount: requested, Industry: l.Industry}
	if l.MonthlyRevenue != nil {
		if rev, err := money.RoundDecimal(*l.MonthlyRevenue); err == nil {
			f.MonthlyRevenue = &rev
		}
	}
	if v, ok := l.CustomFields["monthsInBusiness"]; ok {
		if months, ok := wholeNumber(v); ok {
			f.MonthsInBusiness = &months
		}
	}
	if product != nil {
		s := string(*product)
		f.Product = &s
	}
	return f
}

// wholeNumber reads a custom field's value as a whole number: a string of
// digits, or a JSON number whose JSON text is digits alone. The number is
// read back through that text rather than converted, so no value passes
// through binary floating point here; 6.5, or a number too large to be
// written without an exponent, is not a whole number and stays unknown.
func wholeNumber(v any) (int, bool) {
	text, ok := v.(string)
	if !ok {
		raw, err := json.Marshal(v)
		if err != nil {
			return 0, false
		}
		text = string(raw)
	}
	n, err := strconv.Atoi(text)
	return n, err == nil
}
