package webhooks_test

import (
	"context"
	"fmt"
	"github.com/lendingpipe/svc/seed"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

// BenchmarkWebhookThroughput seeds leads in batches (1,000 per commit) and
// measures how fast the worker fans out, signs and delivers their
// lead.created events to a local receiver.
func BenchmarkWebhookThroughput(b *testing.B) {
	for _, senders := range []int{32, webhooks.DefaultConfig().Concurrency} {
		b.Run(fmt.Sprintf("senders=%d", senders), func(b *testing.B) { benchmarkThroughput(b, senders) })
	}
}

func benchmarkThroughput(b *testing.B, senders int) {
	const n = 10000
	e := newEnv(b, func(c *webhooks.Config) { c.Concurrency = senders })
	rc := webhookstest.NewReceiver(b, webhookstest.OK)
	e.subscribe(b, rc.URL, "lead.created")
	b.ResetTimer()
	start := time.Now()
	if err := seed.Leads(context.Background(), e.db, e.org.ID, n, nil); err != nil {
		b.Fatal(err)
	}
	rc.Wait(b, n)
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "deliveries/s")
}

// BenchmarkWebhookLatency creates leads from 8 concurrent API clients and
// measures, at a local receiver, the time from each event's commit to its
// receipt. The load is the API's, so it runs the whole server.
func BenchmarkWebhookLatency(b *testing.B) {
	const n = 3000
	e := resttest.New(b, func(c *rest.Config) { c.Webhooks.Poll = time.Second }) // rely on the commit wake-up
	var (
		mu  sync.Mutex
		lat []time.Duration
	)
	rc := webhookstest.NewReceiver(b, webhookstest.OK)
	restSubscribe(b, e, rc.URL, "lead.created")
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				r := e.Post("/v1/leads", e.Key, map[string]any{"businessName": fmt.Sprintf("Load %d", i)})
				if r.Status != http.StatusCreated {
					b.Errorf("create: %d", r.Status)
					return
				}
			}
		}()
	}
	got := rc.Wait(b, n)
	elapsed := time.Since(start)
	wg.Wait()
	b.StopTimer()
	mu.Lock()
	for _, d := range got {
		lat = append(lat, d.At.Sub(time.Time(d.Env.Timestamp)))
	}
	mu.Unlock()
	slices.Sort(lat)
	b.ReportMetric(float64(n)/elapsed.Seconds(), "deliveries/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
