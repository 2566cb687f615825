package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// TracingConfig is whether traces are exported. The exporter reads the
// rest of the standard OTEL_* variables itself (endpoint, headers, timeout,
// sampler, service name and resource attributes).
type TracingConfig struct {
	Enabled bool
}

// TracingFromEnv turns tracing on when an OTLP endpoint is set
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or
// OTEL_TRACES_EXPORTER is otlp; OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none turns it off whatever else is set.
func TracingFromEnv(getenv func(string) string) (TracingConfig, error) {
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return TracingConfig{}, nil
	}
	switch exp := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER"))); exp {
	case "none":
		return TracingConfig{}, nil
	case "otlp":
		return TracingConfig{Enabled: true}, nil
	case "":
	default:
		return TracingConfig{}, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: only otlp (OTLP over HTTP) and none are supported", exp)
	}
	if p := getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"); p != "" && p != "http/protobuf" {
		return TracingConfig{}, fmt.Errorf("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=%s: only http/protobuf is supported", p)
	}
	if p := getenv("OTEL_EXPORTER_OTLP_PROTOCOL"); p != "" && p != "http/protobuf" {
		return TracingConfig{}, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%s: only http/protobuf is supported", p)
	}
	return TracingConfig{Enabled: getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""}, nil
}

// tracing is whether a provider is installed: while it is false every
// tracing call returns at once, without touching the context.
var tracing atomic.Bool

// Tracing reports whether traces are being exported.
func Tracing() bool { return tracing.Load() }

// instrumentation names this module's spans' tracer.
const instrumentation = "github.com/lendingpipe/svc"

// Tracer is this module's tracer; callers check Tracing first.
func Tracer() trace.Tracer { return otel.Tracer(instrumentation) }

// StartTracing installs an OTLP/HTTP exporter and a batching tracer
// provider when cfg enables them, and returns what flushes and stops them
// (to call at shutdown). Disabled, it installs nothing and tracing costs
// an atomic load per instrumented call.
func StartTracing(ctx context.Context, cfg TracingConfig, version string) (shutdown func(context.Context) error, err error) {
	if !cfg.Enabled {
		return func(context.Context) error { return nil }, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("starting the OTLP trace exporter: %w", err)
	}
	res, err := resource.Merge(resource.Default(),
		resource.NewSchemaless(semconv.ServiceVersion(version)))
	if err != nil && !errors.Is(err, resource.ErrSchemaURLConflict) {
		return nil, fmt.Errorf("describing the service for traces: %w", err)
	}
	// The sampler comes from OTEL_TRACES_SAMPLER (parent-based, always on,
	// by default) and the service name from OTEL_SERVICE_NAME.
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	// W3C trace context only: baggage from the internet is not carried
	// into spans or on to receivers.
	otel.SetTextMapPropagator(propagation.TraceContext{})
	tracing.Store(true)
	return func(ctx context.Context) error {
		tracing.Store(false)
		if err := tp.Shutdown(ctx); err != nil {
			return fmt.Errorf("flushing traces: %w", err)
		}
		return nil
	}, nil
}

// StartHTTP starts a request's server span, continuing the caller's trace
// (traceparent), and returns the request with the span in its context; r
// unchanged and a nil span when tracing is off. path is the request's path
// as it may be shown: with any secret segment (a token in the path) hidden.
func StartHTTP(r *http.Request, path string) (*http.Request, trace.Span) {
	if !tracing.Load() {
		return r, nil
	}
	ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	ctx, span := Tracer().Start(ctx, r.Method, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(semconv.HTTPRequestMethodKey.String(r.Method), semconv.URLPath(path)))
	return r.WithContext(ctx), span
}

// EndHTTP names the span after the route pattern, records the status and
// ends it; nothing when span is nil.
func EndHTTP(span trace.Span, method, route string, status int) {
	if span == nil {
		return
	}
	if route != "" {
		span.SetName(method + " " + route)
		span.SetAttributes(semconv.HTTPRoute(route))
	}
	span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	if status >= 500 {
		span.SetStatus(codes.Error, strconv.Itoa(status))
	}
	span.End()
}

// Inject writes the span context of ctx into h (traceparent), for an
// outgoing request; nothing when tracing is off.
func Inject(ctx context.Context, h http.Header) {
	if tracing.Load() {
		otel.GetTextMapPropagator().Inject(ctx, propagation.HeaderCarrier(h))
	}
}

// StartSQL starts a statement's span: the statement's text, never its
// arguments. system is the database (semconv's db.system.name). Only a
// statement inside a traced request or delivery gets one (a nil span
// otherwise): the workers' polls would each make a trace of their own.
func StartSQL(ctx context.Context, system attribute.KeyValue, query string) (context.Context, trace.Span) {
	if !tracing.Load() || !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx, nil
	}
	op, _, _ := strings.Cut(strings.TrimSpace(query), " ")
	return Tracer().Start(ctx, strings.ToUpper(op), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(system, semconv.DBQueryText(query), semconv.DBOperationName(strings.ToUpper(op))))
}

// End records err on span, if any, and ends it; nothing when span is nil.
func End(span trace.Span, err error) {
	if span == nil {
		return
	}
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// StartDelivery starts a webhook delivery attempt's client span; a nil
// span and ctx unchanged when tracing is off.
func StartDelivery(ctx context.Context, eventType, subscriptionID, deliveryID string) (context.Context, trace.Span) {
	if !tracing.Load() {
		return ctx, nil
	}
	return Tracer().Start(ctx, "webhook.deliver "+eventType, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("webhook.event_type", eventType),
			attribute.String("webhook.subscription_id", subscriptionID), attribute.String("webhook.delivery_id", deliveryID),
			semconv.HTTPRequestMethodKey.String(http.MethodPost)))
}

// EndDelivery records an attempt's outcome on its span and ends it: the
// receiver's status (0: none), or the error that stopped it.
func EndDelivery(span trace.Span, status int, errText string) {
	if span == nil {
		return
	}
	if status != 0 {
		span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	}
	if errText != "" || status < 200 || status > 299 {
		span.SetStatus(codes.Error, errText)
	}
	span.End()
}

// StartGraphQL starts a GraphQL operation's span; a nil span and ctx
// unchanged when tracing is off.
func StartGraphQL(ctx context.Context, name, typ string) (context.Context, trace.Span) {
	if !tracing.Load() {
		return ctx, nil
	}
	spanName := typ
	if name != "" {
		spanName += " " + name
	}
	return Tracer().Start(ctx, spanName, trace.WithAttributes(semconv.GraphQLOperationName(name),
		semconv.GraphQLOperationTypeKey.String(typ)))
}

// StartResolver starts a field resolver's span, named Object.field.
func StartResolver(ctx context.Context, object, field string) (context.Context, trace.Span) {
	return Tracer().Start(ctx, object+"."+field)
}

// EndOperation ends a span that failed when failed; nothing when span is nil.
func EndOperation(span trace.Span, failed bool) {
	if span == nil {
		return
	}
	if failed {
		span.SetStatus(codes.Error, "the response carries errors")
	}
	span.End()
}
