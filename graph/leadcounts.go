package graph

import (
	"context"
	"errors"
	"reflect"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/counted"
	"github.com/lendingpipe/svc/internal/viewer"
)

// MaxCounted bounds the count behind the leads connection's totalCount
// when no kept count covers its filter: the count stops after this many
// matches, so its cost is bounded whatever the filter, and totalCount then
// says "more than MaxCounted" (totalCountIsExact false).
const MaxCounted = 10_000

// coveredStages is the stages where asks for when it asks for nothing
// else: the filters the kept counts (schema.LeadCount) answer exactly.
func coveredStages(where *ent.LeadWhereInput) ([]uuid.UUID, bool) {
	rest := *where
	var stages []uuid.UUID
	switch {
	case rest.StageID != nil && rest.StageIDIn == nil:
		stages = []uuid.UUID{*rest.StageID}
	case rest.StageID == nil && len(rest.StageIDIn) > 0:
		stages = rest.StageIDIn
	default:
		return nil, false
	}
	rest.StageID, rest.StageIDIn = nil, nil
	return stages, reflect.ValueOf(rest).IsZero()
}

// countedStages marks ctx so that a Count of the viewer's organization's
// leads in stages reads their kept counts (store.LeadStageTotal); where the
// organization's counts are not kept by stage yet, the leads are counted.
func (r *Resolver) countedStages(ctx context.Context, stages []uuid.UUID) context.Context {
	v, ok := viewer.FromContext(ctx)
	if !ok || v.OrgID == uuid.Nil {
		return ctx
	}
	return counted.With(ctx, func(ctx context.Context) (int, error) {
		n, kept, err := r.db.LeadStageTotal(ctx, v.OrgID, stages)
		if err == nil && !kept {
			return 0, counted.ErrNotKept
		}
		return n, err
	})
}

// countedFilter marks ctx for the leads connection's Count of where's
// matches: the kept counts when they cover where (the organization's total,
// a stage's or some stages'), else a count that stops after MaxCounted+1
// matches; capped is set when it did.
func (r *Resolver) countedFilter(ctx context.Context, where *ent.LeadWhereInput, capped *bool) context.Context {
	if where == nil {
		return r.countedLeads(ctx)
	}
	if stages, ok := coveredStages(where); ok {
		return r.countedStages(ctx, stages)
	}
	p, err := where.P()
	switch {
	case errors.Is(err, ent.ErrEmptyLeadWhereInput):
		return r.countedLeads(ctx)
	case err != nil:
		return ctx // the page's query reports it
	}
	// The count reads with ctx, which is neither marked nor inside the
	// Count's query (whose operation a nested query would take on).
	return counted.With(ctx, func(context.Context) (int, error) {
		ids, err := r.client(ctx).Lead.Query().Where(p).Limit(MaxCounted + 1).IDs(ctx)
		if err != nil {
			return 0, err
		}
		if len(ids) > MaxCounted {
			*capped = true
			return MaxCounted, nil
		}
		return len(ids), nil
	})
}

// cappedCounts remembers, for one GraphQL operation, the lead connections
// whose totalCount stopped at MaxCounted, for their totalCountIsExact.
type cappedCounts struct {
	mu    sync.Mutex
	conns map[*ent.LeadConnection]bool
}

// cappedFrom is ctx's record of capped counts; nil outside an operation.
func cappedFrom(ctx context.Context) *cappedCounts {
	c, _ := ctx.Value(cappedCountsKey{}).(*cappedCounts)
	return c
}

type cappedCountsKey struct{}

// withCappedCounts gives each operation its own record of capped counts.
func withCappedCounts(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	return next(context.WithValue(ctx, cappedCountsKey{}, &cappedCounts{conns: map[*ent.LeadConnection]bool{}}))
}

// markCapped records that conn's totalCount is a lower bound.
func markCapped(ctx context.Context, conn *ent.LeadConnection) {
	c := cappedFrom(ctx)
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conns[conn] = true
}

// countIsExact is false when conn's totalCount was capped.
func countIsExact(ctx context.Context, conn *ent.LeadConnection) bool {
	c := cappedFrom(ctx)
	if c == nil {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.conns[conn]
}

// leadFilterCounted is ctx marked for the exact total of the REST list's
// filter: the kept counts when they cover it, else a COUNT (SPEC's list
// total is exact).
func (r *Resolver) leadFilterCounted(ctx context.Context, where *ent.LeadWhereInput, tags []string) context.Context {
	if where == nil || len(tags) > 0 {
		return ctx
	}
	if stages, ok := coveredStages(where); ok {
		return r.countedStages(ctx, stages)
	}
	return ctx
}
