// Package root is the HTTP root: one router that mounts /v1, /graphql,
// the web console at /console, the GraphQL playground at /playground,
// health and metrics, and sends a browser at / to the console.
//
// It imports rest (the edge, the /v1 routes, the probes), graph (the
// GraphQL handler), console and internal/store; only package main and the
// test harness import it.
package root

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/lendingpipe/svc/console"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/graph/playground"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/telemetry"
	"github.com/lendingpipe/svc/rest"
)

const (
	graphQLPath    = rest.GraphQLPath
	playgroundPath = "/playground"
	consolePath    = "/console"
	metricsPath    = "/metrics"
)

// Handler returns the whole HTTP surface over db. Every route, GraphQL's
// and the probes' included, sits behind the same edge (rest.Edge), so every
// response carries the request id, the API version and the rate-limit
// headers, and unknown routes answer in the REST error envelope.
func Handler(cfg rest.Config, db *store.DB, logger *slog.Logger) http.Handler {
	cfg = cfg.WithDefaults()
	if cfg.Metrics == nil {
		cfg.Metrics = telemetry.NewMetrics() // this server's registry, served at /metrics
	}
	// One resolver for both surfaces: they share its presence broker and caches.
	resolver := graph.NewResolver(db, cfg.Now, cfg.Webhooks).WithAccounts(cfg.People)
	edge := rest.NewEdge(cfg, db, logger)
	health := rest.NewHealth(db, cfg, logger)

	r := chi.NewRouter()
	r.Use(edge.Middleware()...)
	r.Use(compression(consolePath + "/"))
	// Before any route: chi copies these into each group as it is made.
	r.NotFound(rest.NotFound)
	r.MethodNotAllowed(rest.MethodNotAllowed)

	r.Get("/status", health.Status)
	r.Get("/healthz", health.Live)
	r.Get("/readyz", health.Ready)
	r.Get(metricsPath, rest.Metrics(db, cfg.Metrics, logger).ServeHTTP)
	// The /v1 routes join this router's table rather than a sub-router
	// mounted at /v1, so an unrouted /v1 path is logged as sent, not as /v1/*.
	r.Group(edge.V1(resolver))
	r.With(rest.RequireAuthOrWebsocket, rest.WithWholeBody).
		Handle(graphQLPath, graph.NewHandler(resolver, graphQLConfig(cfg, edge), logger, edge.GraphQLAuth()))
	browserPages(r, cfg.OIDC != nil)
	return r
}

// browserPages routes what a browser reads, for GET and HEAD only (any
// other method is answered 405 in the error envelope): the landing
// redirect, the console and the playground, each page and each of its
// files. sso tells the console to offer single sign-on.
func browserPages(r chi.Router, sso bool) {
	r.Get("/", landing)
	r.Head("/", landing)
	pages := playground.Routes(playground.Config{Title: "Lending pipeline GraphQL", Endpoint: graphQLPath, Path: playgroundPath, SignIn: consolePath})
	for path, h := range console.Routes(console.Config{Title: "Lending pipeline", Path: consolePath, Endpoint: graphQLPath, Playground: playgroundPath, SSO: sso}) {
		pages[path] = h
	}
	for path, h := range pages {
		r.Get(path, h.ServeHTTP)
		r.Head(path, h.ServeHTTP)
	}
}

// landing sends a browser that opens the server's address to the console.
// 302 Found, the usual answer for a landing page: a permanent 301 or 308
// would stay in browsers' caches should the landing page change. Only GET
// and HEAD reach it, for which 302 and 307 behave alike, and every client
// follows a 302.
func landing(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, consolePath, http.StatusFound)
}

// OutsideContract reports whether the server answers method on path (a
// request's path or a route's pattern) outside the REST contract, which
// the OpenAPI document describes: GraphQL, Prometheus's metrics, and the
// pages a browser reads with GET or HEAD (the landing redirect, the
// console, the playground, and their files). Every other exchange is the document's: a
// documented operation or an error in its envelope.
func OutsideContract(method, path string) bool {
	switch {
	case path == graphQLPath, path == metricsPath:
		return true
	case method != http.MethodGet && method != http.MethodHead:
		return false
	}
	for _, page := range []string{consolePath, playgroundPath} {
		if path == page || strings.HasPrefix(path, page+"/") {
			return true
		}
	}
	return path == "/"
}

// graphQLConfig holds GraphQL's websocket sessions to the edge's rules: the
// API key is re-checked and draws from the shared rate budget, and a
// message is bounded as a request body is.
func graphQLConfig(cfg rest.Config, edge *rest.Edge) graph.HandlerConfig {
	gql := cfg.GraphQL
	gql.WSKeys = edge.WebsocketKeys()
	gql.Metrics = cfg.Metrics
	if gql.WSMaxMessageBytes <= 0 {
		gql.WSMaxMessageBytes = cfg.MaxBodyBytes
	}
	return gql
}
