package graph

import (
	"context"
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"

	"github.com/lendingpipe/svc/ent/viewer"
)

// websocketTransport serves subscriptions over graphql-ws. A websocket
// whose upgrade carried no Authorization header authenticates with the
// connection_init payload's "Authorization" (browsers cannot set headers).
func websocketTransport(auth Authenticator) transport.Websocket {
	return transport.Websocket{
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
	}
}
