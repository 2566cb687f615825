package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// AbuseReport is an abuse run: ordinary traffic alone, then the same
// traffic beside clients sending abusive GraphQL queries.
type AbuseReport struct {
	Alone, Beside []Result
	Abusive       []AbuseResult
	PeakRSSKiB    int
	Leads         int
}

// AbuseResult is what one kind of abusive query was answered.
type AbuseResult struct {
	Name           string
	Bytes          int // request body size
	Requests       int
	Statuses       map[int]int
	MaxLatency     time.Duration
	MaxReplyBytes  int
	FirstErrorText string
}

// abusiveQueries are the attacks a public GraphQL endpoint must survive:
// huge pages, many aliases of a large page, a flood of fields, deep
// nesting through cyclic edges, deep introspection and a query built to
// produce one error per field.
func abusiveQueries(leadID string) []struct{ name, query string } {
	repeat := func(n int, f func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(f(i))
			b.WriteByte(' ')
		}
		return b.String()
	}
	nest := func(n int, open, leaf string) string {
		return strings.Repeat(open+" { ", n) + leaf + strings.Repeat(" }", n)
	}
	return []struct{ name, query string }{
		{"page bomb: leads(first: 100000)", `{ leads(first: 100000) { edges { node { id businessName email } } } }`},
		{"alias bomb: 10 x leads(first: 100000)", "{ " + repeat(10, func(i int) string {
			return fmt.Sprintf("a%d: leads(first: 100000) { edges { node { id businessName email customFields } } }", i)
		}) + "}"},
		{"alias bomb: 50 x leads(first: 100)", "{ " + repeat(50, func(i int) string {
			return fmt.Sprintf("a%d: leads(first: 100) { edges { node { id businessName stage { stageLabel } } } }", i)
		}) + "}"},
		{"field bomb: 90,000 fields", "{ leads(first: 1) { edges { node { " + strings.Repeat("id ", 90000) + "} } } }"},
		{"depth bomb: lead > stage > leads x 40", fmt.Sprintf(`{ lead(id: %q) { %sid%s } }`, leadID,
			strings.Repeat("stage { leads(first: 100) { edges { node { ", 40), strings.Repeat(" } } } }", 40))},
		{"introspection bomb: ofType x 60", "{ __schema { types { fields { type { " + nest(60, "ofType", "name") + " } } } } }"},
		{"error bomb: 3,000 unknown fields", "{ " + repeat(3000, func(i int) string { return fmt.Sprintf("f%d: nosuchfield", i) }) + "}"},
	}
}

