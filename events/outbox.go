// Package events writes a change's webhook events into its own transaction
// (the outbox table), so a committed change never loses its event and a
// rolled-back one never emits, and runs code once that transaction has
// committed (AfterCommit): it wakes the store's delivery worker in this
// process (the client's signals), announces the events on the change bus
// and moves the store's cache versions on; other replicas find the events
// by polling. The schemas' event hooks and the flows that emit events of
// their own (lending, access, webhooks) call it; it imports only ent and the
// leaves under internal.
package events

import (
	"context"
	"fmt"
	"sync"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/text"
	"github.com/lendingpipe/svc/internal/txstate"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Emit writes an event to the outbox through c, the client of the mutation
// that caused it, so the event commits or rolls back with the change. The
// worker is woken once the transaction in ctx commits.
func Emit(ctx context.Context, c *ent.Client, orgID uuid.UUID, eventType string, data map[string]any) error {
	return EmitExcept(ctx, c, orgID, eventType, data, nil)
}

// EmitExcept is Emit for an event that the subscription exclude must not
// receive (a subscription is not told that it was itself paused).
func EmitExcept(ctx context.Context, c *ent.Client, orgID uuid.UUID, eventType string, data map[string]any, exclude *uuid.UUID) error {
	return EmitWithin(ctx, c, orgID, eventType, data, exclude, nil)
}

// EmitWithin is EmitExcept for an event that only the subscriptions of
// the app installation only receive, when only is set: an app's endpoint
// paused is told to the app's other endpoints, not to the organization's.
func EmitWithin(ctx context.Context, c *ent.Client, orgID uuid.UUID, eventType string, data map[string]any, exclude, only *uuid.UUID) error {
	if viewer.IsBulkLoad(ctx) {
		return nil
	}
	ev := event(ctx, c, orgID, eventType, data).SetNillableExcludeSubscriptionID(exclude).SetNillableOnlyInstallationID(only)
	return write(ctx, c, eventType, data, ev)
}

// EmitEach is Emit for several events of one change with the same data (a
// lead's stage move is lead.status_changed and lead.stage_changed), written
// in one statement, in the order of eventTypes.
func EmitEach(ctx context.Context, c *ent.Client, orgID uuid.UUID, data map[string]any, eventTypes ...string) error {
	if viewer.IsBulkLoad(ctx) || len(eventTypes) == 0 {
		return nil
	}
	events := make([]*ent.WebhookEventCreate, len(eventTypes))
	for i, t := range eventTypes {
		events[i] = event(ctx, c, orgID, t, data)
	}
	return write(ctx, c, fmt.Sprint(eventTypes), data, events...)
}

// write queues events for the commit of the transaction in ctx (queue),
// or, outside one, writes them at once.
func write(ctx context.Context, c *ent.Client, what string, data map[string]any, events ...*ent.WebhookEventCreate) error {
	if tx := ent.TxFromContext(ctx); tx != nil && deferrable(ctx, data, events[0]) && queue(ctx, tx, c, events) {
		return nil
	}
	if err := create(ctx, c, events); err != nil {
		return fmt.Errorf("writing %s to the outbox: %w", what, err)
	}
	AfterCommit(ctx, func() {
		c.Signals.Wake()
		announce(c.Bus, events)
	})
	return nil
}

// create writes events in one statement.
func create(ctx context.Context, c *ent.Client, events []*ent.WebhookEventCreate) error {
	if len(events) == 1 {
		return events[0].Exec(ctx)
	}
	return c.WebhookEvent.CreateBulk(events...).Exec(ctx)
}

// A transaction's events are written together, in one multi-row INSERT
// just before it commits, rather than one statement per Emit: SQLite runs
// one writing transaction at a time, and each statement a write holds the
// writer for delays every other write. The events keep the order they
// were emitted in, and the values they were given (the callers build each
// data map for its event and change it no more); a transaction that rolls
// back writes none (nor does a savepoint rolled back, through Savepoint),
// and one whose INSERT fails rolls back instead of committing. Nothing
// reads the outbox in the transaction that writes it (the worker reads it
// in transactions of its own).
type pending struct {
	mu sync.Mutex
	// ctx and c are the first Emit's: what the INSERT runs with. Every
	// event was checked against the outbox's policy in its own context
	// when it was emitted (deferrable).
	ctx    context.Context
	c      *ent.Client
	tx     *ent.Tx // the transaction the state was opened for
	events []*ent.WebhookEventCreate
	// written are the events inserted so far, announced once the
	// transaction commits.
	written []*ent.WebhookEventCreate
	ended   bool // flushed or rolled back: later events are written at once
}

// pendingKey keeps a transaction's pending events in its state (txstate).
type pendingKey struct{}

// deferrable reports whether an event may wait for the commit: whether
// what the outbox's rules check of it, its context against the policy and
// its text for NUL characters, passes. One that fails is written at once,
// to fail now with the error it always has.
func deferrable(ctx context.Context, data map[string]any, ev *ent.WebhookEventCreate) bool {
	return webhookevent.Policy.EvalMutation(ctx, ev.Mutation()) == nil && !text.HasNUL(data)
}

// queue adds events to the transaction's pending events, registering the
// write at its commit with the first. It reports false once the
// transaction has begun to end, or when it keeps no state (one not opened
// by store.WithTx): the events are then written at once.
func queue(ctx context.Context, tx *ent.Tx, c *ent.Client, events []*ent.WebhookEventCreate) bool {
	p, loaded, ok := txstate.LoadOrStore(ctx, pendingKey{}, &pending{ctx: ctx, c: c, tx: tx})
	if !ok || p.tx != tx {
		return false // no state, or the state of another transaction than ctx's
	}
	p.mu.Lock()
	if p.ended {
		p.mu.Unlock()
		return false
	}
	p.events = append(p.events, events...)
	p.mu.Unlock()
	if loaded {
		return true
	}
	tx.OnCommit(func(next ent.Committer) ent.Committer {
		return ent.CommitFunc(func(ctx context.Context, tx *ent.Tx) error {
			if err := p.flush(); err != nil {
				if rerr := tx.Rollback(); rerr != nil {
					err = fmt.Errorf("%w (rolling back: %v)", err, rerr)
				}
				return err
			}
			if err := next.Commit(ctx, tx); err != nil {
				return err
			}
			p.c.Signals.Wake()
			announce(p.c.Bus, p.written)
			return nil
		})
	})
	tx.OnRollback(func(next ent.Rollbacker) ent.Rollbacker {
		return ent.RollbackFunc(func(ctx context.Context, tx *ent.Tx) error {
			p.drop()
			return next.Rollback(ctx, tx)
		})
	})
	return true
}

// maxBatch bounds the rows of one INSERT (a row is up to 8 values; SQLite
// takes at most 32,766 per statement).
const maxBatch = 1000

// flush writes the pending events, in the order they were emitted.
func (p *pending) flush() error {
	p.mu.Lock()
	events := p.events
	p.events, p.ended = nil, true
	p.mu.Unlock()
	return p.insert(events)
}

// insert writes events, in order, in statements of at most maxBatch rows.
func (p *pending) insert(events []*ent.WebhookEventCreate) error {
	for len(events) > 0 {
		batch := events[:min(len(events), maxBatch)]
		events = events[len(batch):]
		if err := create(p.ctx, p.c, batch); err != nil {
			return fmt.Errorf("writing the transaction's events to the outbox: %w", err)
		}
		p.mu.Lock()
		p.written = append(p.written, batch...)
		p.mu.Unlock()
	}
	return nil
}

// take removes the queued events from the queue.
func (p *pending) take() []*ent.WebhookEventCreate {
	p.mu.Lock()
	defer p.mu.Unlock()
	events := p.events
	p.events = nil
	return events
}

// A Mark holds the events queued in a transaction from a savepoint on.
type Mark struct{ ctx context.Context }

// Savepoint writes the events the transaction in ctx has queued so far,
// which belong before a savepoint, and marks the queue for the savepoint:
// call it before taking the savepoint. Outside a transaction it does
// nothing.
func Savepoint(ctx context.Context) (Mark, error) {
	m := Mark{ctx: ctx}
	if p := m.pending(); p != nil {
		if err := p.insert(p.take()); err != nil {
			return m, err
		}
	}
	return m, nil
}

// Write writes the events queued since the savepoint, inside it: one the
// outbox refuses fails the savepoint's work, which can roll back to it,
// rather than the whole transaction's commit.
func (m Mark) Write() error {
	if p := m.pending(); p != nil {
		return p.insert(p.take())
	}
	return nil
}

// Forget drops the events queued since the savepoint, as a rollback to it
// undoes the rest of their change.
func (m Mark) Forget() {
	if p := m.pending(); p != nil {
		p.take()
	}
}

// pending is the transaction's queue, which its first event made (nil
// before, or outside a transaction).
func (m Mark) pending() *pending {
	p, _ := txstate.Load[*pending](m.ctx, pendingKey{})
	return p
}

// drop forgets the pending events of a transaction rolled back.
func (p *pending) drop() {
	p.mu.Lock()
	p.events, p.ended = nil, true
	p.mu.Unlock()
}

// event is the outbox row of an event, at the depth of the automation runs
// that led to it (none for a change made by a person or an API key).
func event(ctx context.Context, c *ent.Client, orgID uuid.UUID, eventType string, data map[string]any) *ent.WebhookEventCreate {
	depth := 0
	if v, ok := viewer.FromContext(ctx); ok {
		depth = v.Depth
	}
	return c.WebhookEvent.Create().SetOrgID(orgID).SetEventType(eventType).SetData(data).SetDepth(depth).
		SetOccurredAt(apitime.Now(ctx))
}

// Actor names who made a change: the API key's id, "automation:<id>", or
// "system".
func Actor(ctx context.Context) *string {
	s := "system"
	if v, ok := viewer.FromContext(ctx); ok && v.Actor() != "" {
		s = v.Actor()
	}
	return &s
}

// Undispatched selects the outbox's events not yet fanned out. ent writes
// a boolean equality (webhookevent.Dispatched(false), even sql.FieldEQ) as
// `NOT dispatched`, which SQLite cannot answer from the (dispatched,
// occurred_at) index: every dispatch scanned the whole outbox, which grows
// by every change (half the server's time under a dialer load). An explicit
// `dispatched = ?` is an index range on both databases.
func Undispatched() predicate.WebhookEvent {
	return func(s *sql.Selector) {
		s.Where(sql.P(func(b *sql.Builder) {
			b.Ident(s.C(webhookevent.FieldDispatched)).WriteOp(sql.OpEQ).Arg(false)
		}))
	}
}
