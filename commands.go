package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"golang.org/x/term"

	"github.com/lendingpipe/svc/ent/store"
	"github.com/lendingpipe/svc/ent/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/loadtest"
)

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
