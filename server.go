// Command svc is the lending-pipeline service: `svc serve` runs the HTTP
// server (REST /v1 and GraphQL); `svc orgs|keys|users create` administer it.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
	"golang.org/x/term"

	"github.com/lendingpipe/svc/ent/store"
	"github.com/lendingpipe/svc/ent/viewer"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/loadtest"
	"github.com/lendingpipe/svc/webhooks"
	"github.com/lendingpipe/svc/webhooks/autorun"
)

// version is stamped at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "svc:", err)
		os.Exit(1)
	}
}

// config is every setting, read once from the environment.
type config struct {
	Addr         string
	DatabaseURL  string
	RateLimit    int
	RateWindow   time.Duration
	RedisURL     string
	IdemLease    time.Duration
	MaxBodyBytes int64
	MaxConns     int
	LogLevel     slog.Level
	Webhooks     webhooks.Config
	GraphQL      graph.HandlerConfig
}

func loadConfig(getenv func(string) string) (config, error) {
	c := config{
		Addr:         or(getenv("SVC_ADDR"), ":8080"),
		DatabaseURL:  or(getenv("SVC_DATABASE_URL"), "svc.db"),
		RateLimit:    600,
		RateWindow:   time.Minute,
		MaxBodyBytes: 1 << 20,
		Webhooks:     webhooks.DefaultConfig(),
	}
	var err error
	c.RedisURL = getenv("SVC_REDIS_URL")
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
	if v := getenv("SVC_DB_MAX_CONNS"); v != "" {
		if c.MaxConns, err = strconv.Atoi(v); err != nil || c.MaxConns < 1 {
			return c, fmt.Errorf("SVC_DB_MAX_CONNS must be a positive integer, got %q", v)
		}
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
	if v := getenv("SVC_LOG_LEVEL"); v != "" {
		if err := c.LogLevel.UnmarshalText([]byte(v)); err != nil {
			return c, fmt.Errorf("SVC_LOG_LEVEL: %w", err)
		}
	}
	return c, nil
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
	w.AllowPrivate = getenv("SVC_WEBHOOK_ALLOW_PRIVATE") == "true"
	w.AllowHTTP = getenv("SVC_WEBHOOK_ALLOW_HTTP") == "true"
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

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	logger := newLogger(stderr, cfg.LogLevel)
	if len(args) == 0 {
		args = []string{"serve"}
	}
	switch cmd := strings.Join(args[:min(2, len(args))], " "); {
	case args[0] == "serve":
		tuneGC()
		return serve(ctx, cfg, logger, stdout)
	case cmd == "orgs create":
		return orgsCreate(ctx, cfg, args[2:], stdout)
	case cmd == "keys create":
		return keysCreate(ctx, cfg, args[2:], stdout)
	case cmd == "users create":
		return usersCreate(ctx, cfg, args[2:], stdout)
	case args[0] == "reindex":
		return withDB(ctx, cfg, func(db *store.DB) error { return db.Reindex(ctx) })
	case args[0] == "seed":
		return seed(ctx, cfg, args[1:], stderr)
	case args[0] == "loadtest":
		return loadTest(ctx, cfg, args[1:], stdout)
	case args[0] == "baseline":
		tuneGC() // the same runtime as the server it is compared with
		return withDB(ctx, cfg, func(db *store.DB) error { return serveHandler(ctx, cfg.Addr, loadtest.Baseline(db)) })
	case args[0] == "openapi":
		return printOpenAPI(stdout)
	default:
		return fmt.Errorf("unknown command %q; commands: serve, orgs create, keys create, users create, reindex, seed, loadtest, baseline, openapi", strings.Join(args, " "))
	}
}

// serverGCPercent is the collector's target for a serving process. A
// request allocates a few dozen kilobytes that die with it, and the live
// heap is small (tens of MiB at a million leads), so Go's default of 100
// spent a sixth of the CPU of a single-lead GET collecting; at 300 the heap
// may grow to four times the live data, still well under 200 MB of RSS.
const serverGCPercent = 300

// tuneGC applies serverGCPercent unless GOGC is set, which wins.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
	}
}

// newLogger logs JSON, or text on a terminal for people.
func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

