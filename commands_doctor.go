package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"entgo.io/ent/dialect"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/lendingpipe/svc/internal/filestore"
	"github.com/lendingpipe/svc/internal/store"
)

// A finding is one line of the doctor's report.
type finding struct {
	level string // ok, warn or fail
	check string
	msg   string
}

// doctor checks a deployment: its settings against each other and against
// how many replicas will run, and each connection they name (the database,
// Redis, the file store). It changes nothing but a heartbeat row and one
// probe file, which it removes.
type doctor struct {
	cfg      config
	replicas int
	timeout  time.Duration
	getenv   func(string) string
	found    []finding
}

func setupDoctor(fs *flag.FlagSet) action {
	replicas := fs.Int("replicas", 1, "how many svc serve processes will share the database")
	timeout := fs.Duration("timeout", 5*time.Second, "how long each connection may take to answer")
	return func(ctx context.Context, e env) error {
		if *replicas < 1 {
			return usagef("doctor", "--replicas must be at least 1")
		}
		d := &doctor{cfg: e.cfg, replicas: *replicas, timeout: *timeout, getenv: os.Getenv}
		d.run(ctx)
		return d.report(e.stdout)
	}
}

func (d *doctor) add(level, check, format string, args ...any) {
	d.found = append(d.found, finding{level, check, fmt.Sprintf(format, args...)})
}

func (d *doctor) run(ctx context.Context) {
	d.checkDatabase(ctx)
	d.checkRedis(ctx)
	d.checkFiles(ctx)
	d.checkWebhooks()
	d.checkTracing()
}

