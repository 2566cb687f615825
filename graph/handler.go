package graph

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/telemetry"
)

// Authenticator resolves an Authorization header value to a context that
// carries the viewer.
type Authenticator func(ctx context.Context, authorization string) (context.Context, error)

// NewHandler serves GraphQL over POST (and GET for queries), and
// subscriptions over websockets (websocket.go). Mutations run in a
// transaction (mutationTx, store.WithTx), which the ent hooks share.
func NewHandler(r *Resolver, cfg HandlerConfig, logger *slog.Logger, auth Authenticator) http.Handler {
	cfg = cfg.WithDefaults()
	r.uploads = cfg.Uploads
	srv := handler.New(costedSchema{ExecutableSchema: NewExecutableSchema(Config{Resolvers: r}), maxPage: cfg.MaxPageSize})
	srv.AddTransport(websocketTransport(cfg, auth, logger))
	srv.AddTransport(getTransport{})
	srv.AddTransport(multipartTransport{maxJSON: cfg.WSMaxMessageBytes})
	srv.AddTransport(postTransport{})
	srv.SetParserTokenLimit(cfg.MaxTokens)
	srv.SetValidationRulesFn(validationRules)
	srv.Use(extension.Introspection{})
	// In this order: a request past its deadline costs nothing more; a
	// page over the limit is refused by name before it is priced.
	srv.Use(deadlineCheck)
	srv.Use(subscriptionsOverSocket)
	srv.Use(pageBounds(cfg.MaxPageSize))
	srv.Use(depthLimit)
	srv.Use(extension.FixedComplexityLimit(cfg.MaxComplexity))
	srv.AroundFields(stopAtDeadline)
	srv.AroundResponses(capErrors)
	srv.AroundOperations(codeEveryError(logger)) // around the transaction's
	// Around the transaction too, so its commit is timed and traced.
	srv.Use(operationTelemetry{metrics: cfg.Metrics})
	if telemetry.Tracing() {
		srv.Use(resolverSpans{})
	}
	srv.AroundOperations(withCappedCounts)
	srv.Use(mutationTx{client: r.db.Client})
	srv.SetErrorPresenter(func(ctx context.Context, err error) *gqlerror.Error {
		gqlErr := presentError(ctx, err)
		if gqlErr.Extensions["code"] == apperr.Internal {
			logger.ErrorContext(ctx, "graphql resolver failed", "err", err, "path", gqlErr.Path.String())
		}
		return gqlErr
	})
	srv.SetRecoverFunc(func(ctx context.Context, p any) error {
		logger.ErrorContext(ctx, "graphql resolver panicked", "panic", fmt.Sprint(p))
		return apperr.New(apperr.Internal, "internal error")
	})
	return withDeadline(srv, cfg.Timeout)
}