func serve(ctx context.Context, cfg config, logger *slog.Logger, stdout io.Writer) error {
	db, err := store.Open(ctx, cfg.DatabaseURL, store.Options{MaxOpenConns: cfg.MaxConns})
	if err != nil {
		return err
	}
	defer db.Close()
	demo, err := db.Bootstrap(ctx)
	if err != nil {
		return fmt.Errorf("creating the demo organization: %w", err)
	}
	if demo != nil {
		fmt.Fprintf(stdout, "Created demo organization %s.\nAPI key (shown once): %s\nDialer connector token (shown once): %s\n",
			demo.OrgID, demo.APIKey, demo.ConnectorToken)
	}
	srv := &http.Server{
		Addr: cfg.Addr,
		Handler: rest.NewServer(rest.Config{
			RateLimit: cfg.RateLimit, RateWindow: cfg.RateWindow, RedisURL: cfg.RedisURL, IdempotencyLease: cfg.IdemLease, MaxBodyBytes: cfg.MaxBodyBytes, Version: version,
			Webhooks: cfg.Webhooks, GraphQL: cfg.GraphQL,
		}, db, logger),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", cfg.Addr, err)
	}
	logger.Info("serving", "addr", ln.Addr().String(), "database", db.Dialect, "version", version)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	go maintainHourly(ctx, db, logger)
	if addr := os.Getenv("SVC_PPROF_ADDR"); addr != "" {
		// Profiling for operators, on its own (loopback) listener only.
		go func() { logger.Warn("pprof stopped", "err", http.ListenAndServe(addr, pprofMux())) }()
	}
	if cfg.Webhooks.AllowPrivate || cfg.Webhooks.AllowHTTP {
		logger.Warn("webhook deliveries may reach private addresses or use plain http: for development only",
			"allow_private", cfg.Webhooks.AllowPrivate, "allow_http", cfg.Webhooks.AllowHTTP)
	}
	workerDone := make(chan struct{})
	go func() { autorun.Background(ctx, db, cfg.Webhooks, time.Now, logger); close(workerDone) }()
	defer func() { <-workerDone }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// maintainHourly keeps planner statistics fresh as the data grows and
// deletes what is past its retention (expired idempotency keys; webhook
// events, deliveries and attempts older than webhooks.Retention).
func maintainHourly(ctx context.Context, db *store.DB, logger *slog.Logger) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := db.Optimize(ctx); err != nil {
			logger.Warn("refreshing planner statistics", "err", err)
		}
		now := time.Now()
		if n, err := db.PurgeIdempotency(ctx, now); err != nil {
			logger.Warn("purging idempotency records", "err", err)
		} else if n > 0 {
			logger.Info("purged expired idempotency records", "count", n)
		}
		if n, err := webhooks.Purge(ctx, db.Client, now.Add(-webhooks.Retention)); err != nil {
			logger.Warn("purging old webhook events", "err", err)
		} else if n > 0 {
			logger.Info("purged old webhook events", "count", n)
		}
	}
}

// withDB runs a command against the configured database.
func withDB(ctx context.Context, cfg config, fn func(*store.DB) error) error {
	db, err := store.Open(ctx, cfg.DatabaseURL, store.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(db)
}

func orgsCreate(ctx context.Context, cfg config, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("orgs create", flag.ContinueOnError)
	name := fs.String("name", "", "organization name (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *name == "" {
		return errors.New("orgs create: --name is required")
	}
	return withDB(ctx, cfg, func(db *store.DB) error {
		org, token, err := store.CreateOrganization(ctx, db.Client, *name)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "connector token (shown once): %s\n%s\n", token, org.ID)
		return nil
	})
}

func keysCreate(ctx context.Context, cfg config, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("keys create", flag.ContinueOnError)
	org := fs.String("org", "", "organization id (required)")
	scopes := fs.String("scopes", "", "comma-separated scopes (required)")
	kind := fs.String("kind", "live", "live (API key) or at (app token)")
	name := fs.String("name", "", "a label for the key")
	if err := fs.Parse(args); err != nil {
		return err
	}
	orgID, err := uuid.Parse(*org)
	if err != nil {
		return fmt.Errorf("keys create: --org must be an organization id: %w", err)
	}
	if *scopes == "" {
		return errors.New("keys create: --scopes is required")
	}
	return withDB(ctx, cfg, func(db *store.DB) error {
		key, _, err := store.CreateAPIKey(ctx, db.Client, orgID, *kind, *name, strings.Split(*scopes, ","))
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, key)
		return nil
	})
}

func usersCreate(ctx context.Context, cfg config, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("users create", flag.ContinueOnError)
	org := fs.String("org", "", "organization id (required)")
	var s store.UserSpec
	fs.StringVar(&s.First, "first", "", "first name")
	fs.StringVar(&s.Last, "last", "", "last name")
	fs.StringVar(&s.Email, "email", "", "email address")
	fs.StringVar(&s.Role, "role", "advisor", "advisor, agent or admin")
	fs.StringVar(&s.Team, "team", "", "team name (created when missing)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var err error
	if s.OrgID, err = uuid.Parse(*org); err != nil {
		return fmt.Errorf("users create: --org must be an organization id: %w", err)
	}
	return withDB(ctx, cfg, func(db *store.DB) error {
		u, err := store.CreateUser(ctx, db.Client, s)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, u.ID)
		return nil
	})
}

