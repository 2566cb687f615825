package telemetry

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Gauge names one value a Gauges collector reads.
type Gauge struct{ Name, Help string }

// Gauges is a collector of gauges read together from the database at
// scrape time, at most once per ttl: several Prometheus servers scraping
// several replicas cost the database one read per ttl per replica.
type Gauges struct {
	descs []*prometheus.Desc
	read  func(context.Context) ([]float64, error)
	ttl   time.Duration
	log   *slog.Logger

	mu     sync.Mutex
	at     time.Time
	values []float64
}

// gaugeTimeout bounds one read: a scrape is not held up by a busy database.
const gaugeTimeout = 2 * time.Second

// NewGauges returns a collector of gauges whose values read returns, in
// the order of gauges. A read that fails leaves the gauges out of the
// scrape (absent, not zero) and is logged.
func NewGauges(gauges []Gauge, ttl time.Duration, log *slog.Logger, read func(context.Context) ([]float64, error)) *Gauges {
	g := &Gauges{read: read, ttl: ttl, log: log}
	for _, gauge := range gauges {
		g.descs = append(g.descs, prometheus.NewDesc(gauge.Name, gauge.Help, nil, nil))
	}
	return g
}

// Describe implements prometheus.Collector.
func (g *Gauges) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range g.descs {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (g *Gauges) Collect(ch chan<- prometheus.Metric) {
	values := g.current()
	for i, v := range values {
		if i < len(g.descs) {
			ch <- prometheus.MustNewConstMetric(g.descs[i], prometheus.GaugeValue, v)
		}
	}
}

func (g *Gauges) current() []float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.values != nil && time.Since(g.at) < g.ttl {
		return g.values
	}
	ctx, cancel := context.WithTimeout(context.Background(), gaugeTimeout)
	defer cancel()
	values, err := g.read(ctx)
	if err != nil {
		g.log.Warn("reading the queue gauges", "err", err)
		return nil
	}
	g.at, g.values = time.Now(), values
	return values
}
