package main

import (
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/telemetry"
	"github.com/lendingpipe/svc/people"
	"github.com/lendingpipe/svc/renewals"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/webhooks"
)

// config is every setting, read once from the environment.
type config struct {
	Addr        string
	DatabaseURL string
	RateLimit   int
	RateWindow  time.Duration
	RedisURL    string
	// Bus is SVC_BUS: which change bus carries live updates between
	// replicas (store.BusAuto when empty).
	Bus          string
	IdemLease    time.Duration
	MaxBodyBytes int64
	MaxConns     int
	LogLevel     slog.Level
	// StorageURL is the file store's: a directory, file:// or s3://.
	StorageURL string
	// StorageSweep is how often files no record names are removed, and
	// how old such a file must be.
	StorageSweep time.Duration
	// RenewalSweep is how often deals whose renewal came due are announced
	// (deal.renewal_eligible): an announcement is at most this late.
	RenewalSweep time.Duration
	// AuditRetention is how long the audit log keeps an action.
	AuditRetention time.Duration
	// DrainDelay is how long a stopping server keeps serving while /readyz
	// answers 503, so the load balancer stops sending before the listener
	// closes; ShutdownTimeout bounds the wait for requests in flight.
	DrainDelay, ShutdownTimeout time.Duration
	Webhooks                    webhooks.Config
	GraphQL                     graph.HandlerConfig
	// Tracing is whether traces go to an OTLP endpoint (OTEL_*).
	Tracing telemetry.TracingConfig
	// SignIn are people's sign-in settings (SVC_SESSION_*);
	// InsecureCookies drops the session cookie's Secure attribute
	// (SVC_INSECURE_COOKIES=true, for plain-HTTP development).
	SignIn          people.Settings
	InsecureCookies bool
	// OIDC is single sign-on's provider (SVC_OIDC_*), nil when off;
	// PublicURL the service's external base URL (SVC_PUBLIC_URL).
	OIDC      *rest.OIDCConfig
	PublicURL string

	// DefaultDatabase is set when SVC_DATABASE_URL is unset: only then may
	// serve, creating the file, add the demo organization by itself.
	DefaultDatabase bool
}

