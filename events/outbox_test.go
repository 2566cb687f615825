package events_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
)

// The events of a transaction are written at its commit, in the order
// they were emitted and as they were given; a transaction rolled back
// writes none, and one whose events cannot be written does not commit.
func TestTransactionEvents(t *testing.T) {
	db := storetest.Open(t)
	org, _, err := store.CreateOrganization(context.Background(), db.Client, "Outbox Co")
	if err != nil {
		t.Fatal(err)
	}
	ctx := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: org.ID, Scopes: viewer.AllScopes})
	sys := rule.SystemContext(ctx)
	outboxRows := func(t *testing.T) []*ent.WebhookEvent {
		t.Helper()
		evs, err := db.Client.WebhookEvent.Query().Where(webhookevent.OrgID(org.ID)).
			Order(webhookevent.ByID()).All(sys)
		if err != nil {
			t.Fatal(err)
		}
		return evs
	}
	types := func(evs []*ent.WebhookEvent) []string {
		var out []string
		for _, ev := range evs {
			out = append(out, ev.EventType)
		}
		return out
	}

	t.Run("Committed", func(t *testing.T) {
		before := len(outboxRows(t))
		exclude := uuid.New()
		err := store.WithTx(ctx, db.Client, func(ctx context.Context, tx *ent.Client) error {
			if err := events.Emit(ctx, tx, org.ID, "test.first", map[string]any{"n": 1}); err != nil {
				return err
			}
			if err := events.EmitEach(ctx, tx, org.ID, map[string]any{"n": 2}, "test.second", "test.third"); err != nil {
				return err
			}
			return events.EmitExcept(ctx, tx, org.ID, "test.fourth", map[string]any{"n": 4}, &exclude)
		})
		if err != nil {
			t.Fatal(err)
		}
		evs := outboxRows(t)[before:]
		if got, want := types(evs), []string{"test.first", "test.second", "test.third", "test.fourth"}; !slices.Equal(got, want) {
			t.Fatalf("events %v, want %v", got, want)
		}
		for i, n := range []float64{1, 2, 2, 4} {
			if evs[i].Data["n"] != n || evs[i].OrgID != org.ID || evs[i].Dispatched {
				t.Errorf("event %d: %+v", i, evs[i])
			}
		}
		if evs[3].ExcludeSubscriptionID == nil || *evs[3].ExcludeSubscriptionID != exclude || evs[0].ExcludeSubscriptionID != nil {
			t.Errorf("excluded subscriptions %v, %v", evs[0].ExcludeSubscriptionID, evs[3].ExcludeSubscriptionID)
		}
		for i := 1; i < len(evs); i++ {
			if evs[i].OccurredAt.Before(evs[i-1].OccurredAt) {
				t.Errorf("event %d occurred before the one emitted before it", i)
			}
		}
	})

	t.Run("RolledBack", func(t *testing.T) {
		before := len(outboxRows(t))
		rollback := errors.New("rolled back by the test")
		err := store.WithTx(ctx, db.Client, func(ctx context.Context, tx *ent.Client) error {
			if err := events.Emit(ctx, tx, org.ID, "test.rolled_back", map[string]any{}); err != nil {
				return err
			}
			return rollback
		})
		if !errors.Is(err, rollback) {
			t.Fatalf("WithTx: %v", err)
		}
		if n := len(outboxRows(t)); n != before {
			t.Errorf("%d events written by a rolled-back transaction", n-before)
		}
	})

	t.Run("UnwritableEventFailsTheCommit", func(t *testing.T) {
		before := len(outboxRows(t))
		err := store.WithTx(ctx, db.Client, func(ctx context.Context, tx *ent.Client) error {
			if err := tx.Organization.UpdateOneID(org.ID).SetName("Renamed Co").Exec(sys); err != nil {
				return err
			}
			if err := events.Emit(ctx, tx, org.ID, "test.fine", map[string]any{}); err != nil {
				return err
			}
			// No JSON for NaN: the event cannot be written.
			if err := events.Emit(ctx, tx, org.ID, "test.unwritable", map[string]any{"x": math.NaN()}); err != nil {
				t.Logf("refused at once: %v", err)
				return err
			}
			return nil
		})
		if err == nil {
			t.Fatal("the transaction committed")
		}
		if n := len(outboxRows(t)); n != before {
			t.Errorf("%d events written by a failed transaction", n-before)
		}
		if o, err := db.Client.Organization.Get(sys, org.ID); err != nil || o.Name != "Outbox Co" {
			t.Errorf("the failed transaction's change stayed: %v %v", o, err)
		}
	})

	// Events queued before a savepoint are written as it is taken; the
	// savepoint's own are forgotten with its rollback, or written inside
	// it, where one the outbox refuses fails the savepoint's work alone:
	// the transaction goes on to commit the rest.
	t.Run("Savepoints", func(t *testing.T) {
		before := len(outboxRows(t))
		err := store.WithTx(ctx, db.Client, func(ctx context.Context, tx *ent.Client) error {
			emit := func(typ string, data map[string]any) error { return events.Emit(ctx, tx, org.ID, typ, data) }
			savepoint := func() events.Mark {
				m, err := events.Savepoint(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return m
			}
			if err := emit("test.kept", map[string]any{}); err != nil {
				return err
			}
			rolledBack := savepoint()
			if err := emit("test.rolled_back", map[string]any{}); err != nil {
				return err
			}
			rolledBack.Forget()
			refused := savepoint()
			if err := emit("test.refused", map[string]any{"x": math.NaN()}); err != nil {
				return err
			}
			if err := refused.Write(); err == nil {
				t.Error("an unwritable event written inside its savepoint")
			}
			refused.Forget()
			written := savepoint()
			if err := emit("test.written", map[string]any{}); err != nil {
				return err
			}
			if err := written.Write(); err != nil {
				return err
			}
			n, err := tx.WebhookEvent.Query().Where(webhookevent.EventType("test.written")).Count(rule.SystemContext(ctx))
			if err != nil || n != 1 {
				t.Errorf("the savepoint's event before the commit: %d, %v", n, err)
			}
			return emit("test.last", map[string]any{})
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := types(outboxRows(t)[before:]), []string{"test.kept", "test.written", "test.last"}; !slices.Equal(got, want) {
			t.Fatalf("events %v, want %v", got, want)
		}
	})

	t.Run("OutsideATransaction", func(t *testing.T) {
		before := len(outboxRows(t))
		if err := events.Emit(ctx, db.Client, org.ID, "test.at_once", map[string]any{}); err != nil {
			t.Fatal(err)
		}
		if got := types(outboxRows(t)[before:]); !slices.Equal(got, []string{"test.at_once"}) {
			t.Errorf("events %v", got)
		}
	})

	// A transaction opened without store.WithTx keeps no state (txstate):
	// its events are written at once, in it, and go with it.
	t.Run("TransactionWithoutItsState", func(t *testing.T) {
		count := func(c *ent.Client, eventType string) int {
			n, err := c.WebhookEvent.Query().Where(webhookevent.OrgID(org.ID), webhookevent.EventType(eventType)).Count(sys)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		tx, err := db.Client.Tx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := events.Emit(ent.NewTxContext(ctx, tx), tx.Client(), org.ID, "test.unmanaged", map[string]any{}); err != nil {
			t.Fatal(err)
		}
		if n := count(tx.Client(), "test.unmanaged"); n != 1 {
			t.Errorf("%d events in the transaction before its commit, want the one written at once", n)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		if n := count(db.Client, "test.unmanaged"); n != 0 {
			t.Errorf("%d events of a rolled-back transaction were kept", n)
		}
	})
}
