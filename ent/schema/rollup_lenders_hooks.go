package schema

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"entgo.io/ent"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/decision"
	"github.com/lendingpipe/svc/ent/decisionday"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/funnel"
	"github.com/lendingpipe/svc/ent/hook"
	"github.com/lendingpipe/svc/ent/lenderday"
	"github.com/lendingpipe/svc/ent/money"
	"github.com/lendingpipe/svc/ent/period"
	"github.com/lendingpipe/svc/ent/rule"
	"github.com/lendingpipe/svc/ent/viewer"
)

// lenderStep is what an application adds to its LenderDay row.
type lenderStep struct {
	Submitted, Approved, Declined, Withdrawn, Funded int
	FundedAmount                                     money.Amount
	// Category is the decline's category when Declined is set.
	Category string
}

// lenderStepOf is what moving an application to status adds: decided and
// not declined counts as approved (an approval later withdrawn or funded
// stays one), dealAmount is the funded deal's amount.
func lenderStepOf(status application.Status, category *application.DeclineCategory, dealAmount money.Amount) lenderStep {
	switch status {
	case application.StatusApproved:
		return lenderStep{Approved: 1}
	case application.StatusDeclined:
		s := lenderStep{Declined: 1, Category: string(application.DeclineCategoryOther)}
		if category != nil {
			s.Category = string(*category)
		}
		return s
	case application.StatusWithdrawn:
		return lenderStep{Withdrawn: 1}
	case application.StatusFunded:
		return lenderStep{Funded: 1, FundedAmount: dealAmount}
	}
	return lenderStep{}
}

// lenderChange is one application's step and, for a decision, its seconds.
type lenderChange struct {
	lender    uuid.UUID
	submitted time.Time
	step      lenderStep
	seconds   *int
}

// rollupApplication keeps the lenders report's rollups: a submission, a
// decision, a withdrawal and a funding add to the day the application was
// submitted. A bulk move (a funding withdraws the lead's other open
// applications) is read before it runs. It also stamps an application's
// decision seconds whenever its decision time is set, the bulk loader's
// rows included.
func rollupApplication(next ent.Mutator) ent.Mutator {
	return hook.ApplicationFunc(func(ctx context.Context, m *gen.ApplicationMutation) (gen.Value, error) {
		if err := stampDecisionSeconds(ctx, m); err != nil {
			return nil, err
		}
		to, moving := m.Status()
		switch {
		case viewer.IsBulkLoad(ctx):
			return next.Mutate(ctx, m) // the loader rebuilds the rollups after
		case m.Op().Is(ent.OpCreate):
			v, err := next.Mutate(ctx, m)
			if err != nil {
				return nil, err
			}
			a := v.(*gen.Application)
			ch, err := changeOf(ctx, m.Client(), a, a.Status)
			if err != nil {
				return nil, err
			}
			ch.step.Submitted = 1
			return a, addLenderRollups(ctx, m.Client(), a.OrgID, []lenderChange{ch})
		case !moving:
			return next.Mutate(ctx, m)
		case m.Op().Is(ent.OpUpdateOne):
			v, err := next.Mutate(ctx, m)
			if err != nil {
				return nil, err
			}
			a, ok := v.(*gen.Application)
			if !ok {
				return v, nil
			}
			ch, err := changeOf(ctx, m.Client(), a, to)
			if err != nil {
				return nil, err
			}
			return a, addLenderRollups(ctx, m.Client(), a.OrgID, []lenderChange{ch})
		}
		return rollupBulkMove(ctx, m, next, to)
	})
}

