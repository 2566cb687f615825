package store_test

import (
	"context"
	"testing"

	"github.com/lendingpipe/svc/ent/store"
	"github.com/lendingpipe/svc/ent/store/storetest"
)

// A database whose rollups were built in an older layout opens with every
// organization's rollups marked to rebuild, once: before they were kept by
// year (it still has the lender rollup's index of that layout), and before
// dispositions were packed into the call rollup (it still has their table).
func TestRollupsOfAnOlderLayoutAreRebuilt(t *testing.T) {
	for name, ddl := range map[string]string{
		"by month":             `CREATE INDEX lenderday_org_id_day_lender_id_slot ON lender_days (org_id, day, lender_id, slot)`,
		"dispositions by code": `CREATE TABLE disposition_days (id INTEGER PRIMARY KEY, n INTEGER)`,
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
	if err := db.RebuildRollups(ctx, org.ID); err != nil {
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
	if err := db.RebuildRollups(ctx, org.ID); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = open()
	defer db.Close()
	if stale(db) {
		t.Fatal("rollups rebuilt in the current layout are marked again")
	}
}
