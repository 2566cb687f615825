package store_test

import (
	"context"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
)

// A start of a database already migrated builds no index again: the
// partial unique index on open applications is the same object after a
// second start (on PostgreSQL ent's migration used to drop and build it
// at every start, locking the applications meanwhile).
func TestRestartKeepsTheOpenApplicationIndex(t *testing.T) {
	ctx := context.Background()
	url := storetest.URL(t)
	identity := func() string {
		db, err := store.Open(ctx, url, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		query := `SELECT CAST(rootpage AS TEXT) || sql FROM sqlite_master WHERE type = 'index' AND name = 'application_lead_id_lender_id'`
		if db.Dialect == dialect.Postgres {
			query = `SELECT CAST(CAST(CAST('application_lead_id_lender_id' AS regclass) AS oid) AS text) || pg_get_indexdef(CAST('application_lead_id_lender_id' AS regclass))`
		}
		var id string
		if err := db.SQL.QueryRowContext(ctx, query).Scan(&id); err != nil {
			t.Fatalf("reading the open application index: %v", err)
		}
		return id
	}
	first := identity()
	if second := identity(); second != first {
		t.Fatalf("the second start built the index again: %s, then %s", first, second)
	}
	t.Log(first)
}
