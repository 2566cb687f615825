package graph

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/signals"
)

// refTTL bounds how stale a cached stage or advisor may be on another
// replica; on this one a committed change of either (the store's signals.Version) clears
// the cache at once.
const refTTL = 5 * time.Second

// refCache keeps the pipeline stages and users that leads point at, by id.
// Rendering a lead needs its stage and its advisor's name; they change
// rarely and are shared by many leads, so reading them per request was two
// of a single-lead GET's three queries. Ids come from leads the caller may
// read, and a lead only points into its own organization, so a cached row
// never crosses organizations.
type refCache struct {
	mu      sync.Mutex
	version int64 // the store's signals.Version the entries were read at
	stages  map[uuid.UUID]ref[*ent.PipelineStage]
	users   map[uuid.UUID]ref[*ent.User]
}

type ref[T any] struct {
	v       T
	fetched time.Time
}

func newRefCache() *refCache {
	rc := &refCache{}
	rc.clear()
	return rc
}

func (rc *refCache) clear() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.stages = map[uuid.UUID]ref[*ent.PipelineStage]{}
	rc.users = map[uuid.UUID]ref[*ent.User]{}
}

// AttachRefs sets the stage and advisor edges of leads a mutation returned,
// for adapters that answer with them (the REST /v1 lead resources).
func (r *Resolver) AttachRefs(ctx context.Context, leads ...*ent.Lead) error {
	return r.attachRefs(ctx, leads...)
}

// attach sets each lead's stage and primary advisor edges, reading only
// what the cache lacks (one query per kind).
func (r *Resolver) attachRefs(ctx context.Context, leads ...*ent.Lead) error {
	rc, c := r.refs, r.client(ctx)
	stages, err := lookup(rc, c.Signals, rc.stages, ids(leads, func(l *ent.Lead) *uuid.UUID { return &l.StageID }),
		func(missing []uuid.UUID) ([]*ent.PipelineStage, error) {
			return c.PipelineStage.Query().Where(pipelinestage.IDIn(missing...)).All(ctx)
		}, func(s *ent.PipelineStage) uuid.UUID { return s.ID })
	if err != nil {
		return err
	}
	users, err := lookup(rc, c.Signals, rc.users, ids(leads, func(l *ent.Lead) *uuid.UUID { return l.PrimaryAdvisorID }),
		func(missing []uuid.UUID) ([]*ent.User, error) {
			return c.User.Query().Where(user.IDIn(missing...)).All(ctx)
		},
		func(u *ent.User) uuid.UUID { return u.ID })
	if err != nil {
		return err
	}
	for _, l := range leads {
		l.Edges.Stage = stages[l.StageID]
		if l.PrimaryAdvisorID != nil {
			l.Edges.PrimaryAdvisor = users[*l.PrimaryAdvisorID]
		}
	}
	return nil
}

func ids(leads []*ent.Lead, of func(*ent.Lead) *uuid.UUID) []uuid.UUID {
	var out []uuid.UUID
	for _, l := range leads {
		if id := of(l); id != nil && *id != uuid.Nil {
			out = append(out, *id)
		}
	}
	return out
}

// lookup returns the rows for want from the cache, loading the rest.
func lookup[T any](rc *refCache, sig *signals.Set, cache map[uuid.UUID]ref[T], want []uuid.UUID,
	load func([]uuid.UUID) ([]T, error), idOf func(T) uuid.UUID) (map[uuid.UUID]T, error) {
	out := make(map[uuid.UUID]T, len(want))
	var missing []uuid.UUID
	asked := map[uuid.UUID]bool{}
	rc.mu.Lock()
	v := sig.Version()
	if v != rc.version {
		// A stage or user changed in this process: forget them all.
		clear(rc.stages)
		clear(rc.users)
		rc.version = v
	}
	for _, id := range want {
		if e, ok := cache[id]; ok && time.Since(e.fetched) < refTTL {
			out[id] = e.v
		} else if !asked[id] {
			asked[id] = true
			missing = append(missing, id)
		}
	}
	rc.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	rows, err := load(missing)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	fresh := sig.Version() == v // else a change raced the read: use it, do not keep it
	for _, row := range rows {
		out[idOf(row)] = row
		if fresh {
			cache[idOf(row)] = ref[T]{v: row, fetched: now}
		}
	}
	return out, nil
}
