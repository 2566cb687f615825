package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/term"

	"github.com/lendingpipe/svc/analytics"
	"github.com/lendingpipe/svc/documents"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/telemetry"
	"github.com/lendingpipe/svc/leadimport"
	"github.com/lendingpipe/svc/people"
	"github.com/lendingpipe/svc/renewals"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/root"
	"github.com/lendingpipe/svc/seed"
	"github.com/lendingpipe/svc/webhooks"
	"github.com/lendingpipe/svc/webhooks/autorun"
)

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

// serve runs the server until ctx ends. It binds its address before it
// opens the database, so a port in use fails before a database file, demo
// data or a secret is made, and people are told where to go only once the
// server can answer. The demo organization is made with --demo, or when this
// start creates the default SQLite file (a database someone configured may
// be a production one).
func serve(ctx context.Context, cfg config, logger *slog.Logger, stdout io.Writer, withDemo bool) error {
	ln, err := listen(cfg.Addr)
	if err != nil {
		return err
	}
	defer ln.Close() // Serve closes it too; this covers the returns before it
	withDemo = withDemo || createsDefaultDatabase(cfg)
	var draining atomic.Bool
	stopTracing, err := telemetry.StartTracing(ctx, cfg.Tracing, version)
	if err != nil {
		return err
	}
	defer flushTraces(stopTracing, logger)
	if _, err := rest.OpenAPIDocument(); err != nil {
		return err
	}
	db, err := store.Open(ctx, cfg.DatabaseURL, store.Options{MaxOpenConns: cfg.MaxConns, FilesURL: cfg.StorageURL,
		Bus: cfg.Bus, RedisURL: cfg.RedisURL})
	if err != nil {
		return err
	}
	defer db.Close()
	var demo *seed.Demo
	if withDemo {
		if demo, err = seed.CreateDemo(ctx, db); err != nil {
			return err
		}
	}
	srv := &http.Server{
		Addr: cfg.Addr,
		Handler: root.Handler(rest.Config{
			RateLimit: cfg.RateLimit, RateWindow: cfg.RateWindow, RedisURL: cfg.RedisURL, IdempotencyLease: cfg.IdemLease, MaxBodyBytes: cfg.MaxBodyBytes, Version: version,
			Webhooks: cfg.Webhooks, GraphQL: cfg.GraphQL, Draining: draining.Load,
			People: people.New(cfg.SignIn), InsecureCookies: cfg.InsecureCookies, OIDC: cfg.OIDC, PublicURL: cfg.PublicURL,
		}, db, logger),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	logger.Info("serving", "addr", ln.Addr().String(), "database", db.Dialect, "bus", db.BusKind, "version", version)
	printBanner(stdout, ln.Addr(), db.Dialect, demo)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	go maintainHourly(ctx, db, cfg.AuditRetention, cfg.SignIn.IdleTimeout, logger)
	go maintainRollups(ctx, db, logger)
	go maintainFiles(ctx, db, cfg.StorageSweep, logger)
	if _, sqlite := store.SQLiteFile(cfg.DatabaseURL); cfg.StorageURL == "" && !sqlite {
		logger.Warn("files are kept in svc-files in the working directory: replicas sharing this database need SVC_STORAGE_URL (s3:// or a shared directory)")
	}
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
	// The renewal sweeper announces deals as their renewal comes due; it
	// ends with ctx, before the database closes.
	sweeperDone := make(chan struct{})
	go func() { renewals.Run(ctx, db.Client, cfg.RenewalSweep, time.Now, logger); close(sweeperDone) }()
	defer func() { <-sweeperDone }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	drain(&draining, cfg.DrainDelay, errc, logger)
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// drain marks the server as draining, so /readyz answers 503 and the load
// balancer stops sending it requests, and keeps serving for delay (the
// balancer's probe interval and threshold) before the listener closes. It
// returns early if the server stops by itself.
func drain(draining *atomic.Bool, delay time.Duration, errc chan error, logger *slog.Logger) {
	draining.Store(true)
	if delay <= 0 {
		return
	}
	logger.Info("draining: /readyz answers 503", "for", delay)
	select {
	case <-time.After(delay):
	case err := <-errc:
		errc <- err // for the caller, which reads it after Shutdown
	}
}

// flushTraces sends the spans still buffered before the process exits.
func flushTraces(stop func(context.Context) error, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := stop(ctx); err != nil {
		logger.Warn("flushing traces", "err", err)
	}
}

// listen binds addr, naming it and the cause when it cannot.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		err = op.Err // "bind: address already in use" without repeating the address
	}
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s (SVC_ADDR): %w", addr, err)
	}
	return ln, nil
}

// createsDefaultDatabase reports whether this start will create the default
// SQLite file.
func createsDefaultDatabase(cfg config) bool {
	if !cfg.DefaultDatabase {
		return false
	}
	path, ok := store.SQLiteFile(cfg.DatabaseURL)
	if !ok {
		return false
	}
	_, err := os.Stat(path)
	return errors.Is(err, os.ErrNotExist)
}

