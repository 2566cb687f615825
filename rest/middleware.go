package rest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/httprate"
	httprateredis "github.com/go-chi/httprate-redis"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/telemetry"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/people"
)

// API versions (SPEC 9). A client may pin one with the SVC-API-Version
// request header; responses always name the version they follow.
const (
	APIVersion       = "2026-11-01"
	APIVersionHeader = "SVC-API-Version"
)

// SupportedVersions lists every version this build serves, oldest first.
var SupportedVersions = []string{APIVersion}

// RequestID is the correlation id of the request in ctx.
func RequestID(ctx context.Context) string {
	if id := viewer.RequestIDOf(ctx); id != nil {
		return *id
	}
	return ""
}

// withRequestID adopts the caller's X-Request-Id when it is a UUID (the
// type SPEC 2.1 gives meta.requestId), else makes one, and echoes it.
func withRequestID(base *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := r.Header.Get("X-Request-Id")
			if u, err := uuid.Parse(id); err != nil || len(id) != 36 {
				id = uuid.NewString()
			} else {
				id = u.String()
			}
			w.Header().Set("X-Request-Id", id)
			ctx := viewer.WithRequestID(r.Context(), id)
			ctx = context.WithValue(ctx, loggerKey{}, base.With("request_id", id))
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// withAPIVersion stamps SVC-API-Version on every response.
func withAPIVersion(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(APIVersionHeader, APIVersion)
		next.ServeHTTP(w, r)
	})
}

// withPinnedVersion refuses a pinned version this build does not serve. It
// runs after the rate limiter, so the refusal carries the rate-limit headers.
func withPinnedVersion(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get(APIVersionHeader); v != "" && !slices.Contains(SupportedVersions, v) {
			writeError(w, r, &apperr.Error{
				Code:    apperr.BadRequest,
				Message: fmt.Sprintf("unsupported %s %s", APIVersionHeader, apperr.Quote(v)),
				Detail:  map[string]any{"field": APIVersionHeader, "supportedVersions": SupportedVersions},
			})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// withRecovery turns a panic into a logged 500 in the error envelope.
func withRecovery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				writeError(w, r, fmt.Errorf("panic: %v", p))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// GraphQLPath is where the HTTP root serves GraphQL: the one path whose
// multipart requests (file uploads) may be as large as the upload limit.
const GraphQLPath = "/graphql"

// withBodyLimit caps request bodies; reading past the cap fails with
// *http.MaxBytesError, answered 413. A GraphQL multipart request may be as
// large as uploadLimit; every other body, a form to another route
// included, is held to jsonLimit.
func withBodyLimit(jsonLimit, uploadLimit int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			limit := jsonLimit
			if r.URL.Path == GraphQLPath && graph.IsMultipart(r) {
				limit = uploadLimit
			}
			if r.ContentLength > limit {
				writeError(w, r, apperr.New(apperr.PayloadTooLarge, "request body exceeds %d bytes", limit))
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, limit)
			next.ServeHTTP(w, r)
		})
	}
}

// WithWholeBody reads a request body to its end before the next handler
// sees it, so one sent in chunks over the cap is answered 413 in the
// envelope, as one declaring its length is, rather than failing half read
// inside a handler (gqlgen's) that would not say so.
//
// A multipart form is streamed instead: its files are spooled to disk as
// they arrive (graph's multipart transport), which answers its own 413.
func WithWholeBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || graph.IsMultipart(r) {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			if e, ok := apperr.As(tooLarge(err)); ok {
				err = e
			} else {
				err = apperr.New(apperr.BadRequest, "the request body could not be read")
			}
			writeError(w, r, err)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

type authKey struct{}

// authResult is what withAuthentication learned of the caller.
type authResult struct {
	viewer viewer.Viewer
	err    error // nil when authenticated
	// session is the live session the cookie named, when the request
	// authenticated by cookie; set even when err refuses the request for
	// its CSRF token or origin. sessionToken is the cookie's token, which
	// a websocket re-checks while open.
	session      *people.Session
	sessionToken string
}

// withAuthentication resolves the caller, if any, but rejects nothing:
// the rate limiter must first see who is calling (every response carries
// the rate-limit headers, 401s included), and public routes need no
// credential. A Bearer key wins over the session cookie when a request
// carries both (PRODUCT 9.3).
func withAuthentication(client *ent.Client, keys *store.KeyCache, accounts *people.Accounts, now func() time.Time) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var res authResult
			if h := r.Header.Get("Authorization"); h != "" {
				res = authenticate(r.Context(), client, keys, h, now(), store.KeyCacheTTL)
			} else if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
				res = sessionAuth(r, accounts, client, c.Value)
			} else {
				res.err = apperr.New(apperr.Unauthorized, "missing Authorization: Bearer <API key> header, or the session cookie of a person signed in")
			}
			ctx := context.WithValue(r.Context(), authKey{}, res)
			if res.err == nil {
				ctx = viewer.NewContext(ctx, res.viewer)
			}
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// authenticate resolves header from a key record read at most maxAge ago.
func authenticate(ctx context.Context, client *ent.Client, keys *store.KeyCache, header string, now time.Time, maxAge time.Duration) authResult {
	scheme, key, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return authResult{err: apperr.New(apperr.Unauthorized, "the Authorization header must be: Bearer <API key>")}
	}
	v, err := keys.AuthenticateWithin(ctx, client, strings.TrimSpace(key), now, maxAge)
	switch {
	case errors.Is(err, store.ErrBadKey):
		return authResult{err: apperr.New(apperr.Unauthorized, "the API key is invalid, revoked or expired")}
	case err != nil:
		return authResult{err: err}
	}
	return authResult{viewer: v}
}

