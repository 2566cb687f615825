package renewals_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/renewals"
	"github.com/lendingpipe/svc/seed"
)

// The renewal queue's first page (20 deals, with the exact total) on an
// organization of SVC_BENCH_RENEWAL_LEADS leads (100,000 unless set) with
// a year's lending book, as svc seed makes it: the whole queue, and one
// advisor's. Each reports p50 and p99 over its iterations.
func BenchmarkRenewalQueue(b *testing.B) {
	n := 100_000
	if v := os.Getenv("SVC_BENCH_RENEWAL_LEADS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	db := storetest.Open(b)
	org, _, err := store.CreateOrganization(ctx, db.Client, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if _, err := seed.LeadsWithLending(viewer.WithBulkLoad(ctx), db, org.ID, n, nil); err != nil {
		b.Fatal(err)
	}
	if err := db.Optimize(ctx); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d leads with their lending book in %s", n, time.Since(start).Round(time.Millisecond))
	as := viewer.NewContext(ctx, viewer.Viewer{OrgID: org.ID, KeyID: uuid.New(), Scopes: viewer.AllScopes})
	advisor, err := db.Client.User.Query().Where(user.OrgID(org.ID), user.RoleEQ(user.RoleAdvisor)).FirstID(rule.SystemContext(ctx))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		f    renewals.Filter
	}{{"All", renewals.Filter{}}, {"Advisor", renewals.Filter{AdvisorID: &advisor}}} {
		b.Run(c.name, func(b *testing.B) {
			var took []time.Duration
			total := 0
			for b.Loop() {
				t0 := time.Now()
				p, err := renewals.Queue(as, db.Client, c.f, 0, 20)
				took = append(took, time.Since(t0))
				if err != nil || len(p.Entries) == 0 {
					b.Fatalf("%d entries, %v", len(p.Entries), err)
				}
				total = p.Total
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(total), "queued")
		})
	}
}
