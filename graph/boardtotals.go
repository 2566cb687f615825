package graph

import (
	"context"
	"errors"
	"math/big"
	"slices"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/rollup"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
)

// boardTotals is the pipeline board's column totals (PRODUCT 10.6): per
// stage, the leads that where and search match and the sum of what they
// ask for. The leads are those of the leads connection's filter (where.P,
// the filter each of the board's columns reads, with its stage), so the
// totals and the columns cannot disagree. Unfiltered (or by stage alone)
// they are the kept counts (rollup.KeptSums); else one grouped read of
// the matching leads (rollup.SumStages).
func (r *Resolver) boardTotals(ctx context.Context, where *ent.LeadWhereInput, search *string) ([]*BoardTotal, error) {
	org, err := rule.RequireOrg(ctx, viewer.ScopeLeadsRead, "reading the board's totals")
	if err != nil {
		return nil, err
	}
	where, p, err := r.boardFilter(ctx, where, search)
	if err != nil {
		return nil, err
	}
	stages, err := r.client(ctx).PipelineStage.Query().
		Order(pipelinestage.ByPosition(), pipelinestage.ByID()).IDs(ctx)
	if err != nil {
		return nil, err
	}
	var sums map[uuid.UUID]*rollup.StageSum
	if only, kept := keptFilter(where, p); kept {
		if sums, err = rollup.KeptSums(ctx, r.client(ctx), org); err == nil && only != nil {
			for stage := range sums {
				if !only[stage] {
					delete(sums, stage)
				}
			}
		}
	} else {
		sums, err = rollup.SumStages(ctx, r.client(ctx).Lead.Query().Where(p))
	}
	if err != nil {
		return nil, err
	}
	out := make([]*BoardTotal, len(stages))
	for i, stage := range stages {
		t := &BoardTotal{StageID: stage, RequestedAmountIsExact: true}
		if s, ok := sums[stage]; ok {
			t.Leads = s.Leads
			t.RequestedAmount, t.RequestedAmountIsExact = money.RoundTenThousandths(s.Requested)
		} else {
			t.RequestedAmount, t.RequestedAmountIsExact = money.RoundTenThousandths(new(big.Int))
		}
		out[i] = t
	}
	return out, nil
}

// boardFilter is where with search added (as where: {search} adds it),
// and that as one predicate of the leads; nil when nothing filters. where
// is read as the leads connection reads it and left as it was.
func (r *Resolver) boardFilter(ctx context.Context, where *ent.LeadWhereInput, search *string) (*ent.LeadWhereInput, predicate.Lead, error) {
	w := &ent.LeadWhereInput{}
	if where != nil {
		copied := *where
		copied.Predicates = slices.Clone(where.Predicates)
		w = &copied
	}
	if err := r.whereSearch(ctx, w, "search", search); err != nil {
		return nil, nil, err
	}
	if err := CheckRange(w.CreatedAtGTE, w.CreatedAtLT, "createdAtGTE", "createdAtLT"); err != nil {
		return nil, nil, err
	}
	p, err := w.P()
	switch {
	case errors.Is(err, ent.ErrEmptyLeadWhereInput):
		return w, nil, nil
	case err != nil:
		return nil, nil, apperr.Invalid("where", "%s", err)
	}
	return w, p, nil
}

// keptFilter reports whether the kept counts answer the filter p: none
// at all, or where's stageId or stageIdIn alone, whose stages only is
// then (nil: every stage). A search (one of where's predicates) they
// never answer.
func keptFilter(where *ent.LeadWhereInput, p predicate.Lead) (only map[uuid.UUID]bool, kept bool) {
	if p == nil {
		return nil, true
	}
	stages, ok := coveredStages(where)
	if !ok {
		return nil, false
	}
	only = make(map[uuid.UUID]bool, len(stages))
	for _, s := range stages {
		only[s] = true
	}
	return only, true
}
