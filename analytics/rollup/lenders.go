package rollup

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/decision"
	"github.com/lendingpipe/svc/analytics/funnel"
	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/decisionday"
	"github.com/lendingpipe/svc/ent/lenderday"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/period"
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

// ApplicationSubmitted counts a, just submitted, on its lender's day.
func ApplicationSubmitted(ctx context.Context, c *gen.Client, a *gen.Application) error {
	ch := changeWith(a, a.Status, 0)
	ch.step.Submitted = 1
	return addLenderRollups(ctx, c, a.OrgID, []lenderChange{ch})
}

// ApplicationMoved counts a's move to the status it now holds on the day
// it was submitted: a decision (with its seconds in the histogram), a
// withdrawal, or a funding, dealAmount being its deal's amount.
func ApplicationMoved(ctx context.Context, c *gen.Client, a *gen.Application, dealAmount money.Amount) error {
	return addLenderRollups(ctx, c, a.OrgID, []lenderChange{changeWith(a, a.Status, dealAmount)})
}

// ApplicationsWithdrawn counts the withdrawal of apps, org's applications
// as read before they moved (their lender and submission time), in one
// pass: the rows are taken in one order whatever the order of apps.
func ApplicationsWithdrawn(ctx context.Context, c *gen.Client, org uuid.UUID, apps []*gen.Application) error {
	if len(apps) == 0 {
		return nil
	}
	changes := make([]lenderChange, len(apps))
	for i, a := range apps {
		changes[i] = changeWith(a, application.StatusWithdrawn, 0)
	}
	return addLenderRollups(ctx, c, org, changes)
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
