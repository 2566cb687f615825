package rest

import (
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/telemetry"
	"github.com/lendingpipe/svc/people"
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
	// People are the sign-in flows, shared by the edge, /auth and GraphQL;
	// made with default settings when nil.
	People *people.Accounts
	// InsecureCookies drops the session cookie's Secure attribute, for
	// plain-HTTP development (SVC_INSECURE_COOKIES=true).
	InsecureCookies bool
	// SignInsPerMinute is how many sign-ins one client address may try a
	// minute; DefaultSignInsPerMinute when zero. No setting: tests that
	// send many raise it.
	SignInsPerMinute int
	// OIDC is the OpenID provider of single sign-on (SVC_OIDC_*); nil:
	// none, and /auth/oidc answers 404.
	OIDC *OIDCConfig
	// PublicURL is the service's external base URL (SVC_PUBLIC_URL), such
	// as https://pipeline.example.com: single sign-on's redirect URL is
	// under it. Empty: each request's own scheme and host.
	PublicURL string
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
	if cfg.People == nil {
		cfg.People = people.New(people.Settings{})
	}
	if cfg.SignInsPerMinute <= 0 {
		cfg.SignInsPerMinute = DefaultSignInsPerMinute
	}
	return cfg
}

// handlers serve the /v1 operations; the route table names each one's.
type handlers struct {
	leads     leadHandlers
	dialer    dialerHandlers
	hooks     webhookHandlers
	inbound   inboundHandlers
	autos     automationHandlers
	directory directoryHandlers
	lending   lendingHandlers
	apps      appHandlers
	docs      documentHandlers
	tasks     taskHandlers
	renewals  renewalHandlers
	reports   analyticsHandlers
	auth      authHandlers
	oidc      oidcHandlers
}

// V1 registers the /v1 routes of the route table on the HTTP root's router
// (behind its edge, Edge.Middleware): the public ones, the ones signed or
// authenticated by a token in their path, and the ones behind an API key.
// Each runs its operation through resolver, the one the GraphQL handler
// serves. The people's sign-in routes under /auth are the table's too.
func (e *Edge) V1(resolver *graph.Resolver) func(chi.Router) {
	cfg, client := e.cfg, e.client
	auth := authHandlers{accounts: cfg.People, client: client, secure: !cfg.InsecureCookies, limiter: e.limiter}
	h := handlers{
		auth:      auth,
		oidc:      newOIDCHandlers(auth, cfg.OIDC, cfg.PublicURL),
		leads:     leadHandlers{resolver: resolver, client: client},
		dialer:    dialerHandlers{resolver: resolver, client: client},
		hooks:     webhookHandlers{resolver: resolver, client: client},
		inbound:   inboundHandlers{resolver: resolver, client: client, now: cfg.Now},
		autos:     automationHandlers{resolver: resolver, client: client},
		directory: directoryHandlers{resolver: resolver},
		lending:   lendingHandlers{resolver: resolver},
		apps:      appHandlers{resolver: resolver},
		docs:      documentHandlers{resolver: resolver},
		tasks:     taskHandlers{resolver: resolver},
		renewals:  renewalHandlers{resolver: resolver},
		reports:   analyticsHandlers{resolver: resolver},
	}
	idem := idempotency{client: client, now: cfg.Now, lease: cfg.IdempotencyLease}.wrap
	table := routeTable(h)
	return func(r chi.Router) {
		// Public, signed, or authenticated by a token in the path.
		for _, o := range table {
			if o.serve != nil && o.auth != authBearer {
				mount(r, o, "", idem)
			}
		}
		// Bearer API key.
		r.Group(func(r chi.Router) {
			r.Use(requireAuth)
			for _, prefix := range bearerSubtrees {
				r.Route(prefix, func(r chi.Router) {
					for _, o := range table {
						if o.serve != nil && o.auth == authBearer && subtreeOf(o.path) == prefix {
							mount(r, o, prefix, idem)
						}
					}
				})
			}
			for _, o := range table {
				if o.serve != nil && o.auth == authBearer && subtreeOf(o.path) == "" {
					mount(r, o, "", idem)
				}
			}
		})
	}
}

// bearerSubtrees are the paths whose bearer operations are mounted on a
// router of their own, which serves the subtree's root with or without a
// trailing slash (/v1/leads and /v1/leads/).
var bearerSubtrees = []string{"/v1/leads", "/v1/dialer", "/v1/app-webhooks", "/v1/inbound-endpoints", "/v1/automations"}

// subtreeOf is the bearer subtree path belongs to, or "".
func subtreeOf(path string) string {
	for _, prefix := range bearerSubtrees {
		if path == prefix || strings.HasPrefix(path, prefix+"/") {
			return prefix
		}
	}
	return ""
}

// mount registers o on r, which is mounted at prefix; an operation that
// takes an Idempotency-Key runs behind the idempotency middleware.
func mount(r chi.Router, o operation, prefix string, idem func(http.Handler) http.Handler) {
	pattern := strings.TrimPrefix(o.path, prefix)
	if pattern == "" {
		pattern = "/"
	}
	if o.idem {
		r = r.With(idem)
	}
	r.Method(o.method, pattern, o.serve)
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