// rollupBulkMove counts a bulk status change: the rows it will move are
// read first (the lead's row, which every lending operation takes first,
// keeps them as read).
func rollupBulkMove(ctx context.Context, m *gen.ApplicationMutation, next ent.Mutator, to application.Status) (gen.Value, error) {
	if to == application.StatusApproved || to == application.StatusDeclined {
		return nil, errors.New("an application is decided one at a time, so its decision seconds are its own")
	}
	sys := rule.SystemContext(ctx)
	ids, err := m.IDs(sys)
	if err != nil {
		return nil, fmt.Errorf("reading the applications moved: %w", err)
	}
	var moved []*gen.Application
	if len(ids) > 0 {
		moved, err = m.Client().Application.Query().Where(application.IDIn(ids...)).All(sys)
		if err != nil {
			return nil, fmt.Errorf("reading the applications moved: %w", err)
		}
	}
	v, err := next.Mutate(ctx, m)
	if err != nil || len(moved) == 0 {
		return v, err
	}
	changes := make([]lenderChange, 0, len(moved))
	for _, a := range moved {
		a.Status = to
		if id, ok := m.FundedDealID(); ok {
			a.FundedDealID = &id
		}
		ch, err := changeOf(ctx, m.Client(), a, to)
		if err != nil {
			return nil, err
		}
		changes = append(changes, ch)
	}
	return v, addLenderRollups(ctx, m.Client(), moved[0].OrgID, changes)
}

// changeOf is what a, as it stands after moving to status, adds.
func changeOf(ctx context.Context, c *gen.Client, a *gen.Application, status application.Status) (lenderChange, error) {
	var amount money.Amount
	if status == application.StatusFunded && a.FundedDealID != nil {
		d, err := c.FundedDeal.Query().Where(fundeddeal.ID(*a.FundedDealID)).Only(rule.SystemContext(ctx))
		if err != nil {
			return lenderChange{}, fmt.Errorf("reading the funded deal: %w", err)
		}
		amount = d.FundedAmount
	}
	ch := lenderChange{lender: a.LenderID, submitted: a.SubmittedAt, step: lenderStepOf(status, a.DeclineCategory, amount)}
	if (status == application.StatusApproved || status == application.StatusDeclined) && a.DecidedAt != nil {
		secs := decision.Seconds(a.SubmittedAt, *a.DecidedAt)
		ch.seconds = &secs
	}
	return ch, nil
}

// stampDecisionSeconds sets decision_seconds with decided_at.
func stampDecisionSeconds(ctx context.Context, m *gen.ApplicationMutation) error {
	if m.DecidedAtCleared() {
		m.ClearDecisionSeconds()
		return nil
	}
	decided, ok := m.DecidedAt()
	if !ok {
		return nil
	}
	submitted, ok := m.SubmittedAt()
	switch {
	case ok:
	case m.Op().Is(ent.OpUpdateOne):
		var err error
		if submitted, err = m.OldSubmittedAt(ctx); err != nil {
			return err
		}
	default:
		return errors.New("an application's decision time is set one application at a time")
	}
	m.SetDecisionSeconds(decision.Seconds(submitted, decided))
	return nil
}

