package rollup

import (
	"context"

	"github.com/google/uuid"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/money"
)

// MaxKeptRequest is the largest requested amount, in ten-thousandths
// (1,000,000,000.0000), that a stage's kept sum (LeadCount.requested)
// holds. A lead's requestedAmount may have 15 integer digits, more than an
// int64 of ten-thousandths holds even once; bounded this way, a slot's
// int64 overflows only after some 922,000 maximal amounts were added to
// it. A lead asking for more is counted in its slot's outsized instead,
// and the board reads that stage's sum from its leads (exact, slower).
const MaxKeptRequest int64 = 1_000_000_000 * 10_000

// stageStep is what a change adds to a stage's count: leads, the sum of
// their requested amounts in ten-thousandths, and the leads whose amount
// is not in that sum (outsized).
type stageStep struct {
	n         int
	requested int64
	outsized  int
}

// requestStep is one lead asking for requested (nil: no amount, counted
// as 0) in a stage's count.
func requestStep(requested *string) stageStep {
	s := stageStep{n: 1}
	if requested == nil {
		return s
	}
	v, err := money.TenThousandths(*requested)
	switch {
	case err != nil:
		// The field's pattern admits no other value; one that is not a
		// decimal counts as 0, as the board's exact read counts it.
	case !v.IsInt64() || v.Int64() > MaxKeptRequest:
		s.outsized = 1
	default:
		s.requested = v.Int64()
	}
	return s
}

func (s stageStep) neg() stageStep { return stageStep{-s.n, -s.requested, -s.outsized} }

func (s stageStep) plus(t stageStep) stageStep {
	return stageStep{s.n + t.n, s.requested + t.requested, s.outsized + t.outsized}
}

// RequestChanged moves a lead of org, in stage, in its stage's requested
// sum from the amount it asked for before to the one it asks for now (an
// update of requestedAmount).
func RequestChanged(ctx context.Context, c *gen.Client, org, stage uuid.UUID, before, after *string) error {
	step := requestStep(after).plus(requestStep(before).neg())
	if step == (stageStep{}) {
		return nil
	}
	return addStage(ctx, c, org, stage, step)
}
