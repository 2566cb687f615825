package store_test

import (
	"context"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
)

// The deal and payment rollups keep an index holding their sums on
// PostgreSQL alone: SQLite reads them from the table, and a database
// that had those indexes loses them when it opens.
func TestMoneySumsIndexesArePostgreSQLsAlone(t *testing.T) {
	ctx := context.Background()
	url := storetest.URL(t)
	open := func() *store.DB {
		db, err := store.Open(ctx, url, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	names := []string{"dealday_dimension_sums", "paymentday_sums"}
	has := func(db *store.DB, name string) bool {
		query := `SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?`
		if db.Dialect == dialect.Postgres {
			query = `SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1`
		}
		var n int
		if err := db.SQL.QueryRowContext(ctx, query, name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	db := open()
	if db.Dialect == dialect.SQLite {
		// As an older build left them.
		for _, ddl := range []string{
			`CREATE INDEX dealday_dimension_sums ON deal_days (org_id, grain, dimension, day, subject_id, deals)`,
			`CREATE INDEX paymentday_sums ON payment_days (org_id, day, paid, clawed_back)`,
		} {
			if _, err := db.SQL.ExecContext(ctx, ddl); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		db = open()
	}
	defer db.Close()
	for _, name := range names {
		if got, want := has(db, name), db.Dialect == dialect.Postgres; got != want {
			t.Errorf("%s on %s: present %v, want %v", name, db.Dialect, got, want)
		}
	}
}