// report prints the findings and fails when any check failed.
func (d *doctor) report(w io.Writer) error {
	failed := 0
	for _, f := range d.found {
		fmt.Fprintf(w, "%-5s %-9s %s\n", f.level, f.check, f.msg)
		if f.level == "fail" {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d checks failed", failed, len(d.found))
	}
	return nil
}

func (d *doctor) checkDatabase(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	in, err := store.Inspect(ctx, d.cfg.DatabaseURL)
	if err != nil {
		d.add("fail", "database", "%v", err)
		return
	}
	if !in.Exists {
		d.add("warn", "database", "no SQLite file at %s yet: svc serve creates it", d.cfg.DatabaseURL)
		d.checkSQLiteReplicas()
		return
	}
	name := map[string]string{dialect.Postgres: "PostgreSQL", dialect.SQLite: "SQLite"}[in.Dialect]
	if in.Dialect == dialect.Postgres && in.VersionNum < minPostgres {
		d.add("fail", "database", "%s %s is older than 13, the oldest the service runs on", name, in.Version)
		return
	}
	d.add("ok", "database", "%s %s answered in %s", name, in.Version, in.Latency.Round(time.Microsecond))
	switch {
	case !in.Migrated:
		d.add("warn", "schema", "no tables yet: the first svc serve creates them")
	case len(in.PendingDDL) > 0:
		d.add("warn", "schema", "%d statements to migrate (the next svc serve runs them, one replica at a time): %s",
			len(in.PendingDDL), strings.Join(in.PendingDDL, " "))
	default:
		d.add("ok", "schema", "current")
	}
	switch {
	case in.Writable:
		d.add("ok", "writes", "a heartbeat committed")
	case in.Migrated:
		d.add("fail", "writes", "the database does not take writes: %v", in.WriteErr)
	}
	if in.Dialect == dialect.SQLite {
		d.checkSQLiteReplicas()
		return
	}
	d.checkConnections(in)
}

// minPostgres is the oldest PostgreSQL the service runs on (13: the search
// functions' normalize() and insert-triggered autovacuum).
const minPostgres = 130000

func (d *doctor) checkSQLiteReplicas() {
	if d.replicas > 1 {
		d.add("fail", "replicas", "a SQLite database serves one process: use PostgreSQL (SVC_DATABASE_URL=postgres://...) for %d replicas", d.replicas)
	}
}

// checkConnections compares what the replicas may open with what the
// server allows: each opens up to SVC_DB_MAX_CONNS, plus one to listen
// for other replicas' changes and, while migrating, one for the lock.
func (d *doctor) checkConnections(in *store.Inspection) {
	perReplica := d.cfg.MaxConns
	if perReplica <= 0 {
		perReplica = store.DefaultMaxConns()
	}
	need := d.replicas * (perReplica + 2)
	msg := fmt.Sprintf("%d replicas × (SVC_DB_MAX_CONNS %d + 2) = %d of the server's %d (%d open now)",
		d.replicas, perReplica, need, in.MaxConnections, in.OpenConnections)
	if need > in.MaxConnections {
		d.add("fail", "pool", "%s: lower SVC_DB_MAX_CONNS or raise max_connections", msg)
		return
	}
	d.add("ok", "pool", "%s", msg)
}

func (d *doctor) checkRedis(ctx context.Context) {
	if d.cfg.RedisURL == "" {
		if d.replicas > 1 {
			d.add("warn", "redis", "SVC_REDIS_URL is unset: each of the %d replicas keeps its own rate-limit counters", d.replicas)
		}
		return
	}
	opts, err := redis.ParseURL(d.cfg.RedisURL)
	if err != nil {
		d.add("fail", "redis", "SVC_REDIS_URL: %v", err)
		return
	}
	client := redis.NewClient(opts)
	defer client.Close()
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	start := time.Now()
	if err := client.Ping(ctx).Err(); err != nil {
		d.add("fail", "redis", "%s does not answer: %v", opts.Addr, err)
		return
	}
	d.add("ok", "redis", "%s answered in %s", opts.Addr, time.Since(start).Round(time.Microsecond))
}

// checkFiles writes, reads back and removes a probe file.
func (d *doctor) checkFiles(ctx context.Context) {
	where := d.cfg.StorageURL
	if where == "" {
		where = filestore.DefaultURL(d.cfg.DatabaseURL)
		if _, sqlite := store.SQLiteFile(d.cfg.DatabaseURL); !sqlite && d.replicas > 1 {
			d.add("warn", "files", "SVC_STORAGE_URL is unset: each replica keeps documents in its own %s directory; "+
				"use s3:// or a directory every replica shares", where)
		}
	}
	if local, ok := strings.CutPrefix(where, "file://"); ok || !strings.Contains(where, "://") {
		if !ok {
			local = where
		}
		if _, err := os.Stat(local); errors.Is(err, os.ErrNotExist) {
			d.add("warn", "files", "no directory %s yet: svc serve creates it", local)
			return
		}
	}
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	if err := probeFiles(ctx, where); err != nil {
		d.add("fail", "files", "%v", err)
		return
	}
	d.add("ok", "files", "%s takes, returns and removes a file", where)
}

func probeFiles(ctx context.Context, where string) error {
	fs, err := filestore.Open(ctx, where)
	if err != nil {
		return err
	}
	defer fs.Close()
	key := "doctor/" + uuid.NewString()
	const body = "svc doctor"
	if _, err := fs.Write(ctx, key, strings.NewReader(body)); err != nil {
		return fmt.Errorf("writing to %s: %w", fs, err)
	}
	defer fs.Delete(context.WithoutCancel(ctx), key) //nolint:errcheck // a leftover probe is swept as unnamed
	r, err := fs.Open(ctx, key)
	if err != nil {
		return fmt.Errorf("reading from %s: %w", fs, err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil || string(got) != body {
		return errors.Join(fmt.Errorf("reading back from %s: got %q", fs, got), err)
	}
	return nil
}

func (d *doctor) checkWebhooks() {
	if d.cfg.Webhooks.AllowPrivate || d.cfg.Webhooks.AllowHTTP {
		d.add("warn", "webhooks", "deliveries may reach private addresses or use plain http: for development only")
	}
}

// checkTracing reports whether traces are exported (the standard OTEL_*
// variables, as svc serve reads them).
func (d *doctor) checkTracing() {
	if !d.cfg.Tracing.Enabled {
		d.add("ok", "tracing", "off (set OTEL_EXPORTER_OTLP_ENDPOINT to export traces)")
		return
	}
	endpoint := "http://localhost:4318"
	for _, v := range []string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"} {
		if e := d.getenv(v); e != "" {
			endpoint = e
			break
		}
	}
	d.add("ok", "tracing", "traces are exported over OTLP/HTTP to %s", endpoint)
}
