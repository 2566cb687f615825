package store_test

import (
	"context"
	"strings"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/lendingpipe/svc/analytics"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
)

// A database whose rollups were built in an older layout opens with every
// organization's rollups marked to rebuild, once: before they were kept by
// year (it still has the lender rollup's index of that layout), and before
// dispositions were packed into the call rollup (it still has their table),
// before the kept counts held the board's requested sums, and before the
// deal rollup held the renewal figures.
func TestRollupsOfAnOlderLayoutAreRebuilt(t *testing.T) {
	for name, ddl := range map[string]string{
		"by month":             `CREATE INDEX lenderday_org_id_day_lender_id_slot ON lender_days (org_id, day, lender_id, slot)`,
		"dispositions by code": `CREATE TABLE disposition_days (id INTEGER PRIMARY KEY, n INTEGER)`,
		// Before the board's totals: the counts without their sums.
		"counts without sums": `ALTER TABLE lead_counts DROP COLUMN requested`,
		// Before the reports' renewal figures: the deal rollup without them.
		"deals without renewals": `ALTER TABLE deal_days DROP COLUMN renewal_deals`,
	} {
		t.Run(name, func(t *testing.T) { olderLayoutRebuilt(t, ddl) })
	}
}

func olderLayoutRebuilt(t *testing.T, ddl string) {
	ctx := context.Background()
	url := storetest.URL(t)
	open := func() *store.DB {
		db, err := store.Open(ctx, url, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	org, _, err := store.CreateOrganization(ctx, db.Client, "Older")
	if err != nil {
		t.Fatal(err)
	}
	if err := analytics.RebuildRollups(ctx, db.Client, org.ID); err != nil {
		t.Fatal(err)
	}
	stale := func(db *store.DB) bool {
		ids, err := db.StaleRollups(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if id == org.ID {
				return true
			}
		}
		return false
	}
	if stale(db) {
		t.Fatal("rollups just rebuilt are stale")
	}
	if _, err := db.SQL.ExecContext(ctx, ddl); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = open()
	if !stale(db) {
		t.Fatal("rollups of the older layout are not marked to rebuild")
	}
	if err := analytics.RebuildRollups(ctx, db.Client, org.ID); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = open()
	defer db.Close()
	if stale(db) {
		t.Fatal("rollups rebuilt in the current layout are marked again")
	}
}

// The call rollup's indexes of an older layout, under the name ent gave
// each on either database, are dropped on open.
func TestSupersededCallIndexesDropped(t *testing.T) {
	ctx := context.Background()
	url := storetest.URL(t)
	db, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	old := map[string]string{
		"callday_org_id_span_day_user_id_slot_calls_answered_talk_seconds": "org_id, span, day, user_id, slot, calls, answered, talk_seconds",
		"callday_org_id_user_id_span_day":                                  "org_id, user_id, span, day",
	}
	if db.Dialect == dialect.Postgres {
		old["callday_org_id_span_day_user_i_44561b6a932c2dd0bdc97812d3018870"] = old["callday_org_id_span_day_user_id_slot_calls_answered_talk_seconds"]
		delete(old, "callday_org_id_span_day_user_id_slot_calls_answered_talk_seconds")
	}
	for name, cols := range old {
		if _, err := db.SQL.ExecContext(ctx, `CREATE INDEX `+name+` ON call_days (`+cols+`)`); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	db, err = store.Open(ctx, url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'call_days'`
	if db.Dialect == dialect.Postgres {
		q = `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'call_days'`
	}
	rows, err := db.SQL.QueryContext(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		if _, ok := old[name]; ok {
			t.Errorf("index %s of the older layout is still there", name)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// A PostgreSQL database of a release before the renewal figures has the
// index holding the deal rollup's sums without them: it opens with the
// index holding them too, so the reports still read that index alone.
func TestDealSumsIndexGainsRenewals(t *testing.T) {
	ctx := context.Background()
	url := storetest.URL(t)
	db, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if db.Dialect != dialect.Postgres {
		db.Close()
		t.Skip("the index is PostgreSQL's alone")
	}
	for _, ddl := range []string{
		`ALTER TABLE deal_days DROP COLUMN renewal_deals, DROP COLUMN renewal_amount, DROP COLUMN renewal_expected, DROP COLUMN renewal_paid`,
		`DROP INDEX IF EXISTS dealday_dimension_sums`,
		`CREATE INDEX dealday_dimension_sums ON deal_days (org_id, grain, dimension, day, subject_id, deals, funded_amount, expected_commission, paid, clawed_back, outstanding)`,
	} {
		if _, err := db.SQL.ExecContext(ctx, ddl); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	db, err = store.Open(ctx, url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var def string
	err = db.SQL.QueryRowContext(ctx, `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'dealday_dimension_sums'`).Scan(&def)
	if err != nil {
		t.Fatal(err)
	}
	for _, col := range []string{"renewal_deals", "renewal_amount", "renewal_expected", "renewal_paid"} {
		if !strings.Contains(def, col) {
			t.Errorf("dealday_dimension_sums lacks %s: %s", col, def)
		}
	}
}
