package store_test

import (
	"context"
	"sync"
	"testing"

	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/seed"
)

// The maintained lead count equals a real count after concurrent creations
// (they share an organization's slots), and a database whose counts are
// missing is counted again when it is opened.
func TestLeadTotal(t *testing.T) {
	ctx := context.Background()
	url := storetest.URL(t)
	db, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	org, _, err := store.CreateOrganization(ctx, db.Client, "Counted")
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := store.CreateOrganization(ctx, db.Client, "Other")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() { errs <- seed.Leads(ctx, db, org.ID, 150, nil) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// The seeding command's bulk load counts a batch at once.
	if err := seed.Leads(viewer.WithBulkLoad(ctx), db, other.ID, 7, nil); err != nil {
		t.Fatal(err)
	}
	if n, err := db.LeadTotal(ctx, other.ID); err != nil || n != 7 {
		t.Fatalf("bulk-loaded org: %d, %v", n, err)
	}
	check := func(db *store.DB, when string) {
		t.Helper()
		want, err := db.Client.Lead.Query().Where(lead.OrgID(org.ID)).Count(rule.SystemContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		got, err := db.LeadTotal(ctx, org.ID)
		if err != nil || got != want || want != 1200 {
			t.Fatalf("%s: LeadTotal = %d, %v; counted %d, want 1200", when, got, err, want)
		}
	}
	check(db, "after concurrent creations")

	if _, err := db.Client.LeadCount.Delete().Exec(rule.SystemContext(ctx)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	reopened, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer reopened.Close()
	check(reopened, "after the backfill")
	if n, err := reopened.LeadTotal(ctx, other.ID); err != nil || n != 7 {
		t.Fatalf("other org: %d, %v", n, err)
	}
}
