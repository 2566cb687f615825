// Package outbox writes events into the mutation's own transaction (the
// outbox table), so a committed change never loses its event and a rolled-back
// one never emits, and wakes this process's delivery worker once the
// transaction commits. The schema hooks call it; it imports only ent and its
// leaf packages.
package outbox

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/apitime"
	"github.com/lendingpipe/svc/ent/commit"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/ent/viewer"
	"github.com/lendingpipe/svc/ent/webhookevent"
)

// wake tells this process's worker that events have committed. Other
// replicas find them by polling.
var wake = make(chan struct{}, 1)

// Woken is signalled when events or deliveries due now have committed;
// this process's worker waits on it.
func Woken() <-chan struct{} { return wake }

// Wake nudges the worker without blocking.
func Wake() {
	select {
	case wake <- struct{}{}:
	default:
	}
}

// Emit writes an event to the outbox through c, the client of the mutation
// that caused it, so the event commits or rolls back with the change. The
// worker is woken once the transaction in ctx commits.
func Emit(ctx context.Context, c *ent.Client, orgID uuid.UUID, eventType string, data map[string]any) error {
	return EmitExcept(ctx, c, orgID, eventType, data, nil)
}

// EmitExcept is Emit for an event that the subscription exclude must not
// receive (a subscription is not told that it was itself paused).
func EmitExcept(ctx context.Context, c *ent.Client, orgID uuid.UUID, eventType string, data map[string]any, exclude *uuid.UUID) error {
	if viewer.IsBulkLoad(ctx) {
		return nil
	}
	err := event(ctx, c, orgID, eventType, data).SetNillableExcludeSubscriptionID(exclude).Exec(ctx)
	if err != nil {
		return fmt.Errorf("writing %s to the outbox: %w", eventType, err)
	}
	commit.After(ctx, Wake)
	return nil
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
	if err := c.WebhookEvent.CreateBulk(events...).Exec(ctx); err != nil {
		return fmt.Errorf("writing %v to the outbox: %w", eventTypes, err)
	}
	commit.After(ctx, Wake)
	return nil
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
