package telemetry_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/lendingpipe/svc/internal/telemetry"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

// scrape reads /metrics into its sample lines, keyed by name and labels.
func scrape(t *testing.T, e *resttest.Env) map[string]string {
	t.Helper()
	resp, err := http.Get(e.Server.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics = %d", resp.StatusCode)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		out[line[:i]] = line[i+1:]
	}
	return out
}

func createLead(t *testing.T, e *resttest.Env) string {
	t.Helper()
	r := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Acme Trucking LLC"})
	if r.Status != http.StatusCreated {
		t.Fatalf("POST /v1/leads = %d: %s", r.Status, r.Raw)
	}
	return r.Data()["id"].(string)
}

func graphQL(t *testing.T, e *resttest.Env, query string) {
	t.Helper()
	r := e.Post("/graphql", e.Key, map[string]any{"query": query})
	if r.Status != http.StatusOK || r.Body["errors"] != nil {
		t.Fatalf("GraphQL %s = %d: %s", query, r.Status, r.Raw)
	}
}

func TestMetrics(t *testing.T) {
	e := resttest.New(t)
	id := createLead(t, e)
	if r := e.Get("/v1/leads/"+id, e.Key); r.Status != http.StatusOK {
		t.Fatalf("GET lead = %d", r.Status)
	}
	e.Get("/v1/no-such-route/"+id, e.Key)
	graphQL(t, e, `query CountLeads { leads(first: 1) { totalCount } }`)
	graphQL(t, e, `{ leads(first: 1) { totalCount } }`)
	m := scrape(t, e)

	t.Run("RoutePatterns", func(t *testing.T) {
		for _, key := range []string{
			`svc_http_request_duration_seconds_count{method="GET",route="/v1/leads/{id}",status="2xx"}`,
			`svc_http_request_duration_seconds_count{method="POST",route="/v1/leads",status="2xx"}`,
			`svc_http_request_duration_seconds_count{method="GET",route="unmatched",status="4xx"}`,
		} {
			if m[key] != "1" {
				t.Errorf("%s = %q, want 1", key, m[key])
			}
		}
		for key := range m {
			if strings.Contains(key, id) {
				t.Errorf("a raw path is a label value: %s", key)
			}
		}
	})
	t.Run("Operations", func(t *testing.T) {
		for _, key := range []string{
			`svc_graphql_operation_duration_seconds_count{operation="CountLeads",outcome="ok",type="query"}`,
			`svc_graphql_operation_duration_seconds_count{operation="anonymous",outcome="ok",type="query"}`,
		} {
			if m[key] != "1" {
				t.Errorf("%s = %q, want 1", key, m[key])
			}
		}
	})
	t.Run("Gauges", func(t *testing.T) {
		for _, name := range []string{"svc_outbox_lag_seconds", "svc_webhook_delivery_lag_seconds", "svc_automation_lag_seconds",
			"svc_webhook_outbox_depth", "svc_webhook_queue_depth", "svc_webhook_dead_letter_depth",
			"svc_webhook_deliveries_sent_total", "svc_webhook_delivery_failures_total", "svc_webhook_dead_lettered_total",
			"go_goroutines", "process_cpu_seconds_total"} {
			if _, ok := m[name]; !ok {
				t.Errorf("no %s", name)
			}
		}
		pool := `go_sql_max_open_connections{db_name="read"}`
		if e.DB.Dialect == "postgres" {
			pool = `go_sql_max_open_connections{db_name="main"}`
		}
		if m[pool] == "" || m[pool] == "0" {
			t.Errorf("%s = %q", pool, m[pool])
		}
	})
	t.Run("Claims", func(t *testing.T) {
		// The lead's event was fanned out by this process's worker.
		waitFor(t, e, `svc_worker_claims_total{worker="outbox"}`)
	})
}

// waitFor polls /metrics until key reads above zero; the workers run
// beside the requests.
func waitFor(t *testing.T, e *resttest.Env, key string) {
	t.Helper()
	for range 200 {
		if v := scrape(t, e)[key]; v != "" && v != "0" {
			return
		}
		e.Clock.Advance(0)
		sleep()
	}
	t.Errorf("%s stayed 0", key)
}

func TestOperationNamesAreBounded(t *testing.T) {
	e := resttest.New(t)
	for i := range telemetry.MaxOperationNames + 20 {
		graphQL(t, e, fmt.Sprintf(`query Op%d { leads(first: 1) { totalCount } }`, i))
	}
	names := 0
	for key := range scrape(t, e) {
		if strings.HasPrefix(key, "svc_graphql_operation_duration_seconds_count{") {
			names++
		}
	}
	if names != telemetry.MaxOperationNames+1 {
		t.Errorf("%d operation series, want %d and one \"other\"", names, telemetry.MaxOperationNames+1)
	}
	if v := scrape(t, e)[`svc_graphql_operation_duration_seconds_count{operation="other",outcome="ok",type="query"}`]; v != "20" {
		t.Errorf("other = %q, want 20", v)
	}
}

// otlpReceiver is an OTLP/HTTP trace endpoint that keeps what it is sent.
type otlpReceiver struct {
	mu    sync.Mutex
	spans []*tracepb.Span
}

