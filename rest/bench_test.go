package rest_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/root"
	"github.com/lendingpipe/svc/seed"
	"github.com/lendingpipe/svc/tools/loadtest"
)

// benchLeads is how many leads the benchmarks run over: 100,000.
const benchLeads = 100_000

type benchEnv struct {
	db      *store.DB
	handler http.Handler
	key     string
	ids     []uuid.UUID
}

var (
	benchOnce sync.Once
	bench     *benchEnv
)

// setupBench seeds one database shared by the lead benchmarks.
func setupBench(b *testing.B) *benchEnv {
	benchOnce.Do(func() {
		ctx := context.Background()
		db := storetest.Open(b)
		org, key := resttest.OrgWithKey(b, db, "Bench", viewer.AllScopes...)
		start := time.Now()
		if err := seed.Leads(ctx, db, org.ID, benchLeads, nil); err != nil {
			b.Fatal(err)
		}
		b.Logf("seeded %d leads in %s", benchLeads, time.Since(start).Round(time.Millisecond))
		ids, err := db.Client.Lead.Query().Where(lead.OrgID(org.ID)).Limit(1000).IDs(rule.SystemContext(ctx))
		if err != nil {
			b.Fatal(err)
		}
		cfg := rest.Config{RateLimit: 1 << 30, RateWindow: time.Minute, MaxBodyBytes: 1 << 20, Now: time.Now}
		logger := slog.New(slog.NewTextHandler(io.Discard, nil))
		bench = &benchEnv{db: db, handler: root.Handler(cfg, db, logger), key: key, ids: ids}
	})
	if bench == nil {
		b.Skip("setup failed")
	}
	return bench
}

// serve runs one request through the whole handler stack in process, so the
// time measured is server time: middleware, auth, resolvers, database.
func (e *benchEnv) serve(b *testing.B, method, path, body string, want int) {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+e.key)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	if rec.Code != want {
		b.Fatalf("%s %s: status %d: %s", method, path, rec.Code, rec.Body)
	}
}

// measure runs op b.N times and reports p50 and p99 latency next to ns/op.
func measure(b *testing.B, op func(i int)) {
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		op(i)
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

func BenchmarkLeads(b *testing.B) {
	e := setupBench(b)
	b.Run("GetByID", func(b *testing.B) {
		measure(b, func(i int) {
			e.serve(b, "GET", "/v1/leads/"+e.ids[i%len(e.ids)].String(), "", http.StatusOK)
		})
	})
	b.Run("ListPage1", func(b *testing.B) {
		measure(b, func(int) { e.serve(b, "GET", "/v1/leads", "", http.StatusOK) })
	})
	b.Run("Search", func(b *testing.B) {
		terms := []string{"acme", "summ", "harbor+truck", "priya", "granite+dental", "zen"}
		measure(b, func(i int) {
			e.serve(b, "GET", "/v1/leads?search="+terms[i%len(terms)], "", http.StatusOK)
		})
	})
	b.Run("Create", func(b *testing.B) {
		body := `{"businessName":"Bench Freight LLC","contactFirstName":"Ana","email":"ana@bench.example","requestedAmount":"50000","tags":["bench"]}`
		measure(b, func(int) { e.serve(b, "POST", "/v1/leads", body, http.StatusCreated) })
	})
}

// BenchmarkGetLead sets GET /v1/leads/{id} beside the load runner's
// baseline (one row read by key with database/sql, written as JSON) over
// the same database, so the ratio of the two is the cost of the edge,
// authentication, privacy, ent and the envelope, without the load
// generator sharing the cores.
func BenchmarkGetLead(b *testing.B) {
	e := setupBench(b)
	baseline := loadtest.Baseline(e.db)
	b.Run("Baseline", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			req := httptest.NewRequest("GET", "/leads/"+e.ids[i%len(e.ids)].String(), nil)
			rec := httptest.NewRecorder()
			baseline.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
		}
	})
	b.Run("REST", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			e.serve(b, "GET", "/v1/leads/"+e.ids[i%len(e.ids)].String(), "", http.StatusOK)
		}
	})
}