// printOpenAPI writes the document GET /v1/openapi.json serves, for linters
// and client generators that work from a file.
func printOpenAPI(stdout io.Writer) error {
	raw, err := rest.OpenAPIDocument()
	if err != nil {
		return err
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, raw, "", "  "); err != nil {
		return fmt.Errorf("formatting the OpenAPI document: %w", err)
	}
	pretty.WriteByte('\n')
	_, err = pretty.WriteTo(stdout)
	return err
}

// seed fills an organization with realistic data for load runs.
func seed(ctx context.Context, cfg config, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	org := fs.String("org", "", "organization id (required)")
	leads := fs.Int("leads", 0, "leads to create")
	agents := fs.Int("agents", 0, "dialer agents to create, each with a presence")
	events := fs.Int("events", 0, "call events to record (needs agents)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	orgID, err := uuid.Parse(*org)
	if err != nil {
		return fmt.Errorf("seed: --org must be an organization id: %w", err)
	}
	if *events > 0 && *agents == 0 {
		return errors.New("seed: --events needs --agents")
	}
	ctx = viewer.WithBulkLoad(ctx)
	return withDB(ctx, cfg, func(db *store.DB) error {
		started := time.Now()
		if *leads > 0 {
			if err := db.SeedLeads(ctx, orgID, *leads, newProgress(stderr, "leads", *leads).report); err != nil {
				return err
			}
		}
		ids, err := db.SeedAgents(ctx, orgID, *agents)
		if err != nil {
			return err
		}
		if *events > 0 {
			some, err := db.SomeLeadIDs(ctx, orgID, 10000)
			if err != nil {
				return err
			}
			if err := db.SeedCallEvents(ctx, orgID, ids, some, *events, newProgress(stderr, "call events", *events).report); err != nil {
				return err
			}
		}
		fmt.Fprintf(stderr, "seeded %d leads, %d agents, %d call events in %s\n", *leads, *agents, *events, time.Since(started).Round(time.Millisecond))
		return nil
	})
}

// progress shows a bar on a terminal and a plain line per tenth otherwise.
type progress struct {
	w         io.Writer
	what      string
	total     int
	tty       bool
	started   time.Time
	lastTenth int
}

func newProgress(w io.Writer, what string, total int) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, what: what, total: total, tty: ok && term.IsTerminal(int(f.Fd())), started: time.Now()}
}

func (p *progress) report(done int) {
	rate := float64(done) / max(time.Since(p.started).Seconds(), 1e-3)
	if p.tty {
		const width = 30
		filled := width * done / p.total
		fmt.Fprintf(p.w, "\r%s [%s%s] %3d%% %d/%d %.0f/s", p.what, strings.Repeat("#", filled), strings.Repeat(" ", width-filled),
			100*done/p.total, done, p.total, rate)
		if done == p.total {
			fmt.Fprintln(p.w)
		}
		return
	}
	if tenth := 10 * done / p.total; tenth > p.lastTenth || done == p.total {
		p.lastTenth = tenth
		fmt.Fprintf(p.w, "%s: %d/%d (%d%%), %.0f/s\n", p.what, done, p.total, 100*done/p.total, rate)
	}
}

// loadTest runs the load runner against this binary's own server.
func loadTest(ctx context.Context, cfg config, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	leads := fs.Int("leads", 10000, "leads to seed when the database has no load organization yet")
	agents := fs.Int("agents", 50, "dialer agents to seed with it")
	duration := fs.Duration("duration", 10*time.Second, "how long each scenario runs")
	warmup := fs.Duration("warmup", time.Second, "how long each scenario runs first, unmeasured")
	concurrency := fs.Int("concurrency", 8, "connections (and workers)")
	rate := fs.Int("rate", 0, "requests per second per scenario; 0 runs as fast as the connections allow")
	only := fs.String("scenarios", "", "comma-separated scenario names (default: all)")
	abusive := fs.Bool("abuse", false, "measure ordinary requests alone and beside clients sending abusive GraphQL queries (--concurrency of them; --rate is the ordinary requests' rate, default 100)")
	abuseRate := fs.Int("abuse-rate", 0, "with --abuse: abusive requests per second, all clients together; 0 sends them as fast as the clients go")
	if err := fs.Parse(args); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this binary: %w", err)
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	run := loadtest.Config{Exe: exe, DatabaseURL: cfg.DatabaseURL, Leads: *leads, Agents: *agents,
		Duration: *duration, Warmup: *warmup, Concurrency: *concurrency, Rate: *rate, Scenarios: names, AbuseRate: *abuseRate, Out: stdout}
	if *abusive {
		_, err = loadtest.RunAbuse(ctx, run)
		return err
	}
	_, err = loadtest.Run(ctx, run)
	return err
}

// serveHandler serves h on addr until ctx ends.
func serveHandler(ctx context.Context, addr string, h http.Handler) error {
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}

func pprofMux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
