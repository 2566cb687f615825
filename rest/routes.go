package rest

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/telemetry"
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
	// Draining reports that the server is stopping: /readyz answers 503
	// so the load balancer sends no new requests. Nil: never.
	Draining func() bool
	// Metrics is the server's registry (the HTTP root makes it); the
	// edge records each request's latency in it. No setting.
	Metrics *telemetry.Metrics
}

// WithDefaults fills in the clock (time.Now) and the idempotency lease
// (DefaultIdempotencyLease) when they are unset.
func (cfg Config) WithDefaults() Config {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.IdempotencyLease <= 0 {
		cfg.IdempotencyLease = DefaultIdempotencyLease
	}
	return cfg
}

// V1 registers the /v1 routes on the HTTP root's router (behind its edge,
// Edge.Middleware): the public ones, the ones signed or authenticated by a
// token in their path, and the ones behind an API key. Each runs its
// operation through resolver, the one the GraphQL handler serves.
func V1(cfg Config, resolver *graph.Resolver, client *ent.Client) func(chi.Router) {
	cfg = cfg.WithDefaults()
	leads := leadHandlers{resolver: resolver, client: client}
	dialerH := dialerHandlers{resolver: resolver, client: client}
	hooks := webhookHandlers{resolver: resolver, client: client}
	inbound := inboundHandlers{resolver: resolver, client: client, now: cfg.Now}
	autos := automationHandlers{resolver: resolver, client: client}
	directory := directoryHandlers{resolver: resolver}
	lending := lendingHandlers{resolver: resolver}
	apps := appHandlers{resolver: resolver}
	docs := documentHandlers{resolver: resolver}
	reportsH := analyticsHandlers{resolver: resolver}
	idem := idempotency{client: client, now: cfg.Now, lease: cfg.IdempotencyLease}.wrap
	return func(r chi.Router) {
		// Public.
		r.Get("/v1/webhooks/catalog", errorHandler(func(w http.ResponseWriter, r *http.Request) error {
			catalog(w, r)
			return nil
		}).ServeHTTP)
		r.Get("/v1/openapi.json", errorHandler(openAPIHandler).ServeHTTP)
		// Authenticated by the endpoint's HMAC signature.
		r.Post("/v1/webhooks/inbound/{endpointKey}", errorHandler(inbound.receive).ServeHTTP)
		// Authenticated by the organization's connector token in the path.
		r.Post("/v1/dialer/connect/{orgToken}", errorHandler(connectorHandlers{dialerH}.receive).ServeHTTP)

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
			// The organization's directory: the ids the writes take.
			r.Get("/v1/stages", errorHandler(directory.stages).ServeHTTP)
			r.Get("/v1/users", errorHandler(directory.users).ServeHTTP)
			r.Get("/v1/teams", errorHandler(directory.teams).ServeHTTP)
			// The lending half, read-only (PRODUCT 1.6): writes are GraphQL mutations.
			r.Get("/v1/lenders", errorHandler(lending.lenders).ServeHTTP)
			r.Get("/v1/lenders/{id}", errorHandler(lending.lender).ServeHTTP)
			r.Get("/v1/applications", errorHandler(lending.applications).ServeHTTP)
			r.Get("/v1/applications/{id}", errorHandler(lending.application).ServeHTTP)
			r.Get("/v1/funded-deals", errorHandler(lending.fundedDeals).ServeHTTP)
			r.Get("/v1/funded-deals/{id}", errorHandler(lending.fundedDeal).ServeHTTP)
			r.Get("/v1/commissions", errorHandler(lending.commissions).ServeHTTP)
			r.Get("/v1/commissions/{id}", errorHandler(lending.commission).ServeHTTP)
			// A document's bytes; GraphQL uploads and lists documents.
			r.Get("/v1/documents/{id}/content", errorHandler(docs.content).ServeHTTP)
			r.Head("/v1/documents/{id}/content", errorHandler(docs.content).ServeHTTP)
			// The reports (PRODUCT 2), one route each: another name is 404.
			for _, rep := range reports {
				r.Get("/v1/analytics/"+rep.name, reportsH.serve(rep).ServeHTTP)
			}
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
			// Apps: the organization's installations; GraphQL registers,
			// installs and uninstalls.
			r.Get("/v1/apps/installations", errorHandler(apps.installations).ServeHTTP)
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
	}
}

// NotFound answers a request for a path no route serves, in the error
// envelope.
func NotFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, r, apperr.New(apperr.NotFound, "no route for %s %s", r.Method, r.URL.Path))
}

// MethodNotAllowed answers a request whose path is routed for other
// methods, in the error envelope.
func MethodNotAllowed(w http.ResponseWriter, r *http.Request) {
	writeError(w, r, apperr.New(apperr.MethodNotAllowed, "%s is not allowed on %s", r.Method, r.URL.Path))
}
