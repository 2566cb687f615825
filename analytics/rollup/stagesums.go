package rollup

import (
	"context"
	"fmt"
	"math/big"
	"slices"

	"github.com/google/uuid"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/leadcount"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/rule"
)

// StageSum is a stage's number of leads and the exact sum of the amounts
// they ask for (requestedAmount, null counting as 0), in ten-thousandths:
// a column of the pipeline board's totals.
type StageSum struct {
	Leads     int
	Requested *big.Int
	// kept is the stage as its LeadCount rows hold it (the rebuild's
	// rows): the amounts up to MaxKeptRequest, and the leads above it.
	kept stageStep
	// keptSum is kept.requested before it is known to fit an int64.
	keptSum *big.Int
}

// sumOf is the stage's entry of sums, made when missing.
func sumOf(sums map[uuid.UUID]*StageSum, stage uuid.UUID) *StageSum {
	s := sums[stage]
	if s == nil {
		s = &StageSum{Requested: new(big.Int), keptSum: new(big.Int)}
		sums[stage] = s
	}
	return s
}

// SumStages sums q's leads by stage, exactly: one GROUP BY of the stage
// and the amount as stored (a decimal string, which no SQL sums the same
// way on SQLite and PostgreSQL), each distinct amount then multiplied
// by its leads and added in Go. q carries the caller's privacy rules and
// filters, so the sums are of exactly the leads it lists.
func SumStages(ctx context.Context, q *gen.LeadQuery) (map[uuid.UUID]*StageSum, error) {
	var rows []struct {
		StageID   uuid.UUID `json:"stage_id"`
		Requested *string   `json:"requested_amount"`
		N         int       `json:"n"`
	}
	err := q.GroupBy(lead.FieldStageID, lead.FieldRequestedAmount).Aggregate(gen.As(gen.Count(), "n")).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("summing the leads' requested amounts: %w", err)
	}
	sums := map[uuid.UUID]*StageSum{}
	n := new(big.Int)
	for _, r := range rows {
		s := sumOf(sums, r.StageID)
		s.Leads += r.N
		step := requestStep(r.Requested)
		n.SetInt64(int64(r.N))
		s.kept.n += r.N
		s.kept.outsized += step.outsized * r.N
		s.keptSum.Add(s.keptSum, new(big.Int).Mul(big.NewInt(step.requested), n))
		if r.Requested == nil {
			continue
		}
		if v, err := money.TenThousandths(*r.Requested); err == nil {
			s.Requested.Add(s.Requested, v.Mul(v, n))
		}
	}
	for _, s := range sums {
		if s.keptSum.IsInt64() {
			s.kept.requested = s.keptSum.Int64()
		} else {
			// The stage's amounts do not fit its kept sum: all its leads
			// are outsized, and the board reads them.
			s.kept.requested, s.kept.outsized = 0, s.kept.n
		}
	}
	return sums, nil
}

// KeptSums is the sum of org's leads by stage (SumStages of them all),
// read from their kept counts (LeadCount): a read of a few rows a stage
// rather than of the leads. A stage with outsized leads (MaxKeptRequest)
// is summed from its leads instead, and so is every stage while org has
// counts kept before they were kept by stage (the bulk loader's, until the
// rollups' rebuild replaces them). ctx is the system's: the caller has
// checked that its viewer may read org's leads.
func KeptSums(ctx context.Context, c *gen.Client, org uuid.UUID) (map[uuid.UUID]*StageSum, error) {
	rows, err := c.LeadCount.Query().Where(leadcount.OrgID(org)).All(rule.SystemContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("reading the lead counts: %w", err)
	}
	sums := map[uuid.UUID]*StageSum{}
	var unkept []uuid.UUID
	for _, r := range rows {
		if r.StageID == nil {
			if r.N != 0 {
				return SumStages(rule.SystemContext(ctx), c.Lead.Query().Where(lead.OrgID(org)))
			}
			continue
		}
		s := sumOf(sums, *r.StageID)
		s.Leads += r.N
		s.Requested.Add(s.Requested, big.NewInt(r.Requested))
		if r.Outsized != 0 && !slices.Contains(unkept, *r.StageID) {
			unkept = append(unkept, *r.StageID)
		}
	}
	if len(unkept) == 0 {
		return sums, nil
	}
	exact, err := SumStages(rule.SystemContext(ctx), c.Lead.Query().Where(lead.OrgID(org), lead.StageIDIn(unkept...)))
	if err != nil {
		return nil, err
	}
	for _, stage := range unkept {
		delete(sums, stage)
		if s, ok := exact[stage]; ok {
			sums[stage] = s
		}
	}
	return sums, nil
}
