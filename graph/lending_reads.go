package graph

import (
	"context"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/commission"
	"github.com/lendingpipe/svc/ent/commissionpayment"
)

// The lending records one at a time, behind REST GET /v1/lenders/{id},
// /v1/applications/{id}, /v1/funded-deals/{id} and /v1/commissions/{id}.
// Who may read is the privacy policy's to say (lending:read); an id of
// another organization is not found, as an unknown one.

// LenderByID reads one lender.
func (r *Resolver) LenderByID(ctx context.Context, id uuid.UUID) (*ent.Lender, error) {
	return r.client(ctx).Lender.Get(ctx, id)
}

// ApplicationByID reads one application.
func (r *Resolver) ApplicationByID(ctx context.Context, id uuid.UUID) (*ent.Application, error) {
	return r.client(ctx).Application.Get(ctx, id)
}

// FundedDealByID reads one funded deal.
func (r *Resolver) FundedDealByID(ctx context.Context, id uuid.UUID) (*ent.FundedDeal, error) {
	return r.client(ctx).FundedDeal.Get(ctx, id)
}

// CommissionByID reads one commission with its payments, oldest first, as
// commissionsPage loads them.
func (r *Resolver) CommissionByID(ctx context.Context, id uuid.UUID) (*ent.Commission, error) {
	return r.client(ctx).Commission.Query().Where(commission.ID(id)).
		WithPayments(func(p *ent.CommissionPaymentQuery) {
			p.Order(commissionpayment.ByPaidAt(), commissionpayment.ByID())
		}).Only(ctx)
}