// RequireAuthOrWebsocket guards GraphQL: it refuses as requireAuth does,
// with the same status for the same error, but in GraphQL's response shape and media type (a GraphQL client reads
// errors[].extensions.code, not the REST envelope), and lets a websocket
// upgrade without an Authorization header authenticate inside the
// protocol (GraphQL's connection_init, Edge.GraphQLAuth).
func RequireAuthOrWebsocket(next http.Handler) http.Handler {
	guarded := guard(next, func(w http.ResponseWriter, r *http.Request, err error) {
		// A key lookup that failed (the database is down) is no verdict on
		// the key: it is answered 5xx, as REST answers it.
		e, status := errorStatus(w, r, err)
		graph.WriteRequestError(w, r, status, e)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, _ := r.Context().Value(authKey{}).(authResult)
		// A websocket without an Authorization header authenticates in
		// the protocol, unless its cookie named a live session: then that
		// session's rules hold (its origin), and it is the caller.
		if r.Header.Get("Authorization") == "" && isWebsocket(r) && (res.session == nil || res.err == nil) {
			next.ServeHTTP(w, r)
			return
		}
		// Accepting an invitation needs no credential: its token is one.
		if r.Header.Get("Authorization") == "" && res.session == nil && graph.PublicOperation(r) {
			next.ServeHTTP(w, r)
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

// graphqlAuth authenticates a websocket's connection_init payload. A
// socket whose upgrade carried a live session's cookie (from this
// service's own origin) needs none: the person is the caller.
func graphqlAuth(client *ent.Client, keys *store.KeyCache, now func() time.Time) graph.Authenticator {
	return func(ctx context.Context, header string) (context.Context, error) {
		if header == "" {
			if res, _ := ctx.Value(authKey{}).(authResult); res.session != nil && res.err == nil {
				return viewer.NewContext(ctx, res.viewer), nil
			}
			return ctx, apperr.New(apperr.Unauthorized, "missing Authorization in the connection_init payload")
		}
		res := authenticate(ctx, client, keys, header, now(), store.KeyCacheTTL)
		if res.err != nil {
			return ctx, res.err
		}
		return viewer.NewContext(ctx, res.viewer), nil
	}
}

// websocketKeys holds GraphQL websocket sessions to the HTTP surface's
// rules for their key: it is re-checked while the socket is open, and each
// operation draws from the rate budget its requests draw from.
type websocketKeys struct {
	client   *ent.Client
	keys     *store.KeyCache
	accounts *people.Accounts
	now      func() time.Time
	limiter  *rateLimiter
}

// Recheck authenticates the socket's key again, or, for a socket opened
// with the session cookie, its session: a sign-out, reset or deactivation
// on any replica closes it (4401) at the next check.
func (k websocketKeys) Recheck(ctx context.Context, authorization string, maxAge time.Duration) error {
	if authorization == "" {
		if res, _ := ctx.Value(authKey{}).(authResult); res.sessionToken != "" {
			_, _, err := k.accounts.Authenticate(ctx, k.client, res.sessionToken)
			if errors.Is(err, people.ErrNoSession) {
				return apperr.New(apperr.Unauthorized, "the session has ended; sign in again")
			}
			return err
		}
	}
	return authenticate(ctx, k.client, k.keys, authorization, k.now(), maxAge).err
}

func (k websocketKeys) Allow(ctx context.Context) error {
	v, ok := viewer.FromContext(ctx)
	if !ok {
		return apperr.New(apperr.Unauthorized, "authentication required")
	}
	return k.limiter.allow(ctx, keyRateKey(v))
}

// requireAuth answers 401 unless withAuthentication found a valid key.
func requireAuth(next http.Handler) http.Handler { return guard(next, writeError) }

// guard calls next if withAuthentication found a valid key, and refuse
// with why not otherwise.
func guard(next http.Handler, refuse func(http.ResponseWriter, *http.Request, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, ok := r.Context().Value(authKey{}).(authResult)
		if !ok || res.err != nil {
			err := res.err
			if err == nil {
				err = apperr.New(apperr.Unauthorized, "authentication required")
			}
			refuse(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// challenge says how to authenticate, on every 401 (RFC 6750 section 3):
// with a bearer token, and, when the request presented one that was
// refused (unknown, revoked, expired), that it was invalid_token.
func challenge(w http.ResponseWriter, r *http.Request) {
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(token) != "" {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		return
	}
	w.Header().Set("WWW-Authenticate", "Bearer")
}

// rateLimiter limits each API key (or, before authentication succeeds,
// each client address) to limit requests per window. HTTP requests and
// websocket operations draw from the same counters.
type rateLimiter struct {
	*httprate.RateLimiter
	limit  int
	window time.Duration
	// signIns counts each client address's sign-in attempts
	// (signInLimit a minute), in the same store as the API's.
	signIns     *httprate.RateLimiter
	signInLimit int
}

func newRateLimiter(cfg Config, logger *slog.Logger) *rateLimiter {
	l := &rateLimiter{limit: cfg.RateLimit, window: cfg.RateWindow}
	opts := []httprate.Option{httprate.WithLimitHandler(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, l.refusal(w.Header()))
	})}
	if counter := redisCounter(cfg, cfg.RateWindow, "", logger); counter != nil {
		opts = append(opts, httprate.WithLimitCounter(counter))
	}
	l.RateLimiter = httprate.NewRateLimiter(cfg.RateLimit, cfg.RateWindow, opts...)
	var signInOpts []httprate.Option
	if counter := redisCounter(cfg, time.Minute, ":signin", logger); counter != nil {
		signInOpts = append(signInOpts, httprate.WithLimitCounter(counter))
	}
	l.signInLimit = cfg.SignInsPerMinute
	l.signIns = httprate.NewRateLimiter(cfg.SignInsPerMinute, time.Minute, signInOpts...)
	return l
}

// withRateLimit applies l to every request, with the X-RateLimit-*
// headers on every response.
func withRateLimit(l *rateLimiter) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if l.RespondOnLimit(w, r, rateKey(r)) {
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// allow counts one operation outside an HTTP request (a websocket's)
// against key, and refuses it when the budget is spent.
func (l *rateLimiter) allow(ctx context.Context, key string) error {
	h := headerSink{}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, "/graphql", nil)
	if err != nil {
		return fmt.Errorf("building the rate-limit check: %w", err)
	}
	if l.OnLimit(h, r, key) {
		return l.refusal(http.Header(h))
	}
	return nil
}

// refusal is the error of a spent budget; h holds the limiter's headers.
func (l *rateLimiter) refusal(h http.Header) error {
	return apperr.New(apperr.RateLimited, "rate limit of %d requests per %s exceeded; retry after %s seconds",
		l.limit, l.window, h.Get("Retry-After"))
}

// headerSink is a response that keeps only its headers, for the limiter's
// checks of websocket operations.
type headerSink http.Header

func (h headerSink) Header() http.Header       { return http.Header(h) }
func (headerSink) Write(b []byte) (int, error) { return len(b), nil }
func (headerSink) WriteHeader(int)             {}

// redisCounter shares the counters through Redis, so replicas enforce one
// limit together. When Redis does not answer within 100 ms the counter
// falls back to this process's memory (logged), and returns to Redis once
// it answers again: an outage loosens the limit rather than failing requests.
func redisCounter(cfg Config, window time.Duration, suffix string, logger *slog.Logger) httprate.LimitCounter {
	if cfg.RedisURL == "" {
		return nil
	}
	opts, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		logger.Error("SVC_REDIS_URL is not a redis:// URL; rate limits stay per process", "err", err)
		return nil
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout, opts.MaxRetries = time.Second, 100*time.Millisecond, 100*time.Millisecond, -1
	prefix := cfg.RedisPrefix
	if prefix == "" {
		prefix = "svc:ratelimit"
	}
	return httprateredis.NewCounter(&httprateredis.Config{
		Client: redis.NewClient(opts), WindowLength: window, PrefixKey: prefix + suffix,
		OnError: func(err error) { logger.Warn("rate-limit counter in Redis", "err", err) },
		OnFallbackChange: func(local bool) {
			logger.Warn("rate-limit counters", "local_fallback", local)
		},
	})
}

// rateKey is the counter a request draws from: its key's, else its
// address's.
func rateKey(r *http.Request) string {
	if v, ok := viewer.FromContext(r.Context()); ok {
		return keyRateKey(v)
	}
	return "ip:" + clientAddress(r)
}

// clientAddress is the request's client address: the TCP peer. Behind a
// proxy every client shares its bucket, which errs on the safe side until
// a trusted forwarded-for source is configured.
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return httprate.CanonicalizeIP(host)
}

// keyRateKey is the budget of a credential: a person's session draws from
// its own, an API key or app token from the key's.
func keyRateKey(v viewer.Viewer) string {
	if v.SessionID != uuid.Nil {
		return "session:" + v.SessionID.String()
	}
	return "key:" + v.KeyID.String()
}

// statusRecorder remembers the status for the access log.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Hijack lets websocket upgrades (GraphQL subscriptions) through the log.
func (s *statusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := s.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("the response writer cannot be hijacked")
	}
	s.status = http.StatusSwitchingProtocols
	return h.Hijack()
}

// logPath is the request's route pattern once routed (so secrets in the
// path, such as a connector token, never reach the log), else its path
// with any secret segment redacted: responses made before routing (413,
// 429, a refused API version) and unrouted paths have no pattern.
func logPath(r *http.Request) string {
	if p := routePattern(r); p != "" {
		return p
	}
	return redactPath(r.URL.Path)
}

// routePattern is the pattern of the route that served r, "" when none did.
func routePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		return rc.RoutePattern()
	}
	return ""
}

// secretPaths are the path prefixes whose next segment is a credential,
// with the placeholder the log shows instead.
var secretPaths = []struct {
	prefix      []string
	placeholder string
}{
	{[]string{"v1", "dialer", "connect"}, "{orgToken}"},
	{[]string{"v1", "webhooks", "inbound"}, "{endpointKey}"},
}

// redactPath replaces the secret segment of a connector or inbound path, and
// anything after it, however the path is spelled (letter case, repeated
// slashes), since a misspelt path may still carry a real token.
func redactPath(path string) string {
	segs := strings.FieldsFunc(path, func(c rune) bool { return c == '/' })
	for _, s := range secretPaths {
		if len(segs) <= len(s.prefix) {
			continue
		}
		match := true
		for i, want := range s.prefix {
			match = match && strings.EqualFold(segs[i], want)
		}
		if match {
			return "/" + strings.Join(s.prefix, "/") + "/" + s.placeholder
		}
	}
	return path
}

// withAccessLog logs one line per request. It never logs headers or
// bodies, so keys and secrets cannot reach the log.
//
// The same measure feeds the latency histogram (by route pattern, never the
// raw path) and, when tracing is on, the request's span.
func withAccessLog(metrics *telemetry.Metrics) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			rec := &statusRecorder{ResponseWriter: w}
			var span trace.Span
			if telemetry.Tracing() { // redactPath allocates: not for every request
				r, span = telemetry.StartHTTP(r, redactPath(r.URL.Path))
			}
			next.ServeHTTP(rec, r)
			took := time.Since(start)
			route := routePattern(r)
			metrics.ObserveHTTP(r.Method, route, rec.status, took)
			telemetry.EndHTTP(span, r.Method, route, rec.status)
			path := route
			if path == "" {
				path = redactPath(r.URL.Path)
			}
			logger(r.Context()).LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("method", r.Method), slog.String("path", path),
				slog.Int("status", rec.status), slog.String("duration", strconv.FormatFloat(took.Seconds()*1000, 'f', 2, 64)+"ms"))
		})
	}
}
