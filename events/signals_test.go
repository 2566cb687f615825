package events_test

import (
	"context"
	"testing"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Each store has its own signals: events committed through one wake its
// worker alone, and a stage or key changed through one moves its versions
// alone. Two stores in one process (tests open many, a process may open
// a replica's) never hear each other.
func TestWakeAndVersionsArePerStore(t *testing.T) {
	a, b := storetest.Open(t), storetest.Open(t)
	drain(a)
	drain(b)
	version, keys := b.Client.Signals.Version(), b.Client.Signals.KeysVersion()
	org, _, err := store.CreateOrganization(context.Background(), a.Client, "Signals Co")
	if err != nil {
		t.Fatal(err)
	}
	if a.Client.Signals.Version() == 0 {
		t.Error("creating an organization's stages did not move its store's version on")
	}
	if b.Client.Signals.Version() != version || b.Client.Signals.KeysVersion() != keys {
		t.Error("a change through one store moved another store's versions on")
	}
	drain(a)
	ctx := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: org.ID, Scopes: viewer.AllScopes})
	err = store.WithTx(ctx, a.Client, func(ctx context.Context, tx *ent.Client) error {
		return events.Emit(ctx, tx, org.ID, event.LeadCreated, map[string]any{"id": org.ID.String()})
	})
	if err != nil {
		t.Fatal(err)
	}
	if !drain(a) {
		t.Error("an event committed through a store did not wake its worker")
	}
	if drain(b) {
		t.Error("an event committed through one store woke another store's worker")
	}
}

// drain reports whether db's worker wake-up was signalled, and consumes it.
func drain(db *store.DB) bool {
	select {
	case <-db.Client.Signals.Woken():
		return true
	default:
		return false
	}
}
