package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/root"
	"github.com/lendingpipe/svc/seed"
	"github.com/lendingpipe/svc/webhooks"
	"github.com/lendingpipe/svc/webhooks/autorun"
)

// The lending writes as the dashboard makes them: GraphQL mutations over
// loopback HTTP from 8 concurrent clients, each in its transaction with its
// outbox rows, on an organization of 100,000 leads with a year's lending
// book. Each reports sustained throughput and latency; what a write needs
// first (a submission to decide, an approval to fund, a deal to pay) is
// made before the clock starts.

const (
	lendingBenchLeads   = 100_000
	lendingBenchLenders = 8
)

type lendingBench struct {
	url, key string
	db       *store.DB
	orgID    uuid.UUID
	client   *http.Client
	leads    []uuid.UUID
	lenders  []string
	next     atomic.Int64 // the next (lead, lender) pair to submit
}

// setupLendingBench seeds a database as svc seed does, in a handle of its
// own, then serves it as svc serve does: the HTTP root and the worker that
// fans out the outbox. The benchmarks of one run share it.
//
// Without rollups the organization's rollups are left unbuilt, as before
// its first rebuild: the hooks read the organization's rollup zone and add
// nothing, so the two runs price what the rollups add to each write.
func setupLendingBench(b *testing.B, rollups bool) *lendingBench {
	ctx, stop := context.WithCancel(context.Background())
	url := storetest.URL(b)
	seeding, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	org, key := resttest.OrgWithKey(b, seeding, "Bench", viewer.AllScopes...)
	start := time.Now()
	if _, err := seed.LeadsWithLending(viewer.WithBulkLoad(ctx), seeding, org.ID, lendingBenchLeads, nil); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d leads with their lending book in %s", lendingBenchLeads, time.Since(start).Round(time.Millisecond))
	if !rollups {
		if err := seeding.Client.Organization.UpdateOneID(org.ID).ClearRollupZone().Exec(rule.SystemContext(ctx)); err != nil {
			b.Fatal(err)
		}
	}
	seeding.Close()

	db, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	hooks := webhooks.DefaultConfig()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := httptest.NewServer(root.Handler(rest.Config{RateLimit: 1 << 30, RateWindow: time.Minute, MaxBodyBytes: 1 << 20,
		Now: time.Now, Webhooks: hooks}, db, logger))
	done := make(chan struct{})
	go func() { autorun.Background(ctx, db, hooks, time.Now, logger); close(done) }()
	b.Cleanup(func() { srv.Close(); stop(); <-done; db.Close() })

	lb := &lendingBench{url: srv.URL, key: key, db: db, orgID: org.ID, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	if lb.leads, err = db.Client.Lead.Query().Where(lead.OrgID(org.ID)).Limit(50_000).IDs(rule.SystemContext(ctx)); err != nil {
		b.Fatal(err)
	}
	// Lenders of its own, so every pair of a lead and one of them is free
	// to submit; no box, so no warnings.
	for i := range lendingBenchLenders {
		data := lb.mutate(b, `mutation($in: CreateLenderInput!) { createLender(input: $in) { id } }`,
			map[string]any{"in": map[string]any{"name": fmt.Sprintf("Bench Lender %d", i), "products": []string{"mca"}, "commissionRate": "0.08"}})
		lb.lenders = append(lb.lenders, data["createLender"].(map[string]any)["id"].(string))
	}
	return lb
}

// mutate runs one GraphQL operation and fails on any error.
func (lb *lendingBench) mutate(tb testing.TB, query string, vars map[string]any) map[string]any {
	raw, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest("POST", lb.url+"/graphql", bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+lb.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := lb.client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data   map[string]any `json:"data"`
		Errors []any          `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK || len(out.Errors) > 0 {
		tb.Fatalf("%s: %d %v %v", query, resp.StatusCode, err, out.Errors)
	}
	return out.Data
}

const (
	submitMutation = `mutation($in: SubmitApplicationInput!) { submitApplication(input: $in) { id status } }`
	decideMutation = `mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, interestRate: "1.35", rateType: factor,
		termMonths: 9, paymentFrequency: daily}) { id status approvedAmount } }`
	fundMutation = `mutation($id: ID!) { fundDeal(input: {applicationId: $id}) { id fundedAmount expectedCommission commissionId fundedAt } }`
	payMutation  = `mutation($id: ID!) { recordCommissionPayment(input: {dealId: $id, amount: "100.00", reference: "bench"}) { id status paidAmount } }`
)

// submit submits the next free pair and returns the application's id.
func (lb *lendingBench) submitBody() string {
	k := int(lb.next.Add(1))
	lender := lb.lenders[(k/len(lb.leads))%len(lb.lenders)]
	raw, _ := json.Marshal(map[string]any{"query": submitMutation, "variables": map[string]any{"in": map[string]any{
		"leadId": lb.leads[k%len(lb.leads)], "lenderId": lender, "product": "mca", "requestedAmount": "40000"}}})
	return string(raw)
}

// prepare makes n records, each the input of the measured write, with the
// writes before it (8 clients, unmeasured).
func (lb *lendingBench) prepare(b *testing.B, n int, steps ...func(id string) (string, string)) []string {
	ids := make([]string, n)
	var wg sync.WaitGroup
	var k atomic.Int64
	for range 8 {
		wg.Go(func() {
			for i := int(k.Add(1)) - 1; i < n; i = int(k.Add(1)) - 1 {
				var v struct {
					Data map[string]map[string]any `json:"data"`
				}
				if err := json.Unmarshal(lb.post(b, lb.submitBody()), &v); err != nil {
					b.Error(err)
					return
				}
				id := v.Data["submitApplication"]["id"].(string)
				for _, step := range steps {
					query, field := step(id)
					if err := json.Unmarshal(lb.post(b, query), &v); err != nil || v.Data[field] == nil {
						b.Errorf("%s: %v", field, err)
						return
					}
					id = v.Data[field]["id"].(string)
				}
				ids[i] = id
			}
		})
	}
	wg.Wait()
	return ids
}

func gqlBody(query, id string) string {
	raw, _ := json.Marshal(map[string]any{"query": query, "variables": map[string]any{"id": id}})
	return string(raw)
}

func decideStep(id string) (string, string) { return gqlBody(decideMutation, id), "decideApplication" }
func fundStep(id string) (string, string)   { return gqlBody(fundMutation, id), "fundDeal" }

// post sends one GraphQL body and returns the answer, failing on an error.
func (lb *lendingBench) post(b *testing.B, body string) []byte {
	req, _ := http.NewRequest("POST", lb.url+"/graphql", bytes.NewBufferString(body))
	req.Header.Set("Authorization", "Bearer "+lb.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := lb.client.Do(req)
	if err != nil {
		b.Error(err)
		return nil
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || bytes.Contains(raw, []byte(`"errors":`)) {
		b.Errorf("status %d: %s", resp.StatusCode, raw)
	}
	return raw
}

// measure runs body(i) for i < b.N from 8 clients and reports throughput
// and latency, then checks that every write left its event.
func (lb *lendingBench) measure(b *testing.B, event string, body func(i int) string) {
	sys := rule.SystemContext(context.Background())
	events := func() int {
		n, err := lb.db.Client.WebhookEvent.Query().Where(webhookevent.OrgID(lb.orgID), webhookevent.EventType(event)).Count(sys)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	lb.drain(b)
	before := events()
	var (
		mu  sync.Mutex
		lat []time.Duration
		n   atomic.Int64
	)
	b.SetParallelism(4) // 4 × GOMAXPROCS(2) = 8 concurrent clients
	b.ResetTimer()
	cpu0 := cpuTime()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			i := int(n.Add(1)) - 1
			t0 := time.Now()
			lb.post(b, body(i))
			mine = append(mine, time.Since(t0))
		}
		mu.Lock()
		lat = append(lat, mine...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	b.StopTimer()
	if got := events() - before; got != b.N {
		b.Errorf("%d %s events for %d writes", got, event, b.N)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	// The process's CPU per write (server, worker and clients): steadier
	// than throughput on a machine others share.
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// drain waits for the worker to fan out every event written so far, then
// on SQLite checkpoints the WAL, so the measured writes share the machine
// with neither the backlog of the writes before them nor the copying of
// their pages: each run pays for its own.
func (lb *lendingBench) drain(b *testing.B) {
	sys := rule.SystemContext(context.Background())
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		busy, err := lb.db.Client.WebhookEvent.Query().Where(events.Undispatched()).Exist(sys)
		if err != nil {
			b.Fatal(err)
		}
		if !busy {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("the worker left events undispatched for a minute")
		}
	}
	if lb.db.Dialect == dialect.SQLite {
		var busy, frames, copied int
		if err := lb.db.SQL.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuTime is the CPU this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLendingWrites measures each write with the analytics rollups
// kept in its transaction (Rollups), and on a database of its own without
// them (NoRollups). The two databases are set up first and each write runs
// on one then the other, back to back: what the rollups cost is compared
// over seconds, not across the minutes a machine's speed may drift in.
func BenchmarkLendingWrites(b *testing.B) {
	benches := []struct {
		name string
		lb   *lendingBench
	}{{"Rollups", setupLendingBench(b, true)}, {"NoRollups", setupLendingBench(b, false)}}
	// Each write runs on one database, on the other twice, then on the
	// first again (ABBA): whichever place in a pair runs quicker, each
	// database takes both places once.
	order := []int{0, 1, 1, 0}
	each := func(name string, run func(b *testing.B, lb *lendingBench)) {
		b.Run(name, func(b *testing.B) {
			for _, i := range order {
				b.Run(benches[i].name, func(b *testing.B) {
					// The other database's worker may still be fanning out
					// the events of the run before: it shares the process.
					for _, other := range benches {
						other.lb.drain(b)
					}
					run(b, benches[i].lb)
				})
			}
		})
	}
	each("Submit", func(b *testing.B, lb *lendingBench) {
		lb.measure(b, "application.submitted", func(int) string { return lb.submitBody() })
	})
	each("Decide", func(b *testing.B, lb *lendingBench) {
		ids := lb.prepare(b, b.N)
		lb.measure(b, "application.approved", func(i int) string { return gqlBody(decideMutation, ids[i]) })
	})
	each("Fund", func(b *testing.B, lb *lendingBench) {
		ids := lb.prepare(b, b.N, decideStep)
		lb.measure(b, "deal.funded", func(i int) string { return gqlBody(fundMutation, ids[i]) })
	})
	each("Pay", func(b *testing.B, lb *lendingBench) {
		ids := lb.prepare(b, b.N, decideStep, fundStep)
		lb.measure(b, "deal.commission_paid", func(i int) string { return gqlBody(payMutation, ids[i]) })
	})
}
