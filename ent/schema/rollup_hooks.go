package schema

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"time"

	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/commissionpayment"
	"github.com/lendingpipe/svc/ent/dealday"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/funnel"
	"github.com/lendingpipe/svc/ent/hook"
	"github.com/lendingpipe/svc/ent/leadcount"
	"github.com/lendingpipe/svc/ent/leadday"
	"github.com/lendingpipe/svc/ent/money"
	"github.com/lendingpipe/svc/ent/organization"
	"github.com/lendingpipe/svc/ent/paymentday"
	"github.com/lendingpipe/svc/ent/period"
	"github.com/lendingpipe/svc/ent/rule"
	"github.com/lendingpipe/svc/ent/viewer"
)

// rollupLocation is the zone org's rollups are cut in, read in the
// writing transaction; nil when they have not been built (the rebuild
// will count the change). On PostgreSQL the read shares the
// organization's row: a rebuild, which first updates the row, waits for
// the writers in flight, and writers arriving during it wait for it, so no
// change is counted in a zone the rows are no longer cut in.
func rollupLocation(ctx context.Context, c *gen.Client, org uuid.UUID) (*time.Location, error) {
	var rows []struct {
		Zone *string `json:"rollup_zone"`
	}
	err := c.Organization.Query().Where(organization.ID(org)).Select(organization.FieldRollupZone).
		Modify(func(s *sql.Selector) {
			if s.Dialect() == dialect.Postgres {
				s.For(sql.LockShare)
			}
		}).Scan(rule.SystemContext(ctx), &rows)
	if err != nil {
		return nil, fmt.Errorf("reading the rollups' zone: %w", err)
	}
	if len(rows) != 1 || rows[0].Zone == nil {
		return nil, nil
	}
	return period.Location(*rows[0].Zone)
}

// txSlot is the slot, of n, a transaction adds to a hot count in: one per
// transaction, so two transactions never take a count's rows in opposite
// orders; outside one, any.
func txSlot(ctx context.Context, n int) int {
	if tx := gen.TxFromContext(ctx); tx != nil {
		return int(maphash.Comparable(slotSeed, tx) % uint64(n))
	}
	return rand.IntN(n)
}

// rollupSlot is the slot a transaction adds to in the rollups.
func rollupSlot(ctx context.Context) int { return txSlot(ctx, RollupSlots) }

// leadStep is what a change adds to the day a lead was created.
type leadStep struct {
	leads, applied, approved, funded int
	amount                           money.Amount
}

// addLeadDay adds step to l's creation day and source.
func addLeadDay(ctx context.Context, c *gen.Client, loc *time.Location, l *gen.Lead, s leadStep) error {
	if loc == nil {
		return nil // not built: the rebuild counts l
	}
	err := c.LeadDay.Create().SetOrgID(l.OrgID).SetDay(period.LocalDay(l.CreatedAt, loc)).
		SetSource(leadday.Source(l.Source)).SetSlot(rollupSlot(ctx)).
		SetLeads(s.leads).SetApplied(s.applied).SetApproved(s.approved).SetFunded(s.funded).SetFundedAmount(s.amount).
		OnConflictColumns(leadday.FieldOrgID, leadday.FieldDay, leadday.FieldSource, leadday.FieldSlot).
		Update(func(u *gen.LeadDayUpsert) {
			u.AddLeads(s.leads).AddApplied(s.applied).AddApproved(s.approved).AddFunded(s.funded).AddFundedAmount(s.amount)
		}).Exec(rule.SystemContext(ctx))
	if err != nil {
		return fmt.Errorf("adding to the lead rollup: %w", err)
	}
	return nil
}

// addLeadStep reads the zone and adds step to l's day.
func addLeadStep(ctx context.Context, c *gen.Client, l *gen.Lead, s leadStep) error {
	loc, err := rollupLocation(ctx, c, l.OrgID)
	if err != nil {
		return err
	}
	return addLeadDay(ctx, c, loc, l, s)
}

// addStage adds n leads to a stage's count (LeadCount), in the slot the
// transaction adds to: a transaction adds all its leads to one slot, as
// two bulk creations touching slots in different orders would deadlock.
func addStage(ctx context.Context, c *gen.Client, org, stage uuid.UUID, n int) error {
	err := c.LeadCount.Create().SetOrgID(org).SetStageID(stage).SetSlot(stageSlot(ctx)).SetN(n).
		OnConflictColumns(leadcount.FieldOrgID, leadcount.FieldStageID, leadcount.FieldSlot).AddN(n).
		Exec(rule.SystemContext(ctx))
	if err != nil {
		return fmt.Errorf("counting the stage's leads: %w", err)
	}
	return nil
}

