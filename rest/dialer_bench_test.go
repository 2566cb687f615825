package rest_test

import (
	"bytes"
	"context"
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

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/root"
)

// dialerBench is an organization with 500 agents, each with a presence and
// twenty of today's call events, served over a real loopback listener.
type dialerBench struct {
	url, key string
	agents   []uuid.UUID
	handler  http.Handler
	db       *store.DB
}

const benchAgents = 500

func setupDialerBench(b *testing.B) *dialerBench {
	ctx := context.Background()
	db := storetest.Open(b)
	org, key := resttest.OrgWithKey(b, db, "Floor", viewer.AllScopes...)
	cfg := rest.Config{RateLimit: 1 << 30, RateWindow: time.Minute, MaxBodyBytes: 1 << 20, Now: time.Now}
	h := root.Handler(cfg, db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	d := &dialerBench{url: srv.URL, key: key, handler: h, db: db}
	for i := range benchAgents {
		u, err := store.CreateUser(ctx, db.Client, store.UserSpec{OrgID: org.ID, First: "Agent", Last: fmt.Sprintf("%03d", i),
			Email: fmt.Sprintf("agent%03d@floor.example", i), Role: "agent", Team: fmt.Sprintf("Team %d", i%5)})
		if err != nil {
			b.Fatal(err)
		}
		d.agents = append(d.agents, u.ID)
		d.post(b, "/v1/dialer/presence", fmt.Sprintf(`{"userId":%q,"status":"on_call","currentCallId":"seed-%d"}`, u.ID, i), http.StatusOK)
		for j := range 20 {
			d.post(b, "/v1/dialer/events", d.eventBody(i*20+j), http.StatusCreated)
		}
	}
	// As the server's hourly refresh would after the floor's first calls.
	if err := db.Optimize(ctx); err != nil {
		b.Fatal(err)
	}
	return d
}

func (d *dialerBench) eventBody(n int) string {
	return fmt.Sprintf(`{"externalCallId":"call-%d","userId":%q,"eventType":"call_started","direction":"outbound","occurredAt":%q}`,
		n/2, d.agents[n%len(d.agents)], time.Now().UTC().Format(time.RFC3339))
}

// post sends one request in process (setup only).
func (d *dialerBench) post(b *testing.B, path, body string, want int) {
	req := httptest.NewRequest("POST", path, bytes.NewBufferString(body))
	req.Header.Set("Authorization", "Bearer "+d.key)
	rec := httptest.NewRecorder()
	d.handler.ServeHTTP(rec, req)
	if rec.Code != want {
		b.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
	}
}

// BenchmarkDialerEvents posts call events over loopback HTTP from 8
// concurrent clients and reports sustained throughput and latency.
func BenchmarkDialerEvents(b *testing.B) {
	d := setupDialerBench(b)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var (
		mu  sync.Mutex
		lat []time.Duration
		n   atomic.Int64
	)
	b.SetParallelism(4) // 4 × GOMAXPROCS(2) = 8 concurrent clients
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			body := d.eventBody(int(n.Add(1)))
			req, _ := http.NewRequest("POST", d.url+"/v1/dialer/events", bytes.NewBufferString(body))
			req.Header.Set("Authorization", "Bearer "+d.key)
			req.Header.Set("Content-Type", "application/json")
			t0 := time.Now()
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			mine = append(mine, time.Since(t0))
			if resp.StatusCode != http.StatusCreated {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
		mu.Lock()
		lat = append(lat, mine...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkAgentsBoard serves the board of 500 agents: one page of 100, and
// all five pages, each enriched with presence, lead names and today's counts.
func BenchmarkAgentsBoard(b *testing.B) {
	d := setupDialerBench(b)
	get := func(b *testing.B, page int) {
		req := httptest.NewRequest("GET", fmt.Sprintf("/v1/dialer/agents?limit=100&page=%d", page), nil)
		req.Header.Set("Authorization", "Bearer "+d.key)
		rec := httptest.NewRecorder()
		d.handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
	}
	b.Run("Page100", func(b *testing.B) {
		measure(b, func(int) { get(b, 1) })
	})
	b.Run("All500", func(b *testing.B) {
		measure(b, func(int) {
			for p := 1; p <= benchAgents/100; p++ {
				get(b, p)
			}
		})
	})
}