// addLenderRollups adds the changes of org's applications, in the order
// of their rows, so two transactions take shared rows in one order.
func addLenderRollups(ctx context.Context, c *gen.Client, org uuid.UUID, changes []lenderChange) error {
	loc, err := rollupLocation(ctx, c, org)
	if err != nil || loc == nil {
		return err // nil: not built, the rebuild counts the applications
	}
	type key struct {
		day    int
		lender uuid.UUID
	}
	keyOf := func(ch lenderChange) key { return key{period.LocalDay(ch.submitted, loc), ch.lender} }
	slices.SortFunc(changes, func(a, b lenderChange) int {
		ka, kb := keyOf(a), keyOf(b)
		return cmp.Or(cmp.Compare(ka.day, kb.day), slices.Compare(ka.lender[:], kb.lender[:]))
	})
	slot := rollupSlot(ctx)
	for _, ch := range changes {
		k := keyOf(ch)
		if err := addLenderDay(ctx, c, org, k.day, k.lender, slot, ch.step); err != nil {
			return err
		}
	}
	for _, ch := range changes {
		if ch.seconds != nil {
			k := keyOf(ch)
			if err := addDecision(ctx, c, org, k.day, k.lender, *ch.seconds, 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// addLenderDay adds s to the LenderDay rows of a day, of its month and of
// its year: they take the same sums, so one multi-row upsert adds to them
// all, in that order (as addDealDays).
func addLenderDay(ctx context.Context, c *gen.Client, org uuid.UUID, day int, lender uuid.UUID, slot int, s lenderStep) error {
	cols := map[string]int{lenderday.FieldSubmitted: s.Submitted, lenderday.FieldApproved: s.Approved,
		lenderday.FieldDeclined: s.Declined, lenderday.FieldWithdrawn: s.Withdrawn, lenderday.FieldFunded: s.Funded}
	if s.Declined != 0 {
		cols[funnel.DeclineColumn(s.Category)] = s.Declined
	}
	var rows []*gen.LenderDayCreate
	for _, g := range []struct {
		grain lenderday.Grain
		n     int
	}{{lenderday.GrainDay, day}, {lenderday.GrainMonth, period.MonthNumber(day)}, {lenderday.GrainYear, period.YearNumber(day)}} {
		create := c.LenderDay.Create().SetOrgID(org).SetGrain(g.grain).SetDay(g.n).SetLenderID(lender).SetSlot(slot).
			SetFundedAmount(s.FundedAmount)
		for col, n := range cols {
			if err := create.Mutation().SetField(col, n); err != nil {
				return fmt.Errorf("adding to the lender rollup: %w", err)
			}
		}
		rows = append(rows, create)
	}
	err := c.LenderDay.CreateBulk(rows...).OnConflict(
		sql.ConflictColumns(lenderday.FieldOrgID, lenderday.FieldGrain, lenderday.FieldDay, lenderday.FieldLenderID, lenderday.FieldSlot),
		sql.ResolveWith(func(u *sql.UpdateSet) {
			for col, n := range cols {
				if n != 0 {
					u.Add(col, n)
				}
			}
			u.Add(lenderday.FieldFundedAmount, int64(s.FundedAmount))
		})).Exec(rule.SystemContext(ctx))
	if err != nil {
		return fmt.Errorf("adding to the lender rollup: %w", err)
	}
	return nil
}

// addDecision adds n decisions of secs seconds to the histogram rows of a
// lender's day, then of its month and of its year (in that order, as
// addDealDays).
func addDecision(ctx context.Context, c *gen.Client, org uuid.UUID, day int, lender uuid.UUID, secs, n int) error {
	octave, bucket := decision.Bucket(secs)
	col := decision.Column(bucket)
	var rows []*gen.DecisionDayCreate
	for _, g := range []struct {
		grain decisionday.Grain
		n     int
	}{{decisionday.GrainDay, day}, {decisionday.GrainMonth, period.MonthNumber(day)}, {decisionday.GrainYear, period.YearNumber(day)}} {
		create := c.DecisionDay.Create().SetOrgID(org).SetGrain(g.grain).SetDay(g.n).SetLenderID(lender).SetOctave(octave)
		if err := create.Mutation().SetField(col, n); err != nil {
			return fmt.Errorf("adding to the decision histogram: %w", err)
		}
		rows = append(rows, create)
	}
	// The rows take the same count: one statement adds to them all.
	err := c.DecisionDay.CreateBulk(rows...).OnConflict(
		sql.ConflictColumns(decisionday.FieldOrgID, decisionday.FieldGrain, decisionday.FieldDay,
			decisionday.FieldLenderID, decisionday.FieldOctave),
		sql.ResolveWith(func(u *sql.UpdateSet) { u.Add(col, n) })).Exec(rule.SystemContext(ctx))
	if err != nil {
		return fmt.Errorf("adding to the decision histogram: %w", err)
	}
	return nil
}
