package graph

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/lendingpipe/svc/internal/apperr"
)

// withDeadline runs every GraphQL request over HTTP under timeout, on the
// request's context, so it also stops when the client goes away. A
// websocket outlives any one operation and is left alone.
func withDeadline(next http.Handler, timeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "" {
			next.ServeHTTP(w, r)
			return
		}
		ctx, cancel := withOperationDeadline(r.Context(), timeout)
		defer cancel()
		ctx = context.WithValue(ctx, overHTTPKey{}, true)
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

type overHTTPKey struct{}

// subscriptionsOverSocket refuses a subscription sent as an HTTP request:
// its one answer would wait for an event until the deadline.
var subscriptionsOverSocket = operationCheck{"SubscriptionsOverSocket", func(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation.Operation != ast.Subscription || ctx.Value(overHTTPKey{}) == nil {
		return nil
	}
	return codedError(apperr.BadRequest, "subscriptions are served over the websocket at /graphql (graphql-transport-ws), not over HTTP requests")
}}

// withOperationDeadline runs one operation (an HTTP request, or a query
// over a websocket) under timeout; past it, the operation answers
// deadlineError.
func withOperationDeadline(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, timeout, deadlineError(timeout))
}

// deadlineError is what an operation cut off by its deadline answers.
func deadlineError(timeout time.Duration) *apperr.Error {
	return apperr.New(apperr.Unavailable, "the operation did not finish within its %s deadline", timeout)
}

// stopped is the error for an operation whose context is done: the
// deadline's own error, or the client's cancellation.
func stopped(ctx context.Context) error {
	if cause := context.Cause(ctx); cause != nil {
		if _, ok := apperr.As(cause); ok {
			return cause
		}
	}
	return ctx.Err()
}

// deadlineCheck refuses to execute an operation whose parsing and
// validation already used up its deadline.
var deadlineCheck = operationCheck{"DeadlineCheck", func(ctx context.Context, _ *graphql.OperationContext) *gqlerror.Error {
	if ctx.Err() == nil {
		return nil
	}
	e := AppError(stopped(ctx))
	return codedError(e.Code, "%s", e.Message)
}}

// stopAtDeadline resolves no further field once the operation's context is
// done, so a large answer stops being built too, not only its queries.
func stopAtDeadline(ctx context.Context, next graphql.Resolver) (any, error) {
	if ctx.Err() != nil {
		return nil, stopped(ctx)
	}
	return next(ctx)
}

// capErrors keeps a response's errors to MaxErrors, and says how many more
// there were, so a query cannot make an answer many times its own size.
func capErrors(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp == nil || len(resp.Errors) <= MaxErrors {
		return resp
	}
	more := len(resp.Errors) - MaxErrors
	resp.Errors = append(resp.Errors[:MaxErrors:MaxErrors], codedError("TOO_MANY_ERRORS", "%d more errors not shown", more))
	return resp
}

// codeEveryError gives every error of an operation's answer a code. Errors
// made outside the resolvers (entgql's transaction handling) carry none;
// they are internal, or, past the deadline, the deadline's.
func codeEveryError(logger *slog.Logger) graphql.OperationMiddleware {
	return func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		responses := next(ctx)
		return func(ctx context.Context) *graphql.Response {
			resp := responses(ctx)
			if resp == nil {
				return nil
			}
			for i, err := range resp.Errors {
				if err.Extensions["code"] != nil {
					continue
				}
				resp.Errors[i] = presentError(ctx, err)
				if resp.Errors[i].Extensions["code"] == apperr.Internal {
					logger.ErrorContext(ctx, "graphql operation failed", "err", err.Message)
				}
			}
			return resp
		}
	}
}