func loadConfig(getenv func(string) string) (config, error) {
	c := config{
		Addr:            or(getenv("SVC_ADDR"), ":8080"),
		DatabaseURL:     or(getenv("SVC_DATABASE_URL"), "svc.db"),
		RateLimit:       600,
		RateWindow:      time.Minute,
		MaxBodyBytes:    1 << 20,
		AuditRetention:  store.DefaultAuditRetention,
		StorageSweep:    10 * time.Minute,
		RenewalSweep:    renewals.DefaultSweep,
		ShutdownTimeout: 30 * time.Second,
		Webhooks:        webhooks.DefaultConfig(),
	}
	c.DefaultDatabase = getenv("SVC_DATABASE_URL") == ""
	if err := store.CheckDatabaseURL(c.DatabaseURL); err != nil {
		return c, fmt.Errorf("SVC_DATABASE_URL: %w", err)
	}
	var err error
	c.RedisURL = getenv("SVC_REDIS_URL")
	c.Bus = or(getenv("SVC_BUS"), store.BusAuto)
	if err := store.CheckBus(c.Bus, c.DatabaseURL, c.RedisURL); err != nil {
		return c, fmt.Errorf("SVC_BUS: %w", err)
	}
	if v := getenv("SVC_IDEMPOTENCY_LEASE"); v != "" {
		if c.IdemLease, err = time.ParseDuration(v); err != nil || c.IdemLease <= 0 {
			return c, fmt.Errorf("SVC_IDEMPOTENCY_LEASE must be a positive duration such as 2m, got %q", v)
		}
	}
	if v := getenv("SVC_RATE_LIMIT"); v != "" {
		if c.RateLimit, err = strconv.Atoi(v); err != nil || c.RateLimit < 1 {
			return c, fmt.Errorf("SVC_RATE_LIMIT must be a positive integer, got %q", v)
		}
	}
	if v := getenv("SVC_RATE_WINDOW"); v != "" {
		if c.RateWindow, err = time.ParseDuration(v); err != nil || c.RateWindow <= 0 {
			return c, fmt.Errorf("SVC_RATE_WINDOW must be a positive duration such as 1m, got %q", v)
		}
	}
	if v := getenv("SVC_MAX_BODY_BYTES"); v != "" {
		if c.MaxBodyBytes, err = strconv.ParseInt(v, 10, 64); err != nil || c.MaxBodyBytes < 1024 {
			return c, fmt.Errorf("SVC_MAX_BODY_BYTES must be an integer of at least 1024, got %q", v)
		}
	}
	if v := getenv("SVC_AUDIT_RETENTION"); v != "" {
		if c.AuditRetention, err = time.ParseDuration(v); err != nil || c.AuditRetention < 24*time.Hour {
			return c, fmt.Errorf("SVC_AUDIT_RETENTION must be a duration of at least 24h, such as 8760h, got %q", v)
		}
	}
	if v := getenv("SVC_DB_MAX_CONNS"); v != "" {
		if c.MaxConns, err = strconv.Atoi(v); err != nil || c.MaxConns < 1 {
			return c, fmt.Errorf("SVC_DB_MAX_CONNS must be a positive integer, got %q", v)
		}
	}
	if err := loadShutdownConfig(&c, getenv); err != nil {
		return c, err
	}
	if err := loadWebhookConfig(&c.Webhooks, getenv); err != nil {
		return c, err
	}
	if c.GraphQL, err = loadGraphQLConfig(getenv); err != nil {
		return c, err
	}
	if err := loadWebsocketConfig(&c.GraphQL, getenv); err != nil {
		return c, err
	}
	if err := loadUploadConfig(&c.GraphQL.Uploads, getenv); err != nil {
		return c, err
	}
	c.StorageURL = getenv("SVC_STORAGE_URL")
	if v := getenv("SVC_STORAGE_SWEEP"); v != "" {
		if c.StorageSweep, err = time.ParseDuration(v); err != nil || c.StorageSweep < time.Second {
			return c, fmt.Errorf("SVC_STORAGE_SWEEP must be a duration of at least 1s, such as 10m, got %q", v)
		}
	}
	if v := getenv("SVC_RENEWAL_SWEEP"); v != "" {
		if c.RenewalSweep, err = time.ParseDuration(v); err != nil || c.RenewalSweep < time.Second {
			return c, fmt.Errorf("SVC_RENEWAL_SWEEP must be a duration of at least 1s, such as 1m, got %q", v)
		}
	}
	if v := getenv("SVC_LOG_LEVEL"); v != "" {
		if err := c.LogLevel.UnmarshalText([]byte(v)); err != nil {
			return c, fmt.Errorf("SVC_LOG_LEVEL: %w", err)
		}
	}
	if c.Tracing, err = telemetry.TracingFromEnv(getenv); err != nil {
		return c, err
	}
	if err := loadSignInConfig(&c, getenv); err != nil {
		return c, err
	}
	if err := loadSSOConfig(&c, getenv); err != nil {
		return c, err
	}
	return c, nil
}

// loadSSOConfig reads SVC_OIDC_ISSUER, SVC_OIDC_CLIENT_ID and
// SVC_OIDC_CLIENT_SECRET, all three or none, and SVC_PUBLIC_URL.
func loadSSOConfig(c *config, getenv func(string) string) error {
	if v := getenv("SVC_PUBLIC_URL"); v != "" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("SVC_PUBLIC_URL must be the service's external base URL, such as https://pipeline.example.com, got %q", v)
		}
		c.PublicURL = strings.TrimSuffix(v, "/")
	}
	names := []string{"SVC_OIDC_ISSUER", "SVC_OIDC_CLIENT_ID", "SVC_OIDC_CLIENT_SECRET"}
	var set, unset []string
	for _, name := range names {
		if getenv(name) != "" {
			set = append(set, name)
		} else {
			unset = append(unset, name)
		}
	}
	switch len(set) {
	case 0:
		return nil
	case len(names):
	default:
		return fmt.Errorf("single sign-on needs SVC_OIDC_ISSUER, SVC_OIDC_CLIENT_ID and SVC_OIDC_CLIENT_SECRET together: %s set, %s not",
			strings.Join(set, ", "), strings.Join(unset, ", "))
	}
	issuer := getenv("SVC_OIDC_ISSUER")
	if u, err := url.Parse(issuer); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("SVC_OIDC_ISSUER must be the provider's issuer URL, such as https://accounts.google.com, got %q", issuer)
	}
	c.OIDC = &rest.OIDCConfig{Issuer: issuer, ClientID: getenv("SVC_OIDC_CLIENT_ID"), ClientSecret: getenv("SVC_OIDC_CLIENT_SECRET")}
	return nil
}

