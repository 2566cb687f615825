package telemetry

import (
	"testing"
	"time"
)

// TestObserveHTTPAllocates nothing once a route's observers are curried:
// it runs on every request.
func TestObserveHTTPAllocates(t *testing.T) {
	m := NewMetrics()
	m.ObserveHTTP("GET", "/v1/leads/{id}", 200, time.Millisecond)
	if n := testing.AllocsPerRun(100, func() { m.ObserveHTTP("GET", "/v1/leads/{id}", 200, time.Millisecond) }); n != 0 {
		t.Errorf("ObserveHTTP allocates %v times per call", n)
	}
}

func TestTracingFromEnv(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		on   bool
		err  bool
	}{
		{"Unset", nil, false, false},
		{"Endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, true, false},
		{"TracesEndpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, true, false},
		{"Exporter", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true, false},
		{"Disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, false, false},
		{"ExporterNone", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, false, false},
		{"ErrExporter", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, false, true},
		{"ErrProtocol", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := TracingFromEnv(func(k string) string { return c.env[k] })
			if (err != nil) != c.err || cfg.Enabled != c.on {
				t.Errorf("TracingFromEnv = %+v, %v; want enabled %v, error %v", cfg, err, c.on, c.err)
			}
		})
	}
}

func BenchmarkObserveHTTP(b *testing.B) {
	m := NewMetrics()
	b.ReportAllocs()
	for b.Loop() {
		m.ObserveHTTP("GET", "/v1/leads/{id}", 200, time.Millisecond)
	}
}
