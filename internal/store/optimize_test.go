package store_test

import (
	"context"
	"os"
	"testing"

	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
)

// On PostgreSQL, Optimize analyzes the tables that hold rows and leaves
// the empty ones never analyzed: an empty table analyzed would be planned
// as empty until its next analysis (a foreign key's kept check would scan
// it whole as it grew), while one never analyzed is assumed a few pages.
func TestOptimizeLeavesEmptyTablesUnanalyzed(t *testing.T) {
	if os.Getenv(storetest.EnvURL) == "" {
		t.Skip("PostgreSQL only")
	}
	ctx := rule.SystemContext(context.Background())
	db := storetest.Open(t)
	if _, _, err := store.CreateOrganization(ctx, db.Client, "Analyzed"); err != nil {
		t.Fatal(err)
	}
	if err := db.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	for table, analyzed := range map[string]bool{"organizations": true, "webhook_deliveries": false, "webhook_attempts": false} {
		var tuples float64
		if err := db.SQL.QueryRowContext(ctx, `SELECT reltuples FROM pg_class WHERE relname = $1 AND relnamespace = current_schema()::regnamespace`, table).Scan(&tuples); err != nil {
			t.Fatal(err)
		}
		if got := tuples >= 0; got != analyzed {
			t.Errorf("%s: reltuples %v; analyzed %v, want %v", table, tuples, got, analyzed)
		}
	}
}

// After a bulk load the filled tables are vacuumed (their pages marked
// all-visible, so a count reads an index alone), and the empty ones left.
func TestAfterBulkLoadVacuums(t *testing.T) {
	ctx := rule.SystemContext(context.Background())
	db := storetest.Open(t)
	if _, _, err := store.CreateOrganization(ctx, db.Client, "Loaded"); err != nil {
		t.Fatal(err)
	}
	if err := db.AfterBulkLoad(ctx); err != nil {
		t.Fatal(err)
	}
	if os.Getenv(storetest.EnvURL) == "" {
		return // SQLite: Optimize, which has no visibility to show
	}
	// Whether the pages turn all-visible depends on the oldest transaction
	// of the whole database (other tests run beside this one), so what is
	// checked is that the vacuum ran.
	var vacuumed, emptyVacuumed bool
	err := db.SQL.QueryRowContext(ctx, `SELECT `+
		`(SELECT last_vacuum IS NOT NULL FROM pg_stat_user_tables WHERE relid = 'organizations'::regclass), `+
		`(SELECT last_vacuum IS NOT NULL FROM pg_stat_user_tables WHERE relid = 'webhook_deliveries'::regclass)`).Scan(&vacuumed, &emptyVacuumed)
	if err != nil {
		t.Fatal(err)
	}
	if !vacuumed || emptyVacuumed {
		t.Errorf("organizations vacuumed %v (want true), webhook_deliveries vacuumed %v (want false)", vacuumed, emptyVacuumed)
	}
}