// loadSignInConfig reads SVC_SESSION_IDLE_TIMEOUT, SVC_SESSION_LIFETIME
// and SVC_INSECURE_COOKIES.
func loadSignInConfig(c *config, getenv func(string) string) error {
	for _, d := range []struct {
		name string
		dst  *time.Duration
	}{{"SVC_SESSION_IDLE_TIMEOUT", &c.SignIn.IdleTimeout}, {"SVC_SESSION_LIFETIME", &c.SignIn.Lifetime}} {
		if v := getenv(d.name); v != "" {
			var err error
			if *d.dst, err = time.ParseDuration(v); err != nil || *d.dst < time.Minute {
				return fmt.Errorf("%s must be a duration of at least 1m, such as 12h, got %q", d.name, v)
			}
		}
	}
	c.SignIn = c.SignIn.WithDefaults()
	if c.SignIn.IdleTimeout > c.SignIn.Lifetime {
		return fmt.Errorf("SVC_SESSION_IDLE_TIMEOUT (%s) must not exceed SVC_SESSION_LIFETIME (%s)", c.SignIn.IdleTimeout, c.SignIn.Lifetime)
	}
	switch v := getenv("SVC_INSECURE_COOKIES"); v {
	case "", "false":
	case "true":
		c.InsecureCookies = true
	default:
		return fmt.Errorf("SVC_INSECURE_COOKIES must be true or false, got %q", v)
	}
	return nil
}

// loadShutdownConfig reads SVC_DRAIN_DELAY and SVC_SHUTDOWN_TIMEOUT.
func loadShutdownConfig(c *config, getenv func(string) string) error {
	var err error
	if v := getenv("SVC_DRAIN_DELAY"); v != "" {
		if c.DrainDelay, err = time.ParseDuration(v); err != nil || c.DrainDelay < 0 {
			return fmt.Errorf("SVC_DRAIN_DELAY must be a duration such as 10s (0 to stop at once), got %q", v)
		}
	}
	if v := getenv("SVC_SHUTDOWN_TIMEOUT"); v != "" {
		if c.ShutdownTimeout, err = time.ParseDuration(v); err != nil || c.ShutdownTimeout <= 0 {
			return fmt.Errorf("SVC_SHUTDOWN_TIMEOUT must be a positive duration such as 30s, got %q", v)
		}
	}
	return nil
}

// loadWebhookConfig reads the SVC_WEBHOOK_* settings over the SPEC defaults.
func loadWebhookConfig(w *webhooks.Config, getenv func(string) string) error {
	var err error
	if v := getenv("SVC_WEBHOOK_RETRY_SCHEDULE"); v != "" {
		if w.Schedule, err = webhooks.ParseSchedule(v); err != nil {
			return fmt.Errorf("SVC_WEBHOOK_RETRY_SCHEDULE: %w", err)
		}
	}
	if v := getenv("SVC_WEBHOOK_TIMEOUT"); v != "" {
		if w.Timeout, err = time.ParseDuration(v); err != nil || w.Timeout <= 0 {
			return fmt.Errorf("SVC_WEBHOOK_TIMEOUT must be a positive duration, got %q", v)
		}
	}
	if v := getenv("SVC_WEBHOOK_PAUSE_AFTER"); v != "" {
		if w.PauseAfter, err = strconv.Atoi(v); err != nil || w.PauseAfter < 1 {
			return fmt.Errorf("SVC_WEBHOOK_PAUSE_AFTER must be a positive integer, got %q", v)
		}
	}
	if v := getenv("SVC_WEBHOOK_POLL"); v != "" {
		if w.Poll, err = time.ParseDuration(v); err != nil || w.Poll <= 0 {
			return fmt.Errorf("SVC_WEBHOOK_POLL must be a positive duration, got %q", v)
		}
	}
	if v := getenv("SVC_WEBHOOK_CONCURRENCY"); v != "" {
		if w.Concurrency, err = strconv.Atoi(v); err != nil || w.Concurrency < 1 {
			return fmt.Errorf("SVC_WEBHOOK_CONCURRENCY must be a positive integer, got %q", v)
		}
	}
	w.AllowPrivate = getenv(webhooks.SettingAllowPrivate) == "true"
	w.AllowHTTP = getenv(webhooks.SettingAllowHTTP) == "true"
	return nil
}

