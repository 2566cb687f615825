package rollup_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
)

// BenchmarkCreateLead creates leads, one transaction each, in an
// organization whose rollups are built: what counting a created lead
// (its day, its stage's count) adds to a create. Serial is one writer in
// a loop; Concurrent is eight, as the pool allows. The counting matters
// most on PostgreSQL (SVC_TEST_DATABASE_URL), where each statement is a
// round trip.
func BenchmarkCreateLead(b *testing.B) {
	b.Run("Serial", func(b *testing.B) {
		ctx, db := benchOrg(b)
		b.ResetTimer()
		for i := range b.N {
			createLead(b, ctx, db, i)
		}
	})
	b.Run("Concurrent", func(b *testing.B) {
		ctx, db := benchOrg(b)
		b.SetParallelism(4) // eight writers on two cores
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for i := 0; pb.Next(); i++ {
				createLead(b, ctx, db, i)
			}
		})
	})
}

// benchOrg opens a store with an organization whose rollups are built,
// and a context acting for it.
func benchOrg(b *testing.B) (context.Context, *store.DB) {
	b.Helper()
	db := storetest.Open(b)
	ctx := context.Background()
	org, _, err := store.CreateOrganization(ctx, db.Client, "Bench Brokers")
	if err != nil {
		b.Fatal(err)
	}
	if err := analytics.RebuildRollups(ctx, db.Client, org.ID); err != nil {
		b.Fatal(err)
	}
	return viewer.NewContext(ctx, viewer.Viewer{OrgID: org.ID, KeyID: uuid.New(), Scopes: viewer.AllScopes}), db
}

// createLead creates one lead in its own transaction.
func createLead(b *testing.B, ctx context.Context, db *store.DB, i int) {
	err := store.WithTx(ctx, db.Client, func(ctx context.Context, tx *ent.Client) error {
		return tx.Lead.Create().SetBusinessName(fmt.Sprintf("Bench Bakery %d", i)).SetRequestedAmount("50000").Exec(ctx)
	})
	if err != nil {
		b.Error(err)
	}
}
