// Package telemetry is what an operator reads of a running server: its
// Prometheus metrics (a registry per server, the request and operation
// latencies, the workers' counters) and its OpenTelemetry traces (off unless
// an OTLP endpoint is configured).
//
// It is a leaf: it imports only the Prometheus and OpenTelemetry libraries,
// so every layer may count and trace through it.
package telemetry

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics is one server's registry and the latency histograms of its
// surfaces. Each server owns its own (not Prometheus's global registry), so
// several servers in one process, as in tests, do not collide; the
// workers' process-wide counters are registered in each.
type Metrics struct {
	reg     *prometheus.Registry
	http    *prometheus.HistogramVec
	graphql *prometheus.HistogramVec

	mu     sync.RWMutex
	routes map[routeKey]*[statusClasses]prometheus.Observer
	ops    *boundedNames
}

// routeKey is a route pattern and a method: a comparable map key, so a
// lookup builds no string.
type routeKey struct{ method, route string }

// statusClasses are 1xx to 5xx; the status label is the class, which bounds
// it whatever a handler writes.
const statusClasses = 5

// latencyBuckets span a cached read (a millisecond) to a report over a
// large book (seconds).
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// MaxOperationNames bounds the GraphQL operation names kept as label values;
// names past it are counted as "other", so a client that names each
// request afresh cannot grow the series without bound.
const MaxOperationNames = 200

// NewMetrics returns a registry with the Go runtime's and the process's
// collectors, the workers' counters and empty latency histograms.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		http: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "svc_http_request_duration_seconds", Buckets: latencyBuckets,
			Help: "HTTP requests by route pattern, method and status class, from the first byte read to the handler's return.",
		}, []string{"route", "method", "status"}),
		graphql: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "svc_graphql_operation_duration_seconds", Buckets: latencyBuckets,
			Help: "GraphQL operations by name (\"anonymous\" unnamed, \"other\" past the limit of names) and type, and whether the response carried errors.",
		}, []string{"operation", "type", "outcome"}),
		routes: map[routeKey]*[statusClasses]prometheus.Observer{},
		ops:    newBoundedNames(MaxOperationNames),
	}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.http, m.graphql, workerClaims, workerItems, deliveriesSent, deliveryFailures, deadLettered)
	return m
}

// Register adds collectors to the server's registry.
func (m *Metrics) Register(cs ...prometheus.Collector) { m.reg.MustRegister(cs...) }

// Handler serves the registry in Prometheus's exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Gather returns the registry's samples (tests read them by name).
func (m *Metrics) Gather() (map[string]float64, error) {
	families, err := m.reg.Gather()
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, s := range f.GetMetric() {
			switch {
			case s.GetCounter() != nil:
				out[f.GetName()] += s.GetCounter().GetValue()
			case s.GetGauge() != nil:
				out[f.GetName()] += s.GetGauge().GetValue()
			case s.GetHistogram() != nil:
				out[f.GetName()] += float64(s.GetHistogram().GetSampleCount())
			}
		}
	}
	return out, nil
}

// ObserveHTTP records one request. route is chi's pattern (never the raw
// path); an unrouted request is counted under "unmatched". Past the first
// request of a route and method it takes a read lock and a map lookup: the
// observers are curried once.
func (m *Metrics) ObserveHTTP(method, route string, status int, d time.Duration) {
	if m == nil {
		return
	}
	if route == "" {
		route = "unmatched"
	}
	if status == 0 {
		status = http.StatusOK // a handler that wrote nothing is answered 200
	}
	class := status/100 - 1
	if class < 0 || class >= statusClasses {
		class = statusClasses - 1
	}
	key := routeKey{knownMethod(method), route}
	m.mu.RLock()
	obs := m.routes[key]
	m.mu.RUnlock()
	if obs == nil {
		obs = m.curryRoute(key)
	}
	obs[class].Observe(d.Seconds())
}

func (m *Metrics) curryRoute(key routeKey) *[statusClasses]prometheus.Observer {
	m.mu.Lock()
	defer m.mu.Unlock()
	if obs := m.routes[key]; obs != nil {
		return obs
	}
	obs := new([statusClasses]prometheus.Observer)
	for i := range obs {
		obs[i] = m.http.WithLabelValues(key.route, key.method, strconv.Itoa(i+1)+"xx")
	}
	m.routes[key] = obs
	return obs
}

// knownMethod bounds the method label: chi answers any method, and a
// client may send any token.
func knownMethod(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return method
	}
	return "OTHER"
}

// ObserveGraphQL records one operation: name as the client named it
// (bounded, see MaxOperationNames), typ query, mutation or subscription.
func (m *Metrics) ObserveGraphQL(name, typ string, failed bool, d time.Duration) {
	if m == nil {
		return
	}
	outcome := "ok"
	if failed {
		outcome = "error"
	}
	m.graphql.WithLabelValues(m.ops.label(name), typ, outcome).Observe(d.Seconds())
}

// boundedNames admits the first max distinct names as label values.
type boundedNames struct {
	mu    sync.RWMutex
	names map[string]struct{}
	max   int
}

func newBoundedNames(max int) *boundedNames {
	return &boundedNames{names: map[string]struct{}{}, max: max}
}

func (b *boundedNames) label(name string) string {
	if name == "" {
		return "anonymous"
	}
	b.mu.RLock()
	_, ok := b.names[name]
	b.mu.RUnlock()
	if ok {
		return name
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.names[name]; ok {
		return name
	}
	if len(b.names) >= b.max || len(name) > maxNameLen {
		return "other"
	}
	b.names[name] = struct{}{}
	return name
}

// maxNameLen bounds one label value: GraphQL names have no length limit.
const maxNameLen = 100
