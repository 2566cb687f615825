package rest

import (
	"log/slog"

	"github.com/go-chi/chi/v5"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/store"
)

// Edge is what every request to the HTTP root meets before its route,
// GraphQL's and the probes' included: the request id, the access log,
// recovery, the API version, the API key, the rate limit and the body
// limit. GraphQL's websocket sessions are held to the same API-key rules,
// through the same key cache and rate limiter.
type Edge struct {
	cfg     Config
	client  *ent.Client
	logger  *slog.Logger
	keys    *store.KeyCache
	limiter *rateLimiter
}

// NewEdge returns the edge over db; it logs through logger.
func NewEdge(cfg Config, db *store.DB, logger *slog.Logger) *Edge {
	cfg = cfg.WithDefaults()
	return &Edge{cfg: cfg, client: db.Client, logger: logger, keys: &store.KeyCache{}, limiter: newRateLimiter(cfg, logger)}
}

// Middleware is the chain, outermost first: every response, errors and 404s
// included, carries the request id, the API version and the rate-limit
// headers, and is logged, timed (Config.Metrics) and, when tracing is on,
// traced.
func (e *Edge) Middleware() chi.Middlewares {
	return chi.Middlewares{withClock(e.cfg.Now), withRequestID(e.logger), withAccessLog(e.cfg.Metrics), withRecovery, withAPIVersion,
		withAuthentication(e.client, e.keys, e.cfg.People, e.cfg.Now), withRateLimit(e.limiter),
		withPinnedVersion, withBodyLimit(e.cfg.MaxBodyBytes, e.cfg.GraphQL.WithDefaults().Uploads.RequestLimit(e.cfg.MaxBodyBytes))}
}

// WebsocketKeys holds a GraphQL websocket session to the rules for its API
// key: it is re-checked while the socket is open, and each operation draws
// from the rate budget the key's requests draw from.
func (e *Edge) WebsocketKeys() graph.WebsocketKeys {
	return websocketKeys{client: e.client, keys: e.keys, accounts: e.cfg.People, now: e.cfg.Now, limiter: e.limiter}
}

// GraphQLAuth authenticates a websocket's connection_init payload as the
// edge authenticates a request.
func (e *Edge) GraphQLAuth() graph.Authenticator {
	return graphqlAuth(e.client, e.keys, e.cfg.Now)
}