// loadGraphQLConfig reads the SVC_GRAPHQL_* bounds over graph's defaults.
func loadGraphQLConfig(getenv func(string) string) (graph.HandlerConfig, error) {
	g := graph.HandlerConfig{}.WithDefaults()
	for _, s := range []struct {
		name string
		dst  *int
	}{
		{"SVC_GRAPHQL_MAX_COMPLEXITY", &g.MaxComplexity},
		{"SVC_GRAPHQL_MAX_PAGE_SIZE", &g.MaxPageSize},
		{"SVC_GRAPHQL_MAX_TOKENS", &g.MaxTokens},
	} {
		if v := getenv(s.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return g, fmt.Errorf("%s must be a positive integer, got %q", s.name, v)
			}
			*s.dst = n
		}
	}
	if v := getenv("SVC_GRAPHQL_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return g, fmt.Errorf("SVC_GRAPHQL_TIMEOUT must be a positive duration such as 15s, got %q", v)
		}
		g.Timeout = d
	}
	return g, nil
}

// maxUploadSetting bounds the upload limits: the GraphQL Int a
// document's size is answered in, and far more than a lead list needs.
const maxUploadSetting = 1 << 30

// loadUploadConfig reads SVC_DOCUMENT_MAX_BYTES and SVC_IMPORT_MAX_BYTES.
func loadUploadConfig(u *graph.UploadLimits, getenv func(string) string) error {
	for _, s := range []struct {
		name string
		dst  *int64
	}{
		{"SVC_DOCUMENT_MAX_BYTES", &u.Document},
		{"SVC_IMPORT_MAX_BYTES", &u.Import},
	} {
		if v := getenv(s.name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 || n > maxUploadSetting {
				return fmt.Errorf("%s must be an integer from 1 to %d, got %q", s.name, maxUploadSetting, v)
			}
			*s.dst = n
		}
	}
	return nil
}

// loadWebsocketConfig reads the SVC_WS_* settings of GraphQL websocket
// sessions over their defaults.
func loadWebsocketConfig(g *graph.HandlerConfig, getenv func(string) string) error {
	var err error
	if v := getenv("SVC_WS_INIT_TIMEOUT"); v != "" {
		if g.WSInitTimeout, err = time.ParseDuration(v); err != nil || g.WSInitTimeout <= 0 {
			return fmt.Errorf("SVC_WS_INIT_TIMEOUT must be a positive duration such as 10s, got %q", v)
		}
	}
	if v := getenv("SVC_WS_RECHECK_INTERVAL"); v != "" {
		if g.WSRecheckInterval, err = time.ParseDuration(v); err != nil || g.WSRecheckInterval <= 0 || g.WSRecheckInterval > store.KeyCacheTTL {
			return fmt.Errorf("SVC_WS_RECHECK_INTERVAL must be a positive duration of at most %s such as 5s, got %q", store.KeyCacheTTL, v)
		}
	}
	if v := getenv("SVC_WS_MAX_SUBSCRIPTIONS"); v != "" {
		if g.WSMaxSubscriptions, err = strconv.Atoi(v); err != nil || g.WSMaxSubscriptions < 1 {
			return fmt.Errorf("SVC_WS_MAX_SUBSCRIPTIONS must be a positive integer, got %q", v)
		}
	}
	return nil
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