// RunAbuse measures ordinary requests at cfg.Rate (default 100/s) alone
// and then beside cfg.Concurrency clients sending abusive queries in a
// loop, and reports both, the abusive answers and the server's peak RSS.
func RunAbuse(ctx context.Context, cfg Config) (*AbuseReport, error) {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	if cfg.Rate <= 0 {
		cfg.Rate = 100
	}
	cfg.Replicas = 1 // the abusive clients and the ordinary ones share one server
	fx, servers, err := prepareAndServe(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer stopAll(servers)
	server := servers[0]

	rep := &AbuseReport{Leads: fx.leadCount}
	ordinary := ordinaryScenarios(fx, server.url)
	paced := cfg
	paced.Concurrency = 8
	for _, sc := range ordinary {
		rep.Alone = append(rep.Alone, attack(paced, sc))
	}
	abuseCtx, stopAbuse := context.WithCancel(ctx)
	results := make(chan []AbuseResult, 1)
	go func() { results <- abuse(abuseCtx, cfg.Concurrency, cfg.AbuseRate, server.url, fx) }()
	time.Sleep(cfg.Warmup) // the attackers are under way before measuring
	for _, sc := range ordinary {
		rep.Beside = append(rep.Beside, attack(paced, sc))
	}
	stopAbuse()
	rep.Abusive = <-results
	rep.PeakRSSKiB = peakRSS(server.cmd.Process.Pid)
	printAbuseReport(cfg, rep)
	return rep, nil
}

// ordinaryScenarios are a dashboard's and an integrator's everyday reads.
func ordinaryScenarios(fx *fixtures, server string) []scenario {
	header := http.Header{"Authorization": {"Bearer " + fx.key}, "Content-Type": {"application/json"}}
	page := []byte(`{"query":"{ leads(first: 20) { edges { node { id businessName stage { stageLabel } } } } }"}`)
	return []scenario{
		{name: "REST get lead", targeter: func(t *vegeta.Target) error {
			t.Method, t.URL, t.Header, t.Body = "GET", server+"/v1/leads/"+fx.leads[rand.IntN(len(fx.leads))].String(), header, nil
			return nil
		}},
		{name: "GraphQL leads(first: 20)", targeter: func(t *vegeta.Target) error {
			t.Method, t.URL, t.Header, t.Body = "POST", server+"/graphql", header, page
			return nil
		}},
	}
}

// abuse sends the abusive queries round-robin from n clients until ctx
// ends, together at most rate a second (0: as fast as they go).
func abuse(ctx context.Context, n, rate int, server string, fx *fixtures) []AbuseResult {
	queries := abusiveQueries(fx.leads[0].String())
	out := make([]AbuseResult, len(queries))
	bodies := make([][]byte, len(queries))
	for i, q := range queries {
		bodies[i], _ = json.Marshal(map[string]string{"query": q.query})
		out[i] = AbuseResult{Name: q.name, Bytes: len(bodies[i]), Statuses: map[int]int{}}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 60 * time.Second}
	pace := func() {}
	if rate > 0 {
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		pace = func() {
			select {
			case <-tick.C:
			case <-ctx.Done():
			}
		}
	}
	for w := range n {
		wg.Go(func() {
			// Every query is sent at least once, and a request under way
			// when ctx ends is allowed to finish: its answer is the point.
			for i := w; i < len(queries) || ctx.Err() == nil; i++ {
				pace()
				k := i % len(queries)
				status, size, took, errText := send(context.WithoutCancel(ctx), client, server, fx.key, bodies[k])
				mu.Lock()
				r := &out[k]
				r.Requests++
				r.Statuses[status]++
				r.MaxLatency = max(r.MaxLatency, took)
				r.MaxReplyBytes = max(r.MaxReplyBytes, size)
				if r.FirstErrorText == "" {
					r.FirstErrorText = errText
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return out
}

// send posts one query and returns the status, the reply's size, the
// time taken and the first GraphQL error message, if any.
func send(ctx context.Context, client *http.Client, server, key string, body []byte) (int, int, time.Duration, string) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, server+"/graphql", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0, time.Since(start), err.Error()
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	took := time.Since(start)
	var reply struct {
		Errors []struct{ Message string } `json:"errors"`
		Error  struct{ Message string }   `json:"error"`
	}
	_ = json.Unmarshal(raw, &reply)
	text := reply.Error.Message
	if len(reply.Errors) > 0 {
		text = reply.Errors[0].Message
	}
	return resp.StatusCode, len(raw), took, text
}

func printAbuseReport(cfg Config, rep *AbuseReport) {
	w := cfg.Out
	if w == nil {
		return
	}
	pace := "as fast as they go"
	if cfg.AbuseRate > 0 {
		pace = fmt.Sprintf("%d req/s together", cfg.AbuseRate)
	}
	fmt.Fprintf(w, "%d leads; ordinary requests at %d req/s for %s each, alone and beside %d abusive clients (%s)\n\n",
		rep.Leads, cfg.Rate, cfg.Duration, cfg.Concurrency, pace)
	fmt.Fprintln(w, "| ordinary request | p50 alone | p99 alone | p50 beside | p99 beside | p99 ratio | errors beside |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for i, a := range rep.Alone {
		b := rep.Beside[i]
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %.2f× | %d |\n", a.Name, ms(a.P50), ms(a.P99), ms(b.P50), ms(b.P99),
			float64(b.P99)/float64(max(a.P99, 1)), b.Errors)
	}
	fmt.Fprintln(w, "\n| abusive query | body | sent | answered | slowest | largest reply | first error |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, r := range rep.Abusive {
		codes := make([]int, 0, len(r.Statuses))
		for c := range r.Statuses {
			codes = append(codes, c)
		}
		sort.Ints(codes)
		var answered []string
		for _, c := range codes {
			answered = append(answered, fmt.Sprintf("%d×%d", r.Statuses[c], c))
		}
		fmt.Fprintf(w, "| %s | %d B | %d | %s | %s | %d B | %s |\n", r.Name, r.Bytes, r.Requests,
			strings.Join(answered, ", "), ms(r.MaxLatency), r.MaxReplyBytes, truncate(r.FirstErrorText, 80))
	}
	fmt.Fprintf(w, "\nserver peak RSS %.1f MiB\n", float64(rep.PeakRSSKiB)/1024)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
