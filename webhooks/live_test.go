package webhooks_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/webhooks"
)

// liveOrg opens a database with one organization and returns a context
// acting for it.
func liveOrg(t *testing.T) (*store.DB, uuid.UUID, context.Context) {
	t.Helper()
	db := storetest.Open(t)
	org, _, err := store.CreateOrganization(context.Background(), db.Client, "Live")
	if err != nil {
		t.Fatal(err)
	}
	return db, org.ID, viewer.NewContext(context.Background(), viewer.Viewer{OrgID: org.ID, Scopes: viewer.AllScopes})
}

func emit(t *testing.T, ctx context.Context, c *ent.Client, org uuid.UUID, n int) {
	t.Helper()
	for i := range n {
		if err := events.Emit(ctx, c, org, event.LeadCreated, map[string]any{"leadId": uuid.NewString(), "n": i}); err != nil {
			t.Fatal(err)
		}
	}
}

// receive reads n envelopes from s.
func receive(t *testing.T, s *webhooks.LiveSub, n int) {
	t.Helper()
	for i := range n {
		select {
		case _, ok := <-s.C:
			if !ok {
				t.Fatalf("closed after %d of %d events (overflowed: %v)", i, n, s.Overflowed())
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("event %d of %d did not arrive", i, n)
		}
	}
}

// A subscriber that stops reading holds at most LiveBuffer events: the
// next one ends it (Overflowed), while a subscriber that keeps up gets
// every event.
func TestLiveSlowSubscriberIsDropped(t *testing.T) {
	db, org, ctx := liveOrg(t)
	live := webhooks.NewLive(db.Client)
	v := viewer.Viewer{OrgID: org, Scopes: viewer.AllScopes}
	slow, stopSlow := live.Subscribe(v, nil)
	defer stopSlow()
	fast, stopFast := live.Subscribe(v, nil)
	defer stopFast()

	const batch = 100
	for range 3 {
		emit(t, ctx, db.Client, org, batch)
		receive(t, fast, batch)
	}
	n := 0
	for range slow.C {
		n++
	}
	if n != webhooks.LiveBuffer || !slow.Overflowed() {
		t.Errorf("the slow subscriber held %d events, overflowed %v; want %d and true", n, slow.Overflowed(), webhooks.LiveBuffer)
	}
	if fast.Overflowed() {
		t.Error("the subscriber that kept up was dropped")
	}
}

// A transaction rolled back announces nothing; the next one committed is
// the first event a subscriber sees.
func TestLiveRolledBackEventsAreNeverSent(t *testing.T) {
	db, org, ctx := liveOrg(t)
	live := webhooks.NewLive(db.Client)
	sub, stop := live.Subscribe(viewer.Viewer{OrgID: org, Scopes: viewer.AllScopes}, nil)
	defer stop()
	// What the bus carries, before any reading: the rolled-back event's id
	// must never be announced.
	announced := make(chan events.Committed, 10)
	defer events.ListenCommitted(db.Client.Bus, func(c events.Committed) { announced <- c })()
	failed := errors.New("rolled back on purpose")
	err := store.WithTx(ctx, db.Client, func(ctx context.Context, tx *ent.Client) error {
		if err := events.Emit(ctx, tx, org, event.LeadCreated, map[string]any{"leadId": "rolled-back"}); err != nil {
			return err
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("the transaction answered %v", err)
	}
	if len(announced) != 0 {
		t.Fatalf("a rolled-back transaction announced %v", <-announced)
	}
	err = store.WithTx(ctx, db.Client, func(ctx context.Context, tx *ent.Client) error {
		return events.Emit(ctx, tx, org, event.LeadCreated, map[string]any{"leadId": "committed"})
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-sub.C:
		if got := fmt.Sprint(ev.Data["leadId"]); got != "committed" {
			t.Fatalf("first event %v, want the committed one", ev.Data)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the committed event did not arrive")
	}
	if c := <-announced; len(c.IDs) != 1 || c.OrgID != org {
		t.Errorf("announced %+v, want the committed event alone", c)
	}
}