func (rc *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" {
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	var req collectortrace.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &req)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			rc.spans = append(rc.spans, ss.GetSpans()...)
		}
	}
	rc.mu.Unlock()
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// trace returns the spans of the trace whose root span is named root.
func (rc *otlpReceiver) trace(t *testing.T, root string) []*tracepb.Span {
	t.Helper()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, s := range rc.spans {
		if s.GetName() == root && len(s.GetParentSpanId()) == 0 {
			var out []*tracepb.Span
			for _, o := range rc.spans {
				if string(o.GetTraceId()) == string(s.GetTraceId()) {
					out = append(out, o)
				}
			}
			return out
		}
	}
	var names []string
	for _, s := range rc.spans {
		names = append(names, s.GetName())
	}
	t.Fatalf("no trace rooted at %q among %v", root, names)
	return nil
}

func hasSpan(spans []*tracepb.Span, match func(*tracepb.Span) bool) bool {
	for _, s := range spans {
		if match(s) {
			return true
		}
	}
	return false
}

func attr(s *tracepb.Span, key string) string {
	for _, a := range s.GetAttributes() {
		if a.GetKey() == key {
			if v := a.GetValue().GetStringValue(); v != "" {
				return v
			}
			return fmt.Sprint(a.GetValue().GetIntValue())
		}
	}
	return ""
}

func TestTracing(t *testing.T) {
	rc := &otlpReceiver{}
	collector := httptest.NewServer(rc)
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", collector.URL+"/v1/traces")
	t.Setenv("OTEL_SERVICE_NAME", "svc-test")
	cfg, err := telemetry.TracingFromEnv(func(k string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": collector.URL + "/v1/traces"}[k]
	})
	if err != nil || !cfg.Enabled {
		t.Fatalf("TracingFromEnv = %+v, %v", cfg, err)
	}
	stop, err := telemetry.StartTracing(context.Background(), cfg, "test")
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = stop(context.Background())
		}
	}()

	e := resttest.New(t)
	hook := webhookstest.NewReceiver(t, webhookstest.OK)
	sub := e.Post("/v1/app-webhooks", e.Key, map[string]any{"url": hook.URL, "events": []string{"lead.created"}})
	if sub.Status != http.StatusCreated {
		t.Fatalf("subscribing = %d: %s", sub.Status, sub.Raw)
	}
	id := createLead(t, e)
	deliveries := hook.Wait(t, 1)
	// The attempt's span ends once the worker has read the answer, a moment
	// after the receiver got the request: wait until the attempt is
	// recorded, which follows the span's end, before tracing stops.
	waitForDelivered(t, e, sub.Data()["id"].(string))
	if r := e.Get("/v1/leads/"+id, e.Key); r.Status != http.StatusOK {
		t.Fatalf("GET lead = %d", r.Status)
	}
	graphQL(t, e, `query CountLeads { leads(first: 1) { totalCount } }`)
	e.Server.Close() // the delivery's span ends before the server stops
	if err := stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	stopped = true

	isSQL := func(s *tracepb.Span) bool { return attr(s, "db.query.text") != "" && attr(s, "db.system.name") != "" }
	t.Run("REST", func(t *testing.T) {
		spans := rc.trace(t, "GET /v1/leads/{id}")
		if !hasSpan(spans, isSQL) {
			t.Errorf("the request's trace has no statement span: %v", spans)
		}
		for _, s := range spans {
			if strings.Contains(attr(s, "db.query.text"), id) {
				t.Errorf("a statement's span carries an argument: %s", attr(s, "db.query.text"))
			}
		}
	})
	t.Run("GraphQL", func(t *testing.T) {
		spans := rc.trace(t, "POST /graphql")
		if !hasSpan(spans, func(s *tracepb.Span) bool { return s.GetName() == "query CountLeads" }) {
			t.Errorf("no operation span: %v", spans)
		}
		if !hasSpan(spans, func(s *tracepb.Span) bool { return s.GetName() == "Query.leads" }) {
			t.Errorf("no resolver span: %v", spans)
		}
		if !hasSpan(spans, isSQL) {
			t.Errorf("no statement span: %v", spans)
		}
	})
	t.Run("Delivery", func(t *testing.T) {
		spans := rc.trace(t, "webhook.deliver lead.created")
		s := spans[0]
		if attr(s, "webhook.event_type") != "lead.created" || attr(s, "http.response.status_code") != "200" || attr(s, "webhook.subscription_id") == "" {
			t.Errorf("delivery span attributes = %v", s.GetAttributes())
		}
		// The receiver got the attempt's trace context, beside the signed headers.
		tp := deliveries[0].Header.Get("traceparent")
		if !strings.Contains(tp, fmt.Sprintf("%x", s.GetTraceId())) {
			t.Errorf("traceparent = %q, want the delivery's trace %x", tp, s.GetTraceId())
		}
	})
}

func sleep() { time.Sleep(10 * time.Millisecond) }

// waitForDelivered polls subscription sub's deliveries until one has
// succeeded.
func waitForDelivered(t *testing.T, e *resttest.Env, sub string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); sleep() {
		if r := e.Get("/v1/app-webhooks/"+sub+"/deliveries?status=succeeded", e.Key); r.Status == http.StatusOK && len(r.Items()) > 0 {
			return
		}
	}
	t.Fatal("no delivery recorded as succeeded")
}