// moveStage moves a lead from one stage's count to the other's, both rows
// in one statement (a stage move is the commonest lead write). The rows go
// in the order of their stages' ids, so two moves between the same stages
// in opposite directions take them in the same order.
func moveStage(ctx context.Context, c *gen.Client, org, from, to uuid.UUID) error {
	slot := stageSlot(ctx)
	rows := []*gen.LeadCountCreate{
		c.LeadCount.Create().SetOrgID(org).SetStageID(from).SetSlot(slot).SetN(-1),
		c.LeadCount.Create().SetOrgID(org).SetStageID(to).SetSlot(slot).SetN(1),
	}
	if bytes.Compare(to[:], from[:]) < 0 {
		rows[0], rows[1] = rows[1], rows[0]
	}
	err := c.LeadCount.CreateBulk(rows...).
		OnConflict(sql.ConflictColumns(leadcount.FieldOrgID, leadcount.FieldStageID, leadcount.FieldSlot),
			sql.ResolveWith(func(u *sql.UpdateSet) {
				// Each row adds its own n: excluded.n, the value it would
				// have inserted.
				excluded := sql.Dialect(u.Dialect()).Table("excluded")
				u.Add(leadcount.FieldN, sql.Expr(excluded.C(leadcount.FieldN)))
			})).
		Exec(rule.SystemContext(ctx))
	if err != nil {
		return fmt.Errorf("moving the lead between its stages' counts: %w", err)
	}
	return nil
}

// stageSlot is the LeadCount slot the transaction adds to.
func stageSlot(ctx context.Context) int { return txSlot(ctx, LeadCountSlots) }

// rollupLead counts a created lead on its day (countLead counts it in its
// stage), and moves a lead whose stage changes from one stage's count to
// the other's. The loader of
// svc seed writes leads in bulk and rebuilds the rollups after.
func rollupLead(next ent.Mutator) ent.Mutator {
	return hook.LeadFunc(func(ctx context.Context, m *gen.LeadMutation) (gen.Value, error) {
		if viewer.IsBulkLoad(ctx) {
			return next.Mutate(ctx, m)
		}
		var from uuid.UUID
		to, moving := m.StageID()
		if moving && m.Op().Is(ent.OpUpdate) {
			// A bulk update does not say which leads left which stage.
			return nil, errors.New("a lead's stage is changed one lead at a time, so its stage counts follow")
		}
		if moving && m.Op().Is(ent.OpUpdateOne) {
			old, err := m.OldStageID(ctx)
			if err != nil {
				return nil, err
			}
			from, moving = old, old != to
		}
		v, err := next.Mutate(ctx, m)
		if err != nil {
			return nil, err
		}
		l, ok := v.(*gen.Lead)
		if !ok {
			return v, nil
		}
		c := m.Client()
		if m.Op().Is(ent.OpCreate) {
			return l, addLeadStep(ctx, c, l, leadStep{leads: 1})
		}
		if !moving {
			return l, nil
		}
		return l, moveStage(ctx, c, l.OrgID, from, l.StageID)
	})
}

// rollupSubmission counts l as applied when a is its first application.
func rollupSubmission(ctx context.Context, c *gen.Client, l *gen.Lead, a *gen.Application) error {
	earlier, err := c.Application.Query().Where(application.LeadID(l.ID), application.IDNEQ(a.ID)).
		Exist(rule.SystemContext(ctx))
	if err != nil || earlier {
		return err
	}
	return addLeadStep(ctx, c, l, leadStep{applied: 1})
}

// rollupApproval counts l as approved when a is its first approval.
func rollupApproval(ctx context.Context, c *gen.Client, l *gen.Lead, a *gen.Application) error {
	earlier, err := c.Application.Query().Where(application.LeadID(l.ID), application.IDNEQ(a.ID), funnel.WasApproved).
		Exist(rule.SystemContext(ctx))
	if err != nil || earlier {
		return err
	}
	return addLeadStep(ctx, c, l, leadStep{approved: 1})
}

// rollupFunding counts the deal: l (read before the funding) as funded on
// its day, the first time only (funding alone sets convertedAt), the
// deal's amount there in every case, and the deal on the day it was
// funded, by its lender and by its advisor.
func rollupFunding(ctx context.Context, c *gen.Client, l *gen.Lead, d *gen.FundedDeal) error {
	loc, err := rollupLocation(ctx, c, d.OrgID)
	if err != nil {
		return err
	}
	step := leadStep{funded: 1, amount: d.FundedAmount}
	if l.ConvertedAt != nil {
		step.funded = 0
	}
	if loc == nil {
		return nil // not built: the rebuild counts the deal
	}
	if err := addLeadDay(ctx, c, loc, l, step); err != nil {
		return err
	}
	day := period.LocalDay(d.FundedAt, loc)
	sums := dealSums{deals: 1, funded: d.FundedAmount, expected: d.ExpectedCommission, outstanding: d.ExpectedCommission}
	return addDealDays(ctx, c, d.OrgID, day, d.LenderID, d.AdvisorID, sums)
}

