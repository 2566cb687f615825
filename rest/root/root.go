// Package root is the HTTP root: one router that mounts /v1, /graphql,
// /playground, health and metrics; the console will mount here too.
//
// It imports rest (the edge, the /v1 routes, the probes), graph (the
// GraphQL handler) and ent/store; only package main and the test harness
// import it.
package root

import (
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/lendingpipe/svc/ent/store"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/rest"
)

// Handler returns the whole HTTP surface over db. Every route, GraphQL's
// and the probes' included, sits behind the same edge (rest.Edge), so every
// response carries the request id, the API version and the rate-limit
// headers, and unknown routes answer in the REST error envelope.
func Handler(cfg rest.Config, db *store.DB, logger *slog.Logger) http.Handler {
	cfg = cfg.WithDefaults()
	// One resolver for both surfaces: they share its presence broker and caches.
	resolver := graph.NewResolver(db, cfg.Now, cfg.Webhooks)
	edge := rest.NewEdge(cfg, db, logger)
	health := rest.NewHealth(db, cfg.Version, cfg.Now, logger)

	r := chi.NewRouter()
	r.Use(edge.Middleware()...)
	// Before any route: chi copies these into each group as it is made.
	r.NotFound(rest.NotFound)
	r.MethodNotAllowed(rest.MethodNotAllowed)

	r.Get("/status", health.Status)
	r.Get("/healthz", health.Live)
	r.Get("/readyz", health.Ready)
	r.Get("/metrics", rest.Metrics(db).ServeHTTP)
	// The /v1 routes join this router's table rather than a sub-router
	// mounted at /v1, so an unrouted /v1 path is logged as sent, not as /v1/*.
	r.Group(rest.V1(cfg, resolver, db.Client))
	r.Handle("/playground", graph.Playground("/graphql"))
	r.With(rest.RequireAuthOrWebsocket, rest.WithWholeBody).
		Handle("/graphql", graph.NewHandler(resolver, graphQLConfig(cfg, edge), logger, edge.GraphQLAuth()))
	return r
}

// graphQLConfig holds GraphQL's websocket sessions to the edge's rules: the
// API key is re-checked and draws from the shared rate budget, and a
// message is bounded as a request body is.
func graphQLConfig(cfg rest.Config, edge *rest.Edge) graph.HandlerConfig {
	gql := cfg.GraphQL
	gql.WSKeys = edge.WebsocketKeys()
	if gql.WSMaxMessageBytes <= 0 {
		gql.WSMaxMessageBytes = cfg.MaxBodyBytes
	}
	return gql
}
