// Command svc is the lending-pipeline service. `svc serve` (the default)
// runs the HTTP server (REST /v1 and GraphQL) with its webhook worker and
// hourly maintenance; `svc orgs|keys|users create` administer it; `svc
// reindex` rebuilds the search index; `svc seed` fills an organization with
// data for load runs, `svc loadtest` measures this binary's server against
// it and `svc baseline` serves the load runs' reference handler; `svc
// openapi` prints the OpenAPI document.
//
// Settings come from the environment (config.go); serving is in server.go
// and the other commands in commands.go.
//
// Package main is the top layer: it may import every package of the
// service, and nothing imports it.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/lendingpipe/svc/ent/store"
	"github.com/lendingpipe/svc/rest/loadtest"
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