// dealSums is what a change adds to a DealDay row.
type dealSums struct {
	deals                                           int
	funded, expected, paid, clawedBack, outstanding money.Amount
}

// addDealDays adds s to the rows of the day, of its month and of its
// year, by the lender and by the advisor (when there is one). The rows
// all take the same sums, so one multi-row upsert adds to them all, always
// in the same order: two fundings never take the rows in opposite orders.
func addDealDays(ctx context.Context, c *gen.Client, org uuid.UUID, day int, lender uuid.UUID, advisor *uuid.UUID, s dealSums) error {
	subjects := []struct {
		dim dealday.Dimension
		id  uuid.UUID
	}{{dealday.DimensionLender, lender}}
	if advisor != nil {
		subjects = append(subjects, struct {
			dim dealday.Dimension
			id  uuid.UUID
		}{dealday.DimensionAdvisor, *advisor})
	}
	var rows []*gen.DealDayCreate
	for _, sub := range subjects {
		for _, g := range []struct {
			grain dealday.Grain
			n     int
		}{{dealday.GrainDay, day}, {dealday.GrainMonth, period.MonthNumber(day)}, {dealday.GrainYear, period.YearNumber(day)}} {
			rows = append(rows, c.DealDay.Create().SetOrgID(org).SetGrain(g.grain).SetDay(g.n).
				SetDimension(sub.dim).SetSubjectID(sub.id).
				SetDeals(s.deals).SetFundedAmount(s.funded).SetExpectedCommission(s.expected).
				SetPaid(s.paid).SetClawedBack(s.clawedBack).SetOutstanding(s.outstanding))
		}
	}
	err := c.DealDay.CreateBulk(rows...).
		OnConflictColumns(dealday.FieldOrgID, dealday.FieldGrain, dealday.FieldDay, dealday.FieldDimension, dealday.FieldSubjectID).
		Update(func(u *gen.DealDayUpsert) {
			u.AddDeals(s.deals).AddFundedAmount(s.funded).AddExpectedCommission(s.expected).
				AddPaid(s.paid).AddClawedBack(s.clawedBack).AddOutstanding(s.outstanding)
		}).Exec(rule.SystemContext(ctx))
	if err != nil {
		return fmt.Errorf("adding to the deal rollup: %w", err)
	}
	return nil
}

// rollupPayment adds a payment or clawback p of cm to the day its deal was
// funded (gross, and the change in what is outstanding: paidBefore is the
// commission's paid amount before p) and to the day it was paid.
func rollupPayment(ctx context.Context, c *gen.Client, cm *gen.Commission, paidBefore money.Amount, p *gen.CommissionPayment) error {
	loc, err := rollupLocation(ctx, c, cm.OrgID)
	if err != nil || loc == nil {
		return err // nil: not built, the rebuild counts the payment
	}
	d, err := c.FundedDeal.Query().Where(fundeddeal.ID(cm.DealID)).Select(fundeddeal.FieldFundedAt).Only(rule.SystemContext(ctx))
	if err != nil {
		return fmt.Errorf("reading the commission's deal: %w", err)
	}
	s := dealSums{outstanding: max(cm.ExpectedAmount-cm.PaidAmount, 0) - max(cm.ExpectedAmount-paidBefore, 0)}
	if p.Kind == commissionpayment.KindClawback {
		s.clawedBack = p.Amount
	} else {
		s.paid = p.Amount
	}
	day := period.LocalDay(d.FundedAt, loc)
	if err := addDealDays(ctx, c, cm.OrgID, day, cm.LenderID, cm.AdvisorID, s); err != nil {
		return err
	}
	err = c.PaymentDay.Create().SetOrgID(cm.OrgID).SetDay(period.LocalDay(p.PaidAt, loc)).
		SetPaid(s.paid).SetClawedBack(s.clawedBack).
		OnConflictColumns(paymentday.FieldOrgID, paymentday.FieldDay).
		Update(func(u *gen.PaymentDayUpsert) { u.AddPaid(s.paid).AddClawedBack(s.clawedBack) }).
		Exec(rule.SystemContext(ctx))
	if err != nil {
		return fmt.Errorf("adding to the payment rollup: %w", err)
	}
	return nil
}
