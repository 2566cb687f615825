package graph

import (
	"context"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/commission"
	"github.com/lendingpipe/svc/ent/commissionpayment"
	"github.com/lendingpipe/svc/ent/contact"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/lender"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/ent/team"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/apperr"
)

// nodeType finds which table holds id. UUIDs carry no type, so it asks each
// node table in turn; privacy rules apply, so other organizations' rows and
// types the key may not read are never found.
func (r *Resolver) nodeType(ctx context.Context, id uuid.UUID) (string, error) {
	c := r.client(ctx)
	probes := []struct {
		table string
		exist func(context.Context) (bool, error)
	}{
		{lead.Table, c.Lead.Query().Where(lead.ID(id)).Exist},
		{contact.Table, c.Contact.Query().Where(contact.ID(id)).Exist},
		{user.Table, c.User.Query().Where(user.ID(id)).Exist},
		{team.Table, c.Team.Query().Where(team.ID(id)).Exist},
		{pipelinestage.Table, c.PipelineStage.Query().Where(pipelinestage.ID(id)).Exist},
		// The lending half's nodes (PRODUCT 1.7).
		{application.Table, c.Application.Query().Where(application.ID(id)).Exist},
		{lender.Table, c.Lender.Query().Where(lender.ID(id)).Exist},
		{fundeddeal.Table, c.FundedDeal.Query().Where(fundeddeal.ID(id)).Exist},
		{commission.Table, c.Commission.Query().Where(commission.ID(id)).Exist},
		{commissionpayment.Table, c.CommissionPayment.Query().Where(commissionpayment.ID(id)).Exist},
	}
	for _, p := range probes {
		if ok, err := p.exist(ctx); err == nil && ok {
			return p.table, nil
		}
	}
	return "", apperr.New(apperr.NotFound, "no node with id %s", id)
}
