package rest_test

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
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent/automationrun"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/root"
	"github.com/lendingpipe/svc/webhooks"
	"github.com/lendingpipe/svc/webhooks/autorun"
)

// BenchmarkInboundAutomation posts signed partner payloads over loopback
// HTTP from 8 clients to an endpoint whose automation has three actions
// (create_lead, add_tags, assign_advisor round-robin over a team of three).
// It reports the receiver's throughput and latency, and how fast the
// runner applied the runs. Steady: the runner works beside the receiver
// (runs/s counts from the first request to the last run done). Burst: the
// requests are received first and the runner then drains the queue
// (runs/s counts the drain alone).
func BenchmarkInboundAutomation(b *testing.B) {
	b.Run("Steady", func(b *testing.B) { benchInbound(b, true) })
	b.Run("Burst", func(b *testing.B) { benchInbound(b, false) })
}

func benchInbound(b *testing.B, steady bool) {
	ctx, stop := context.WithCancel(context.Background())
	db := storetest.Open(b)
	org, key := resttest.OrgWithKey(b, db, "Partners", viewer.AllScopes...)
	var teamID any
	for i := range 3 {
		u, err := store.CreateUser(ctx, db.Client, store.UserSpec{OrgID: org.ID, First: "Advisor", Last: fmt.Sprint(i),
			Email: fmt.Sprintf("adv%d@partners.example", i), Role: "advisor", Team: "Closers"})
		if err != nil {
			b.Fatal(err)
		}
		teamID = u.TeamID
	}
	hooks := webhooks.DefaultConfig()
	cfg := rest.Config{RateLimit: 1 << 30, RateWindow: time.Minute, MaxBodyBytes: 1 << 20, Now: time.Now, Webhooks: hooks}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := httptest.NewServer(root.Handler(cfg, db, logger))
	b.Cleanup(srv.Close)
	done := make(chan struct{})
	background := func() { autorun.Background(ctx, db, hooks, time.Now, logger); close(done) }
	b.Cleanup(func() { stop(); <-done })
	if steady {
		go background()
	}

	e := &benchClient{url: srv.URL, key: key, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	ep := e.mustPost(b, "/v1/inbound-endpoints", map[string]any{"name": "Partner", "mapping": map[string]any{
		"businessName": "$.application.business.name", "email": "$.application.owners[?@.primary == true].email",
		"contactFirstName": "$.application.owners[?@.primary == true].first", "requestedAmount": "$.application.amount",
		"externalIds.partner": "$.id",
	}})
	attrs := ep["attributes"].(map[string]any)
	path, secret := attrs["path"].(string), attrs["secret"].(string)
	e.mustPost(b, "/v1/automations", map[string]any{"name": "Intake", "trigger": map[string]any{"endpointId": ep["id"]},
		"actions": []map[string]any{{"type": "create_lead"}, {"type": "add_tags", "tags": []string{"partner"}},
			{"type": "assign_advisor", "teamId": teamID}}})

	var (
		mu  sync.Mutex
		lat []time.Duration
		n   atomic.Int64
	)
	b.SetParallelism(4) // 8 concurrent clients
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			i := n.Add(1)
			body := []byte(fmt.Sprintf(`{"id":"app-%d","application":{"amount":%d,"business":{"name":"Business %d"},`+
				`"owners":[{"first":"Ann","email":"ann%d@x.example","primary":true}]}}`, i, 10000+i, i, i))
			req, _ := http.NewRequest("POST", srv.URL+path, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-svc-Signature", rawSig(secret, body))
			t0 := time.Now()
			resp, err := e.client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			mine = append(mine, time.Since(t0))
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
		mu.Lock()
		lat = append(lat, mine...)
		mu.Unlock()
	})
	received := time.Since(start)
	if !steady {
		go background()
		start = time.Now()
	}
	// Wait for the runner to apply every run.
	sys := rule.SystemContext(ctx)
	for {
		queued, err := db.Client.AutomationRun.Query().Where(automationrun.StatusEQ(automationrun.StatusQueued)).Exist(sys)
		if err != nil {
			b.Fatal(err)
		}
		if !queued {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	applied := time.Since(start)
	b.StopTimer()
	ok, err := db.Client.AutomationRun.Query().Where(automationrun.StatusEQ(automationrun.StatusSucceeded)).Count(sys)
	if err != nil || ok != len(lat) {
		b.Fatalf("%d runs succeeded of %d requests (%v)", ok, len(lat), err)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(len(lat))/received.Seconds(), "req/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(ok)/applied.Seconds(), "runs/s")
}

// benchClient makes setup calls with a key.
type benchClient struct {
	url, key string
	client   *http.Client
}

func (c *benchClient) mustPost(b *testing.B, path string, body any) map[string]any {
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", c.url+path, bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+c.key)
	resp, err := c.client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data map[string]any `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusCreated {
		b.Fatalf("%s: %d %v", path, resp.StatusCode, err)
	}
	return out.Data
}
