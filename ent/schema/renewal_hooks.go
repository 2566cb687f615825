package schema

import (
	"context"
	"fmt"

	"entgo.io/ent"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/hook"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
)

// A deal is superseded for renewal (PRODUCT 12.2) while its lead has an
// application in play or once a later deal of the lead is funded. The
// renewal queue keeps the deals that are not, at a million leads, so the
// flag is kept with every change that moves it rather than probed per deal
// at each read: a deal's creation supersedes the lead's earlier deals for
// good, and an application created or moved sets the lead's latest deal
// as its applications now stand. A bulk load (the seed) writes the flag
// itself.

func (FundedDeal) Hooks() []ent.Hook {
	return []ent.Hook{hook.On(supersedeEarlierDeals, ent.OpCreate)}
}

// supersedeEarlierDeals marks the lead's other deals superseded once a
// deal of it is funded.
func supersedeEarlierDeals(next ent.Mutator) ent.Mutator {
	return hook.FundedDealFunc(func(ctx context.Context, m *gen.FundedDealMutation) (gen.Value, error) {
		v, err := next.Mutate(ctx, m)
		if err != nil || viewer.IsBulkLoad(ctx) {
			return v, err
		}
		d := v.(*gen.FundedDeal)
		err = m.Client().FundedDeal.Update().Where(fundeddeal.LeadID(d.LeadID), fundeddeal.IDNEQ(d.ID)).
			SetRenewalSuperseded(true).Exec(rule.SystemContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("superseding the lead's earlier deals: %w", err)
		}
		return v, nil
	})
}

// supersedeOnApplication sets the latest deal of each lead whose
// application is created or changes status as the lead's applications
// now stand.
func supersedeOnApplication(next ent.Mutator) ent.Mutator {
	return hook.ApplicationFunc(func(ctx context.Context, m *gen.ApplicationMutation) (gen.Value, error) {
		_, moving := m.Status()
		if viewer.IsBulkLoad(ctx) || !moving && !m.Op().Is(ent.OpCreate) {
			return next.Mutate(ctx, m)
		}
		sys := rule.SystemContext(ctx)
		leads, err := movingLeads(sys, m)
		if err != nil {
			return nil, err
		}
		v, err := next.Mutate(ctx, m)
		if err != nil {
			return v, err
		}
		if m.Op().Is(ent.OpCreate) {
			leads = []uuid.UUID{v.(*gen.Application).LeadID}
		}
		for _, l := range leads {
			if err := supersedeLatest(sys, m.Client(), l); err != nil {
				return nil, err
			}
		}
		return v, nil
	})
}

// movingLeads are the leads of the applications an update is about to
// move, read before it (a bulk update's rows are found by its predicates).
func movingLeads(ctx context.Context, m *gen.ApplicationMutation) ([]uuid.UUID, error) {
	if m.Op().Is(ent.OpCreate) {
		return nil, nil
	}
	ids, err := m.IDs(ctx)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	var leads []uuid.UUID
	err = m.Client().Application.Query().Where(application.IDIn(ids...)).Unique(true).
		Select(application.FieldLeadID).Scan(ctx, &leads)
	if err != nil {
		return nil, fmt.Errorf("reading the moving applications' leads: %w", err)
	}
	return leads, nil
}

// supersedeLatest sets the lead's latest deal superseded exactly when the
// lead has an application in play; the earlier ones stay superseded.
func supersedeLatest(ctx context.Context, c *gen.Client, lead uuid.UUID) error {
	latest, err := c.FundedDeal.Query().Where(fundeddeal.LeadID(lead)).
		Order(fundeddeal.ByFundedAt(sql.OrderDesc()), fundeddeal.ByID(sql.OrderDesc())).First(ctx)
	if gen.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the lead's latest deal: %w", err)
	}
	open, err := c.Application.Query().Where(application.LeadID(lead), application.StatusIn(openStatuses()...)).Exist(ctx)
	if err != nil {
		return fmt.Errorf("reading the lead's applications in play: %w", err)
	}
	if latest.RenewalSuperseded == open {
		return nil
	}
	if err := c.FundedDeal.UpdateOneID(latest.ID).SetRenewalSuperseded(open).Exec(ctx); err != nil {
		return fmt.Errorf("marking the lead's latest deal: %w", err)
	}
	return nil
}

func openStatuses() []application.Status {
	out := make([]application.Status, len(lendingrules.Open))
	for i, s := range lendingrules.Open {
		out[i] = application.Status(s)
	}
	return out
}
