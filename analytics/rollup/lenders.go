package rollup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"entgo.io/ent"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/decision"
	"github.com/lendingpipe/svc/analytics/funnel"
	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/decisionday"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/hook"
	"github.com/lendingpipe/svc/ent/lenderday"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/period"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
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

// Application keeps the lenders report's rollups: a submission, a
// decision, a withdrawal and a funding add to the day the application was
// submitted. A bulk move (a funding withdraws the lead's other open
// applications) is read before it runs. It also stamps an application's
// decision seconds whenever its decision time is set, the bulk loader's
// rows included.
func Application(next ent.Mutator) ent.Mutator {
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
	if f, ok := ctx.Value(fundingKey{}).(funding); ok && to == application.StatusFunded {
		if id, set := m.FundedDealID(); set && id == f.deal.ID {
			return fundedMove(ctx, m, next, f)
		}
	}
	sys := rule.SystemContext(ctx)
	ids, err := m.IDs(sys)
	if err != nil {
		return nil, fmt.Errorf("reading the applications moved: %w", err)
	}
	if len(ids) == 0 {
		return 0, nil // nothing to move: the UPDATE would change no row
	}
	moved, err := m.Client().Application.Query().Where(application.IDIn(ids...)).
		Select(application.FieldOrgID, application.FieldLenderID, application.FieldSubmittedAt,
			application.FieldDecidedAt, application.FieldDeclineCategory).All(sys)
	if err != nil {
		return nil, fmt.Errorf("reading the applications moved: %w", err)
	}
	v, err := next.Mutate(ctx, m)
	if err != nil {
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

// changeOf is what a, as it stands after moving to status, adds; a move
// to funded reads its deal's amount.
func changeOf(ctx context.Context, c *gen.Client, a *gen.Application, status application.Status) (lenderChange, error) {
	var amount money.Amount
	if status == application.StatusFunded && a.FundedDealID != nil {
		d, err := c.FundedDeal.Query().Where(fundeddeal.ID(*a.FundedDealID)).Only(rule.SystemContext(ctx))
		if err != nil {
			return lenderChange{}, fmt.Errorf("reading the funded deal: %w", err)
		}
		amount = d.FundedAmount
	}
	return changeWith(a, status, amount), nil
}

// changeWith is what a adds moving to status, dealAmount the amount of
// its deal when funded.
func changeWith(a *gen.Application, status application.Status, dealAmount money.Amount) lenderChange {
	ch := lenderChange{lender: a.LenderID, submitted: a.SubmittedAt, step: lenderStepOf(status, a.DeclineCategory, dealAmount)}
	if (status == application.StatusApproved || status == application.StatusDeclined) && a.DecidedAt != nil {
		secs := decision.Seconds(a.SubmittedAt, *a.DecidedAt)
		ch.seconds = &secs
	}
	return ch
}

// fundingKey marks the context of a funding's application moves with the
// funding (WithFunding): the application it funds, read under the lead's
// lock, and the deal just created (fundedMove).
type fundingKey struct{}

type funding struct {
	app  *gen.Application
	deal *gen.FundedDeal
}

// WithFunding marks ctx, the context of a funding's move of its
// application, with the application (read under the lead's lock) and its
// deal, so the move is counted without reading them again.
func WithFunding(ctx context.Context, a *gen.Application, d *gen.FundedDeal) context.Context {
	return context.WithValue(ctx, fundingKey{}, funding{a, d})
}

// fundedMove counts the funding's own move of its application: the one
// row a move to funded with the deal's id can change, read by the funding
// under the lead's lock, so it is not read again.
func fundedMove(ctx context.Context, m *gen.ApplicationMutation, next ent.Mutator, f funding) (gen.Value, error) {
	v, err := next.Mutate(ctx, m)
	n, ok := v.(int)
	if err != nil || !ok || n == 0 {
		return v, err // refused: the caller reads why
	}
	if n != 1 {
		return nil, fmt.Errorf("a funding moved %d applications to funded", n)
	}
	ch := changeWith(f.app, application.StatusFunded, f.deal.FundedAmount)
	return v, addLenderRollups(ctx, m.Client(), f.app.OrgID, []lenderChange{ch})
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
	z, err := rollupZone(ctx, c, org)
	if err != nil || z.loc == nil {
		return err // nil: not built, the rebuild counts the applications
	}
	loc := z.loc
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
		if err := addLenderDay(ctx, c, z.dialect, org, k.day, k.lender, slot, ch.step); err != nil {
			return err
		}
	}
	for _, ch := range changes {
		if ch.seconds != nil {
			k := keyOf(ch)
			if err := addDecision(ctx, c, z.dialect, org, k.day, k.lender, *ch.seconds, 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// addLenderDay adds s to the LenderDay rows of a day, of its month and of
// its year, the counts it changes alone: they take the same sums, so one
// multi-row upsert adds to them all, in that order (as addDealDays).
func addLenderDay(ctx context.Context, c *gen.Client, dialect string, org uuid.UUID, day int, lender uuid.UUID, slot int, s lenderStep) error {
	up := rollupUpsert{table: lenderday.Table,
		keys: []string{lenderday.FieldOrgID, lenderday.FieldGrain, lenderday.FieldDay, lenderday.FieldLenderID, lenderday.FieldSlot}}
	var counts []any
	for _, col := range []struct {
		name string
		n    int64
	}{{lenderday.FieldSubmitted, int64(s.Submitted)}, {lenderday.FieldApproved, int64(s.Approved)},
		{lenderday.FieldDeclined, int64(s.Declined)}, {lenderday.FieldWithdrawn, int64(s.Withdrawn)},
		{lenderday.FieldFunded, int64(s.Funded)}, {lenderday.FieldFundedAmount, int64(s.FundedAmount)}} {
		if col.n != 0 {
			up.adds = append(up.adds, col.name)
			counts = append(counts, col.n)
		}
	}
	if s.Declined != 0 {
		up.adds = append(up.adds, funnel.DeclineColumn(s.Category))
		counts = append(counts, s.Declined)
	}
	if len(up.adds) == 0 {
		return nil
	}
	var rows [][]any
	for _, g := range []struct {
		grain lenderday.Grain
		n     int
	}{{lenderday.GrainDay, day}, {lenderday.GrainMonth, period.MonthNumber(day)}, {lenderday.GrainYear, period.YearNumber(day)}} {
		rows = append(rows, append([]any{org, string(g.grain), g.n, lender, slot}, counts...))
	}
	return up.exec(ctx, c, dialect, rows...)
}

// addDecision adds n decisions of secs seconds to the histogram rows of a
// lender's day, then of its month and of its year (in that order, as
// addDealDays): one statement, as the rows take the same count.
func addDecision(ctx context.Context, c *gen.Client, dialect string, org uuid.UUID, day int, lender uuid.UUID, secs, n int) error {
	octave, bucket := decision.Bucket(secs)
	up := rollupUpsert{table: decisionday.Table,
		keys: []string{decisionday.FieldOrgID, decisionday.FieldGrain, decisionday.FieldDay, decisionday.FieldLenderID, decisionday.FieldOctave},
		adds: []string{decision.Column(bucket)}}
	var rows [][]any
	for _, g := range []struct {
		grain decisionday.Grain
		n     int
	}{{decisionday.GrainDay, day}, {decisionday.GrainMonth, period.MonthNumber(day)}, {decisionday.GrainYear, period.YearNumber(day)}} {
		rows = append(rows, []any{org, string(g.grain), g.n, lender, octave, n})
	}
	return up.exec(ctx, c, dialect, rows...)
}
