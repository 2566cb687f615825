package graph

import (
	"context"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/lendingpipe/svc/internal/telemetry"
)

// operationTelemetry times each query and mutation (by operation name and
// type) and, when tracing is on, gives it a span that the statements it
// runs join. Subscriptions are long-lived and not timed.
type operationTelemetry struct {
	metrics *telemetry.Metrics
}

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = operationTelemetry{}

func (operationTelemetry) ExtensionName() string                   { return "OperationTelemetry" }
func (operationTelemetry) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptResponse wraps the whole operation, its transaction included.
func (t operationTelemetry) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	oc := graphql.GetOperationContext(ctx)
	if oc == nil || oc.Operation == nil || oc.Operation.Operation == "subscription" {
		return next(ctx)
	}
	name, typ := oc.Operation.Name, string(oc.Operation.Operation)
	start := time.Now()
	ctx, span := telemetry.StartGraphQL(ctx, name, typ)
	resp := next(ctx)
	failed := resp == nil || len(resp.Errors) > 0
	t.metrics.ObserveGraphQL(name, typ, failed, time.Since(start))
	telemetry.EndOperation(span, failed)
	return resp
}

// resolverSpans gives each resolver (a field with a resolver of its own, not
// a field read off its parent's struct) a span. It is installed only when
// tracing is on.
type resolverSpans struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.FieldInterceptor
} = resolverSpans{}

func (resolverSpans) ExtensionName() string                   { return "ResolverSpans" }
func (resolverSpans) Validate(graphql.ExecutableSchema) error { return nil }

func (resolverSpans) InterceptField(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !fc.IsResolver || !telemetry.Tracing() {
		return next(ctx)
	}
	ctx, span := telemetry.StartResolver(ctx, fc.Object, fc.Field.Name)
	v, err := next(ctx)
	telemetry.End(span, err)
	return v, err
}