// printBanner tells a person where to go once the server listens, and the
// demo organization's secrets when this start made it.
func printBanner(w io.Writer, addr net.Addr, dialect string, demo *seed.Demo) {
	base := "http://" + browsable(addr)
	fmt.Fprintf(w, "svc %s serving on %s (database: %s)\n", version, base, dialect)
	fmt.Fprintf(w, "  REST API    %s/v1  (OpenAPI: %s/v1/openapi.json)\n", base, base)
	fmt.Fprintf(w, "  GraphQL     %s/graphql\n", base)
	fmt.Fprintf(w, "  Console     %s/console\n", base)
	fmt.Fprintf(w, "  Playground  %s/playground\n", base)
	if demo == nil {
		return
	}
	fmt.Fprintf(w, "Created demo organization %s (%s): %d advisors and %d agents in team %s, %d leads; %d lenders, %d applications, %d funded deal.\n",
		seed.DemoOrgName, demo.OrgID, demo.Advisors, demo.Agents, seed.DemoTeam, demo.Leads, demo.Lenders, demo.Applications, demo.Deals)
	fmt.Fprintf(w, "Sign in to the console as %s (admin): set a password at %s/console/#/accept/%s (once, within 72 hours)\n",
		demo.Admin, base, demo.Invitation)
	fmt.Fprintf(w, "API key (shown once): %s\n", demo.APIKey)
	fmt.Fprintf(w, "  scopes: %s\n", strings.Join(demo.Scopes, ", "))
	fmt.Fprintf(w, "Dialer connector token (shown once): %s\n", demo.ConnectorToken)
	fmt.Fprintf(w, "Try: curl -s %s/v1/leads -H \"Authorization: Bearer %s\"\n", base, demo.APIKey)
}

// browsable spells a listening address as a browser may open it: a
// wildcard address (":8080") is reached on localhost.
func browsable(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return addr.String()
	}
	host := tcp.IP.String()
	if tcp.IP == nil || tcp.IP.IsUnspecified() {
		host = "localhost"
	}
	return net.JoinHostPort(host, strconv.Itoa(tcp.Port))
}

// maintainHourly keeps planner statistics fresh as the data grows and
// deletes what is past its retention (expired idempotency keys; ended
// sessions, failed sign-ins no lockout reads and single sign-ons never
// finished; webhook events, deliveries and attempts older than
// webhooks.Retention).
func maintainHourly(ctx context.Context, db *store.DB, auditRetention, sessionIdle time.Duration, logger *slog.Logger) {
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
		if n, err := db.PurgeAudit(ctx, now.Add(-auditRetention)); err != nil {
			logger.Warn("purging the audit log", "err", err)
		} else if n > 0 {
			logger.Info("purged old audit log entries", "count", n)
		}
		if n, err := people.PurgeSessions(ctx, db.Client, now, sessionIdle); err != nil {
			logger.Warn("purging ended sessions", "err", err)
		} else if n > 0 {
			logger.Info("purged ended sessions", "count", n)
		}
		if _, err := people.PurgeFailures(ctx, db.Client, now); err != nil {
			logger.Warn("purging failed sign-ins", "err", err)
		}
		if _, err := people.PurgeFlows(ctx, db.Client, now); err != nil {
			logger.Warn("purging unfinished single sign-ons", "err", err)
		}
		if n, err := webhooks.Purge(ctx, db.Client, now.Add(-webhooks.Retention)); err != nil {
			logger.Warn("purging old webhook events", "err", err)
		} else if n > 0 {
			logger.Info("purged old webhook events", "count", n)
		}
	}
}

// rollupCheck is how often the server looks for organizations whose
// analytics rollups are not cut in their time zone.
const rollupCheck = time.Minute

// maintainRollups rebuilds, at start and then every rollupCheck, the
// analytics rollups of organizations that changed time zone or predate
// them; until then their reports read the records.
func maintainRollups(ctx context.Context, db *store.DB, logger *slog.Logger) {
	t := time.NewTicker(rollupCheck)
	defer t.Stop()
	for {
		orgs, err := db.StaleRollups(ctx)
		if err != nil {
			logger.Warn("looking for stale analytics rollups", "err", err)
		}
		for _, org := range orgs {
			started := time.Now()
			if err := analytics.RebuildRollups(ctx, db.Client, org); err != nil {
				logger.Warn("rebuilding analytics rollups", "org", org, "err", err)
				continue
			}
			logger.Info("rebuilt analytics rollups", "org", org, "took", time.Since(started).Round(time.Millisecond))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// fileSweeps remove the stored files no record names, each under its own
// prefix of the file store.
var fileSweeps = []struct {
	what  string
	sweep func(context.Context, *store.DB, time.Time) (int, error)
}{
	{"documents", documents.SweepFiles},
	{"lead imports", leadimport.SweepFiles},
}

// sweepGrace is the least age of a file the sweep may remove: longer than
// any upload takes from its bytes being stored to its record committing
// (an S3 object may be dated from the start of its upload).
const sweepGrace = 10 * time.Minute

// maintainFiles removes, every interval, the files older than interval
// (and than sweepGrace) that no record names: the bytes of an upload whose
// record did not commit, and the files of finished imports.
func maintainFiles(ctx context.Context, db *store.DB, interval time.Duration, logger *slog.Logger) {
	grace := max(interval, sweepGrace)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, s := range fileSweeps {
			if n, err := s.sweep(ctx, db, time.Now().Add(-grace)); err != nil {
				logger.Warn("sweeping unnamed files", "of", s.what, "err", err)
			} else if n > 0 {
				logger.Info("removed unnamed files", "of", s.what, "count", n)
			}
		}
	}
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
