package graph

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"entgo.io/contrib/entgql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/99designs/gqlgen/graphql/playground"
	"github.com/gorilla/websocket"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/lendingpipe/svc/ent/apperr"
	"github.com/lendingpipe/svc/ent/viewer"
)

// MaxComplexity bounds what one query may ask for (each field costs 1,
// a connection multiplies by its page size).
const MaxComplexity = 2000

// Authenticator resolves an Authorization header value to a context that
// carries the viewer.
type Authenticator func(ctx context.Context, authorization string) (context.Context, error)

// NewHandler serves GraphQL over POST (and GET for queries), and
// subscriptions over websockets. Mutations run in a transaction
// (entgql.Transactioner), which the ent hooks share. A websocket whose
// upgrade carried no Authorization header authenticates with the
// connection_init payload's "Authorization" (browsers cannot set headers).
func NewHandler(r *Resolver, logger *slog.Logger, auth Authenticator) http.Handler {
	srv := handler.New(NewExecutableSchema(Config{Resolvers: r}))
	srv.AddTransport(transport.Websocket{
		KeepAlivePingInterval: 10 * time.Second,
		// Credentials travel in headers or the init payload, never in
		// cookies, so another origin gains nothing by connecting.
		Upgrader: websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }},
		InitFunc: func(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			if _, ok := viewer.FromContext(ctx); ok {
				return ctx, &p, nil
			}
			ctx, err := auth(ctx, p.Authorization())
			return ctx, &p, err
		},
	})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.Use(extension.Introspection{})
	srv.Use(extension.FixedComplexityLimit(MaxComplexity))
	srv.Use(depthLimit{})
	srv.Use(entgql.Transactioner{TxOpener: r.db.Client})
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
	return srv
}

// Playground serves GraphiQL pointed at endpoint.
func Playground(endpoint string) http.Handler {
	return playground.Handler("Lending pipeline GraphQL", endpoint)
}
