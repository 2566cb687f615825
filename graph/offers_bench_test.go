package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/root"
	"github.com/lendingpipe/svc/seed"
)

// offersBenchLeads is the organization the offers are read in: leads with
// a year's lending book, so the applications' lead_id index is a real one.
const offersBenchLeads = 100_000

// BenchmarkLeadOffers reads one lead's four approved offers side by side,
// as the lead page does: Lead.offers over GraphQL, and GET
// /v1/leads/{id}/offers, through the whole handler stack in process (the
// time is server time). It reports p50 and p99 beside ns/op.
func BenchmarkLeadOffers(b *testing.B) {
	ctx := context.Background()
	db := storetest.Open(b)
	org, key := resttest.OrgWithKey(b, db, "Bench", viewer.AllScopes...)
	start := time.Now()
	if _, err := seed.LeadsWithLending(viewer.WithBulkLoad(ctx), db, org.ID, offersBenchLeads, nil); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d leads with their lending book in %s", offersBenchLeads, time.Since(start).Round(time.Millisecond))
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
	id := func(raw []byte, path ...string) string {
		var v any
		_ = json.Unmarshal(raw, &v)
		for _, p := range path {
			v = v.(map[string]any)[p]
		}
		return v.(string)
	}
	lead := id(call(b, "POST", "/v1/leads", `{"businessName":"Bench Offers Bakery","requestedAmount":"50000"}`), "data", "id")
	for i, terms := range []string{
		`interestRate: "1.35", rateType: factor, termMonths: 9, paymentFrequency: daily`,
		`interestRate: "1.28", rateType: factor, termMonths: 12, paymentFrequency: weekly`,
		`interestRate: "0.189", rateType: apr, termMonths: 24, paymentFrequency: monthly`,
		`interestRate: "1.4", rateType: factor, termMonths: 6, paymentFrequency: daily, conditions: ["Voided check"]`,
	} {
		lender := id(call(b, "POST", "/graphql", gqlBody(`mutation($n: String!) { createLender(input: {name: $n}) { id } }`,
			map[string]any{"n": fmt.Sprintf("Offers Bench Lender %d", i)})), "data", "createLender", "id")
		app := id(call(b, "POST", "/graphql", gqlBody(`mutation($l: ID!, $r: ID!) { submitApplication(input: {leadId: $l, lenderId: $r}) { id } }`,
			map[string]any{"l": lead, "r": lender})), "data", "submitApplication", "id")
		call(b, "POST", "/graphql", gqlBody(`mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, `+terms+`}) { id } }`,
			map[string]any{"id": app}))
	}
	query := gqlBody(`query($id: ID!) { lead(id: $id) { offers { applicationId lenderId lenderName approvedAmount rateType interestRate
		termMonths paymentFrequency paybackAmount payments paymentAmount costOfCapital readyToFund } } }`, map[string]any{"id": lead})
	if got := strings.Count(string(call(b, "POST", "/graphql", query)), "applicationId"); got != 4 {
		b.Fatalf("%d offers, want 4", got)
	}
	b.Run("GraphQL", func(b *testing.B) {
		measureLatency(b, func() { call(b, "POST", "/graphql", query) })
	})
	b.Run("REST", func(b *testing.B) {
		measureLatency(b, func() { call(b, "GET", "/v1/leads/"+lead+"/offers", "") })
	})
}

// measureLatency runs op b.N times and reports p50 and p99 beside ns/op.
func measureLatency(b *testing.B, op func()) {
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		op()
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
