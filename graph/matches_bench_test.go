package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"github.com/lendingpipe/svc/analytics"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/root"
	"github.com/lendingpipe/svc/seed"
)

// The organization the lender matches are read in: a panel of 50 lenders
// and SVC_BENCH_MATCH_LEADS leads (100,000 unless set) with a year's
// lending book, its analytics rollups built as svc seed leaves them.
const matchesBenchLenders = 50

// BenchmarkLenderMatches ranks a panel of 50 lenders for one lead, as the
// lead page's "Where to send" does: lenderMatches over GraphQL, and GET
// /v1/leads/{id}/lender-matches, through the whole handler stack in
// process (the time is server time), for a lead whose amount band and
// industry many applications share and for one no application shares
// (every lender's record is then its whole window, the lenders report's
// sums of the rollups). It reports p50 and p99 beside ns/op.
func BenchmarkLenderMatches(b *testing.B) {
	ctx := context.Background()
	db := storetest.Open(b)
	org, key := resttest.OrgWithKey(b, db, "Bench", viewer.AllScopes...)
	h := root.Handler(rest.Config{RateLimit: 1 << 30, RateWindow: time.Minute, MaxBodyBytes: 1 << 20, Now: time.Now},
		db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	call := func(tb testing.TB, method, path, body string) []byte {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if (rec.Code != http.StatusOK && rec.Code != http.StatusCreated) || strings.Contains(rec.Body.String(), `"errors"`) {
			tb.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
		}
		return rec.Body.Bytes()
	}
	gqlBody := func(query string, vars map[string]any) string {
		raw, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
		return string(raw)
	}
	// The seed shops leads to the organization's active lenders: the panel
	// made here, with boxes of every kind.
	for i := range matchesBenchLenders {
		in := map[string]any{"name": fmt.Sprintf("Bench Lender %02d", i)}
		switch i % 4 {
		case 1:
			in["maxAmount"] = "150000"
		case 2:
			in["minAmount"], in["excludedIndustries"] = "10000", []string{"Trucking"}
		case 3:
			in["minMonthlyRevenue"], in["minMonthsInBusiness"] = "15000", 12
		}
		call(b, "POST", "/graphql", gqlBody(`mutation($in: CreateLenderInput!) { createLender(input: $in) { id } }`, map[string]any{"in": in}))
	}
	leadCount := 100_000
	if v := os.Getenv("SVC_BENCH_MATCH_LEADS"); v != "" {
		var err error
		if leadCount, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
	if _, err := seed.LeadsWithLending(viewer.WithBulkLoad(ctx), db, org.ID, leadCount, nil); err != nil {
		b.Fatal(err)
	}
	if err := analytics.RebuildRollups(ctx, db.Client, org.ID); err != nil {
		b.Fatal(err)
	}
	apps, err := db.Client.Application.Query().Where(application.OrgID(org.ID)).Count(rule.SystemContext(ctx))
	if err != nil {
		b.Fatal(err)
	}
	if db.Dialect == dialect.Postgres {
		// As autovacuum leaves the tables some time after a bulk load: the
		// visibility map set, so index-only scans read no table page.
		if _, err := db.SQL.ExecContext(ctx, "VACUUM ANALYZE applications, lender_days, decision_days"); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded %d leads and %d applications to %d lenders in %s", leadCount, apps, matchesBenchLenders,
		time.Since(start).Round(time.Millisecond))
	id := func(raw []byte) string {
		var v struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		_ = json.Unmarshal(raw, &v)
		return v.Data.ID
	}
	leads := map[string]string{
		"similar": id(call(b, "POST", "/v1/leads", `{"businessName":"Bench Match Diner","requestedAmount":"600000","industry":"Restaurant & Food"}`)),
		"none":    id(call(b, "POST", "/v1/leads", `{"businessName":"Bench Match Observatory","requestedAmount":"600000","industry":"Astronomy"}`)),
	}
	query := `query($id: ID!) { lenderMatches(leadId: $id) { lenderId lenderName eligible misses { field message } unknown score basis
		components { approvalRate fundedShare medianDaysToDecision sampleSize } } }`
	for _, name := range []string{"similar", "none"} {
		lead := leads[name]
		body := gqlBody(query, map[string]any{"id": lead})
		got := string(call(b, "POST", "/graphql", body))
		if n := strings.Count(got, `"lenderId"`); n != matchesBenchLenders {
			b.Fatalf("%d matches, want %d", n, matchesBenchLenders)
		}
		b.Logf("%s: %d lenders ranked on similar applications, %d on all", name, strings.Count(got, `"basis":"similar"`), strings.Count(got, `"basis":"all"`))
		b.Run(name+"/GraphQL", func(b *testing.B) {
			measureLatency(b, func() { call(b, "POST", "/graphql", body) })
		})
		b.Run(name+"/REST", func(b *testing.B) {
			measureLatency(b, func() { call(b, "GET", "/v1/leads/"+lead+"/lender-matches", "") })
		})
	}
}
