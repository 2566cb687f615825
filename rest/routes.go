package rest

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/lendingpipe/svc/ent/apperr"
	"github.com/lendingpipe/svc/ent/store"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/webhooks"
)

// Config is what the HTTP surface needs to know; it is read once at start-up.
type Config struct {
	Webhooks   webhooks.Config
	RateLimit  int           // requests per RateWindow per API key
	RateWindow time.Duration //
	// RedisURL, when set, shares the rate-limit counters between replicas
	// (redis://host:port/db); RedisPrefix namespaces their keys.
	RedisURL, RedisPrefix string
	MaxBodyBytes          int64
	// IdempotencyLease is how long a crashed server's in-flight
	// Idempotency-Key stays locked (409) before a retry may take it over.
	IdempotencyLease time.Duration
	Version          string // build version reported by /status
	GraphQL          graph.HandlerConfig
	Now              func() time.Time
}

// NewServer returns the whole HTTP surface: REST /v1, GraphQL and health.
func NewServer(cfg Config, db *store.DB, logger *slog.Logger) http.Handler {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	resolver := graph.NewResolver(db, cfg.Now, cfg.Webhooks)
	leads := leadHandlers{resolver: resolver, client: db.Client}
	dialerH := dialerHandlers{resolver: resolver, client: db.Client}
	hooks := webhookHandlers{resolver: resolver, client: db.Client}
	inbound := inboundHandlers{resolver: resolver, client: db.Client, now: cfg.Now}
	autos := automationHandlers{resolver: resolver, client: db.Client}
	if cfg.IdempotencyLease <= 0 {
		cfg.IdempotencyLease = DefaultIdempotencyLease
	}
	idem := idempotency{client: db.Client, now: cfg.Now, lease: cfg.IdempotencyLease}.wrap
	keys := &store.KeyCache{}
	limiter := newRateLimiter(cfg, logger)
	cfg.GraphQL.WSKeys = websocketKeys{client: db.Client, keys: keys, now: cfg.Now, limiter: limiter}
	if cfg.GraphQL.WSMaxMessageBytes <= 0 {
		// A websocket message is bounded as a request body is.
		cfg.GraphQL.WSMaxMessageBytes = cfg.MaxBodyBytes
	}
	health := healthHandlers{db: db, version: cfg.Version, started: cfg.Now(), now: cfg.Now, writable: &writeCheck{db: db, log: logger}}

	r := chi.NewRouter()
	// Outermost first: every response, errors and 404s included, carries
	// the request id, the API version and the rate-limit headers.
	r.Use(withClock(cfg.Now), withRequestID(logger), withAccessLog, withRecovery, withAPIVersion,
		withAuthentication(db.Client, keys, cfg.Now), withRateLimit(limiter),
		withPinnedVersion, withBodyLimit(cfg.MaxBodyBytes))
	r.NotFound(errorHandler(func(w http.ResponseWriter, r *http.Request) error {
		return apperr.New(apperr.NotFound, "no route for %s %s", r.Method, r.URL.Path)
	}).ServeHTTP)
	r.MethodNotAllowed(errorHandler(func(w http.ResponseWriter, r *http.Request) error {
		return apperr.New(apperr.MethodNotAllowed, "%s is not allowed on %s", r.Method, r.URL.Path)
	}).ServeHTTP)

	// Public.
	r.Get("/status", errorHandler(health.status).ServeHTTP)
	r.Get("/healthz", health.live)
	r.Get("/readyz", errorHandler(health.ready).ServeHTTP)
	r.Get("/v1/webhooks/catalog", catalog)
	r.Get("/v1/openapi.json", errorHandler(openAPIHandler).ServeHTTP)
	r.Get("/metrics", metricsHandler(db).ServeHTTP)
	// Authenticated by the endpoint's HMAC signature.
	r.Post("/v1/webhooks/inbound/{endpointKey}", errorHandler(inbound.receive).ServeHTTP)
	r.Handle("/playground", graph.Playground("/graphql"))
	// Authenticated by the organization's connector token in the path.
	r.Post("/v1/dialer/connect/{orgToken}", errorHandler(connectorHandlers{dialerH}.receive).ServeHTTP)

	r.With(requireAuthOrWebsocket, withWholeBody).Handle("/graphql", graph.NewHandler(resolver, cfg.GraphQL, logger, graphqlAuth(db.Client, keys, cfg.Now)))

	// Bearer API key.
	r.Group(func(r chi.Router) {
		r.Use(requireAuth)
		r.Route("/v1/leads", func(r chi.Router) {
			r.Get("/", errorHandler(leads.list).ServeHTTP)
			r.With(idem).Post("/", errorHandler(leads.create).ServeHTTP)
			r.Get("/{id}", errorHandler(leads.get).ServeHTTP)
			r.With(idem).Patch("/{id}", errorHandler(leads.patch).ServeHTTP)
			r.Post("/{id}/stage", errorHandler(leads.moveStage).ServeHTTP)
			r.Post("/{id}/assign", errorHandler(leads.assign).ServeHTTP)
		})
		r.Route("/v1/dialer", func(r chi.Router) {
			r.With(idem).Post("/events", errorHandler(dialerH.event).ServeHTTP)
			r.With(idem).Post("/disposition", errorHandler(dialerH.disposition).ServeHTTP)
			r.Post("/presence", errorHandler(dialerH.presence).ServeHTTP)
			r.Get("/agents", errorHandler(dialerH.agents).ServeHTTP)
		})
		r.Route("/v1/app-webhooks", func(r chi.Router) {
			r.Post("/", errorHandler(hooks.create).ServeHTTP)
			r.Get("/", errorHandler(hooks.list).ServeHTTP)
			r.Patch("/{id}", errorHandler(hooks.patch).ServeHTTP)
			r.Delete("/{id}", errorHandler(hooks.delete).ServeHTTP)
			r.Get("/{id}/deliveries", errorHandler(hooks.deliveries).ServeHTTP)
			r.Post("/{id}/deliveries/{deliveryId}/replay", errorHandler(hooks.replayOne).ServeHTTP)
			r.Post("/{id}/replay", errorHandler(hooks.replayMany).ServeHTTP)
		})
		r.Route("/v1/inbound-endpoints", func(r chi.Router) {
			r.Post("/", errorHandler(inbound.create).ServeHTTP)
			r.Get("/", errorHandler(inbound.list).ServeHTTP)
			r.Patch("/{id}", errorHandler(inbound.patch).ServeHTTP)
			r.Delete("/{id}", errorHandler(inbound.delete).ServeHTTP)
			r.Get("/{id}/requests", errorHandler(inbound.requests).ServeHTTP)
		})
		r.Route("/v1/automations", func(r chi.Router) {
			r.Get("/", errorHandler(autos.list).ServeHTTP)
			r.Post("/", errorHandler(autos.create).ServeHTTP)
			r.Get("/{id}", errorHandler(autos.get).ServeHTTP)
			r.Patch("/{id}", errorHandler(autos.patch).ServeHTTP)
			r.Delete("/{id}", errorHandler(autos.delete).ServeHTTP)
			r.Get("/{id}/runs", errorHandler(autos.runs).ServeHTTP)
			r.Post("/{id}/runs/{runId}/retry", errorHandler(autos.retry).ServeHTTP)
		})
	})
	return r
}
