package graph

import (
	"context"
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/commission"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/lender"
	"github.com/lendingpipe/svc/internal/counted"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/lending"
)

// The connections' orders when none is asked for: newest first, as the
// REST lists, on the indexes that lead with the organization.
var (
	newestLenders      = &ent.LenderOrder{Direction: entgql.OrderDirectionDesc, Field: ent.LenderOrderFieldCreatedAt}
	newestApplications = &ent.ApplicationOrder{Direction: entgql.OrderDirectionDesc, Field: ent.ApplicationOrderFieldCreatedAt}
	latestFunding      = &ent.FundedDealOrder{Direction: entgql.OrderDirectionDesc, Field: ent.FundedDealOrderFieldFundedAt}
	newestCommissions  = &ent.CommissionOrder{Direction: entgql.OrderDirectionDesc, Field: ent.CommissionOrderFieldCreatedAt}
	// The audit log, newest first.
	newestAudit = &ent.AuditEventOrder{Direction: entgql.OrderDirectionDesc, Field: ent.AuditEventOrderFieldOccurredAt}
)

// orderOr is the order asked for, or the default.
func orderOr[T any](asked, fallback *T) *T {
	if asked != nil {
		return asked
	}
	return fallback
}

// updateLender applies input. entgql v0.7.0's generated Mutate appends
// input.Products and input.ExcludedIndustries instead of the append lists
// (as for a lead's tags, UpdateLead), so the appends are applied here.
func (r *Resolver) updateLender(ctx context.Context, id uuid.UUID, input ent.UpdateLenderInput) (*ent.Lender, error) {
	products, industries := input.AppendProducts, input.AppendExcludedIndustries
	input.AppendProducts, input.AppendExcludedIndustries = nil, nil
	u := r.client(ctx).Lender.UpdateOneID(id).SetInput(input)
	if len(products) > 0 {
		u.AppendProducts(products)
	}
	if len(industries) > 0 {
		u.AppendExcludedIndustries(industries)
	}
	return u.Save(ctx)
}

// The lending operations are the lending package's flows, run in the
// mutation's transaction (r.client); these translate the inputs.

// DecisionOf is the lending flow's decision the input gives.
func DecisionOf(in DecideApplicationInput) lending.Decision {
	return lending.Decision{Approved: in.Decision == DecisionApproved,
		ApprovedAmount: in.ApprovedAmount, InterestRate: in.InterestRate, RateType: in.RateType,
		TermMonths: in.TermMonths, PaymentFrequency: in.PaymentFrequency, Conditions: in.Conditions,
		Reason: in.Reason, DeclineCategory: in.DeclineCategory}
}

// submissionOf is the lending flow's submission the input gives.
func submissionOf(in SubmitApplicationInput) lending.Submission {
	return lending.Submission{LeadID: in.LeadID, LenderID: in.LenderID,
		RequestedAmount: in.RequestedAmount, Product: in.Product, ExternalRef: in.ExternalRef, Notes: in.Notes,
		RenewalOfDealID: in.RenewalOfDealID}
}

// fundingOf is the lending flow's funding the input gives.
func fundingOf(in FundDealInput) lending.Funding {
	return lending.Funding{ApplicationID: in.ApplicationID,
		FundedAmount: in.FundedAmount, FundedAt: in.FundedAt, Commission: in.Commission, AdvisorID: in.AdvisorID,
		WaiveOutstanding: in.WaiveOutstanding != nil && *in.WaiveOutstanding}
}

// paymentOf is the lending flow's payment the input gives.
func paymentOf(in CommissionPaymentInput) lending.Payment {
	return lending.Payment{DealID: in.DealID, Amount: in.Amount, PaidAt: in.PaidAt, Reference: in.Reference}
}

// The offset pages behind the REST lists. Who may read is the privacy
// policy's to say (lending:read); these filter and page.

func (r *Resolver) lendersPage(ctx context.Context, isActive *bool, pageArg, limitArg *int) (*LenderPage, error) {
	o, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	q := r.client(ctx).Lender.Query()
	if isActive != nil {
		q = q.Where(lender.IsActive(*isActive))
	}
	return answer[LenderPage](readPage(ctx, q.Order(lender.ByCreatedAt(sql.OrderDesc()), lender.ByID(sql.OrderDesc())), o))
}

func (r *Resolver) applicationsPage(ctx context.Context, leadID, lenderID *uuid.UUID, status *application.Status, pageArg, limitArg *int) (*ApplicationPage, error) {
	o, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	q := ApplicationFilter{LeadID: leadID, LenderID: lenderID, Status: status}.query(r.client(ctx))
	return answer[ApplicationPage](readPage(ctx, q.Order(application.ByCreatedAt(sql.OrderDesc()), application.ByID(sql.OrderDesc())), o))
}

func (r *Resolver) fundedDealsPage(ctx context.Context, leadID, lenderID, advisorID *uuid.UUID, from, to *time.Time, pageArg, limitArg *int) (*FundedDealPage, error) {
	o, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	q, err := FundedDealFilter{LeadID: leadID, LenderID: lenderID, AdvisorID: advisorID, From: from, To: to}.query(r.client(ctx))
	if err != nil {
		return nil, err
	}
	counting := ctx
	if lenderID != nil && leadID == nil && advisorID == nil {
		counting = r.countedLenderDeals(ctx, *lenderID, from, to)
	}
	total, err := q.Clone().Count(counting)
	if err != nil {
		return nil, err
	}
	nodes, err := q.Order(fundeddeal.ByFundedAt(sql.OrderDesc()), fundeddeal.ByID(sql.OrderDesc())).
		Limit(o.limit).Offset(o.skip).All(ctx)
	if err != nil {
		return nil, err
	}
	return answer[FundedDealPage](pageOf(o, nodes, total), nil)
}

// countedLenderDeals marks ctx so that a Count of the lender's deals in the
// range reads the lender's day counts (store.LenderDealTotal) instead of
// counting every deal; the privacy rules still vet the Count first.
func (r *Resolver) countedLenderDeals(ctx context.Context, lenderID uuid.UUID, from, to *time.Time) context.Context {
	v, ok := viewer.FromContext(ctx)
	if !ok || v.OrgID == uuid.Nil {
		return ctx
	}
	// The total counts the partial days' deals with ctx, which is not marked.
	return counted.With(ctx, func(context.Context) (int, error) { return r.db.LenderDealTotal(ctx, v.OrgID, lenderID, from, to) })
}

func (r *Resolver) commissionsPage(ctx context.Context, dealID, lenderID, advisorID *uuid.UUID, status *commission.Status, pageArg, limitArg *int) (*CommissionPage, error) {
	o, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	q := CommissionFilter{DealID: dealID, LenderID: lenderID, AdvisorID: advisorID, Status: status}.query(r.client(ctx)).
		Order(commission.ByCreatedAt(sql.OrderDesc()), commission.ByID(sql.OrderDesc()))
	return answer[CommissionPage](readPage(ctx, q, o))
}
