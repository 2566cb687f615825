package rollup

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/uuid"

	gen "github.com/lendingpipe/svc/ent"
)

// CreateBatch gathers what one transaction's many lead creates (a lead
// import's batch) add to the stage counts and the lead days, so that they
// are written once, by Flush before the transaction commits, rather than
// with two statements a lead; and it remembers each organization's first
// stage for the leads that take it by default. It is for a transaction
// that only creates leads: nothing in it reads the counts or moves stages
// between its creates.
type CreateBatch struct {
	mu      sync.Mutex
	stages  map[stageCount]stageStep
	days    map[dayCount]leadStep
	dialect string
	first   map[uuid.UUID]uuid.UUID
}

type stageCount struct{ org, stage uuid.UUID }

type dayCount struct {
	org    uuid.UUID
	day    int
	source string
}

type batchKey struct{}

// WithCreateBatch returns ctx carrying a new batch; the lead flows add to
// it instead of writing.
func WithCreateBatch(ctx context.Context) (context.Context, *CreateBatch) {
	b := &CreateBatch{stages: map[stageCount]stageStep{}, days: map[dayCount]leadStep{}, first: map[uuid.UUID]uuid.UUID{}}
	return context.WithValue(ctx, batchKey{}, b), b
}

func batchOf(ctx context.Context) *CreateBatch {
	b, _ := ctx.Value(batchKey{}).(*CreateBatch)
	return b
}

// FirstStage is org's first stage, read once a batch; outside a batch,
// read each time.
func FirstStage(ctx context.Context, org uuid.UUID, read func() (uuid.UUID, error)) (uuid.UUID, error) {
	b := batchOf(ctx)
	if b == nil {
		return read()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if id, ok := b.first[org]; ok {
		return id, nil
	}
	id, err := read()
	if err == nil {
		b.first[org] = id
	}
	return id, err
}

// addStageLater adds step to a stage's count in the batch of ctx; false outside one.
func addStageLater(ctx context.Context, org, stage uuid.UUID, step stageStep) bool {
	b := batchOf(ctx)
	if b == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	k := stageCount{org, stage}
	b.stages[k] = b.stages[k].plus(step)
	return true
}

// addDayLater adds a created lead's step to its day in the batch of ctx;
// false outside one.
func addDayLater(ctx context.Context, z zoneRead, l *gen.Lead, s leadStep) bool {
	b := batchOf(ctx)
	if b == nil {
		return false
	}
	if z.loc == nil {
		return true // not built: the rebuild counts l
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	k := dayCount{org: l.OrgID, day: dayOf(l, z), source: string(l.Source)}
	sum := b.days[k]
	sum.leads += s.leads
	sum.applied += s.applied
	sum.approved += s.approved
	sum.funded += s.funded
	sum.amount += s.amount
	b.days[k] = sum
	b.dialect = z.dialect
	return true
}

// Flush writes what the batch gathered through c, in the transaction the
// creates ran in, and empties it: one statement for the stage counts and
// one for the days.
func (b *CreateBatch) Flush(ctx context.Context, c *gen.Client) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	keys := make([]stageCount, 0, len(b.stages))
	for k := range b.stages {
		keys = append(keys, k)
	}
	// In the order of their ids, as moveStage takes them: no deadlock
	// with another transaction's counts.
	slices.SortFunc(keys, func(a, b stageCount) int { return slices.Compare(a.stage[:], b.stage[:]) })
	for _, k := range keys {
		if err := writeStage(ctx, c, k.org, k.stage, b.stages[k]); err != nil {
			return err
		}
	}
	days := make([]dayCount, 0, len(b.days))
	for k := range b.days {
		days = append(days, k)
	}
	// In a fixed order too: two imports' upserts then lock their day rows
	// in the same order.
	slices.SortFunc(days, func(a, b dayCount) int {
		if c := slices.Compare(a.org[:], b.org[:]); c != 0 {
			return c
		}
		if a.day != b.day {
			return a.day - b.day
		}
		return strings.Compare(a.source, b.source)
	})
	rows := make([][]any, 0, len(days))
	for _, k := range days {
		s := b.days[k]
		rows = append(rows, []any{k.org, k.day, k.source, rollupSlot(ctx), s.leads, s.applied, s.approved, s.funded, int64(s.amount)})
	}
	if len(rows) > 0 {
		if err := leadDays.exec(ctx, c, b.dialect, rows...); err != nil {
			return fmt.Errorf("adding the batch's leads to their days: %w", err)
		}
	}
	clear(b.stages)
	clear(b.days)
	return nil
}
