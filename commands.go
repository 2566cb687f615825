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

	"github.com/lendingpipe/svc/analytics"
	"github.com/lendingpipe/svc/ent/organization"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/seed"
	"github.com/lendingpipe/svc/tools/loadtest"
)

// withDB runs a command against the configured database. A command that
// needs data already there (existing) refuses a SQLite file that does not
// exist rather than creating an empty one: run in the wrong directory, it
// would fail anyway, and the stray svc.db would keep the next `svc serve`
// from making the demo organization.
func withDB(ctx context.Context, cfg config, existing bool, fn func(*store.DB) error) error {
	if path, ok := store.SQLiteFile(cfg.DatabaseURL); ok && existing {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("no database at %s (SVC_DATABASE_URL): svc serve or svc orgs create makes one", path)
		}
	}
	// The servers' bus, so what a command changes reaches their live
	// subscribers.
	db, err := store.Open(ctx, cfg.DatabaseURL, store.Options{FilesURL: cfg.StorageURL, Bus: cfg.Bus, RedisURL: cfg.RedisURL})
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(db)
}

// withOrg runs a command against an organization of the configured
// database, refusing an id the database does not hold: the write would
// otherwise fail as a bare foreign-key violation.
func withOrg(ctx context.Context, cfg config, orgID uuid.UUID, fn func(*store.DB) error) error {
	return withDB(ctx, cfg, true, func(db *store.DB) error {
		found, err := db.Client.Organization.Query().Where(organization.ID(orgID)).Exist(rule.SystemContext(ctx))
		if err != nil {
			return fmt.Errorf("looking up organization %s: %w", orgID, err)
		}
		if !found {
			return fmt.Errorf("no organization %s in this database (svc orgs create prints the ids of new ones)", orgID)
		}
		return fn(db)
	})
}

// orgFlag parses a required --org flag.
func orgFlag(command, value string) (uuid.UUID, error) {
	if value == "" {
		return uuid.Nil, usagef(command, "--org is required")
	}
	id, err := uuid.Parse(value)
	if err != nil {
		return uuid.Nil, usagef(command, "--org must be an organization id: %v", err)
	}
	return id, nil
}

func setupServe(fs *flag.FlagSet) action {
	demo := fs.Bool("demo", false, "create the demo organization (users, a team, leads and an all-scopes API key) unless the database has one")
	return func(ctx context.Context, e env) error {
		tuneGC()
		return serve(ctx, e.cfg, e.logger, e.stdout, *demo)
	}
}

func setupOrgsCreate(fs *flag.FlagSet) action {
	name := fs.String("name", "", "organization name (required)")
	return func(ctx context.Context, e env) error {
		if *name == "" {
			return usagef("orgs create", "--name is required")
		}
		return withDB(ctx, e.cfg, false, func(db *store.DB) error {
			org, token, err := store.CreateOrganization(ctx, db.Client, *name)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "connector token (shown once): %s\n%s\n", token, org.ID)
			return nil
		})
	}
}

func setupKeysCreate(fs *flag.FlagSet) action {
	org := fs.String("org", "", "organization id (required)")
	scopes := fs.String("scopes", "", "comma-separated scopes (required): "+strings.Join(viewer.AllScopes, ", "))
	kind := fs.String("kind", "live", "live (API key), the only kind made here: app tokens come from installing an app")
	name := fs.String("name", "", "a label for the key")
	return func(ctx context.Context, e env) error {
		orgID, err := orgFlag("keys create", *org)
		if err != nil {
			return err
		}
		if *scopes == "" {
			return usagef("keys create", "--scopes is required")
		}
		list := strings.Split(*scopes, ",")
		for i := range list {
			list[i] = strings.TrimSpace(list[i])
		}
		if *kind != "live" {
			// PRODUCT 3: every app token belongs to an installation.
			return usagef("keys create", "--kind: only live (an API key); an app token (svc_at_) is made only by installing an app (GraphQL installApp)")
		}
		if err := store.CheckKey(*kind, list); err != nil {
			return flagError("keys create", err)
		}
		return withOrg(ctx, e.cfg, orgID, func(db *store.DB) error {
			key, err := createKey(asOrg(ctx, orgID), db, *name, list)
			if err != nil {
				return flagError("keys create", err)
			}
			fmt.Fprintln(e.stdout, key)
			return nil
		})
	}
}

// flagError turns a validation error naming a field into a usage error
// naming the flag.
func flagError(command string, err error) error {
	if e, ok := apperr.As(err); ok && e.Field != "" {
		return usagef(command, "--%s: %s", e.Field, e.Message)
	}
	return usagef(command, "%v", err)
}

func setupUsersCreate(fs *flag.FlagSet) action {
	org := fs.String("org", "", "organization id (required)")
	var s store.UserSpec
	fs.StringVar(&s.First, "first", "", "first name")
	fs.StringVar(&s.Last, "last", "", "last name")
	fs.StringVar(&s.Email, "email", "", "email address")
	fs.StringVar(&s.Role, "role", "advisor", "advisor, agent or admin")
	fs.StringVar(&s.Team, "team", "", "team name (created when missing)")
	return func(ctx context.Context, e env) error {
		var err error
		if s.OrgID, err = orgFlag("users create", *org); err != nil {
			return err
		}
		if err := user.RoleValidator(user.Role(s.Role)); err != nil {
			return usagef("users create", "--role must be advisor, agent or admin, got %q", s.Role)
		}
		return withOrg(ctx, e.cfg, s.OrgID, func(db *store.DB) error {
			u, err := store.CreateUser(ctx, db.Client, s)
			if err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, u.ID)
			return nil
		})
	}
}

func setupReindex(*flag.FlagSet) action {
	return func(ctx context.Context, e env) error {
		return withDB(ctx, e.cfg, true, func(db *store.DB) error { return db.Reindex(ctx) })
	}
}

func setupRollupsRebuild(fs *flag.FlagSet) action {
	org := fs.String("org", "", "organization id (default: every organization)")
	return func(ctx context.Context, e env) error {
		return withDB(ctx, e.cfg, true, func(db *store.DB) error {
			var orgs []uuid.UUID
			if *org == "" {
				all, err := db.Client.Organization.Query().IDs(rule.SystemContext(ctx))
				if err != nil {
					return fmt.Errorf("listing the organizations: %w", err)
				}
				orgs = all
			} else {
				id, err := orgFlag("rollups rebuild", *org)
				if err != nil {
					return err
				}
				orgs = []uuid.UUID{id}
			}
			for _, id := range orgs {
				started := time.Now()
				if err := analytics.RebuildRollups(ctx, db.Client, id); err != nil {
					return fmt.Errorf("rebuilding the rollups of %s: %w", id, err)
				}
				fmt.Fprintf(e.stderr, "rebuilt the rollups of %s in %s\n", id, time.Since(started).Round(time.Millisecond))
			}
			return nil
		})
	}
}

func setupBaseline(*flag.FlagSet) action {
	return func(ctx context.Context, e env) error {
		tuneGC() // the same runtime as the server it is compared with
		return withDB(ctx, e.cfg, false, func(db *store.DB) error {
			return serveHandler(ctx, e.cfg.Addr, loadtest.Baseline(db))
		})
	}
}

func setupOpenAPI(*flag.FlagSet) action {
	return func(_ context.Context, e env) error { return printOpenAPI(e.stdout) }
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

// setupSeed fills an organization with realistic data for load runs.
func setupSeed(fs *flag.FlagSet) action {
	org := fs.String("org", "", "organization id (required)")
	leads := fs.Int("leads", 0, "leads to create")
	agents := fs.Int("agents", 0, "dialer agents to create, each with a presence")
	events := fs.Int("events", 0, "call events to record (needs agents)")
	lending := fs.Bool("lending", true, "with the leads, a lending book: lenders, advisors, and applications, deals and commissions for about a quarter of the leads")
	return func(ctx context.Context, e env) error {
		orgID, err := orgFlag("seed", *org)
		if err != nil {
			return err
		}
		if *leads < 0 || *agents < 0 || *events < 0 {
			return usagef("seed", "--leads, --agents and --events cannot be negative")
		}
		if *events > 0 && *agents == 0 {
			return usagef("seed", "--events needs --agents")
		}
		ctx = viewer.WithBulkLoad(ctx)
		return withOrg(ctx, e.cfg, orgID, func(db *store.DB) error {
			return runSeed(ctx, db, orgID, *leads, *lending, *agents, *events, e.stderr)
		})
	}
}

func runSeed(ctx context.Context, db *store.DB, orgID uuid.UUID, leads int, lending bool, agents, events int, stderr io.Writer) error {
	started := time.Now()
	switch {
	case leads > 0 && lending:
		book, err := seed.LeadsWithLending(ctx, db, orgID, leads, newProgress(stderr, "leads", leads).report)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "lending book: %d lenders, %d advisors; %d leads shopped, %d applications, %d decided (%d approved), %d funded deals, %d commission payments\n",
			book.Lenders, book.Advisors, book.AppliedLeads, book.Applications, book.Decided, book.Approved, book.Deals, book.Payments)
	case leads > 0:
		if err := seed.Leads(ctx, db, orgID, leads, newProgress(stderr, "leads", leads).report); err != nil {
			return err
		}
	}
	ids, err := seed.Agents(ctx, db, orgID, agents)
	if err != nil {
		return err
	}
	if events > 0 {
		some, err := seed.SomeLeadIDs(ctx, db, orgID, 10000)
		if err != nil {
			return err
		}
		if err := seed.CallEvents(ctx, db, orgID, ids, some, events, newProgress(stderr, "call events", events).report); err != nil {
			return err
		}
	}
	// The bulk load skips the hooks that keep the analytics rollups.
	if err := analytics.RebuildRollups(ctx, db.Client, orgID); err != nil {
		return err
	}
	if err := db.AfterBulkLoad(ctx); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "seeded %d leads, %d agents, %d call events in %s\n", leads, agents, events, time.Since(started).Round(time.Millisecond))
	return nil
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

// setupLoadTest runs the load runner against this binary's own server.
func setupLoadTest(fs *flag.FlagSet) action {
	leads := fs.Int("leads", 10000, "leads to seed, with their lending book, when the database has no load organization yet")
	agents := fs.Int("agents", 50, "dialer agents to seed with it")
	duration := fs.Duration("duration", 10*time.Second, "how long each scenario runs")
	warmup := fs.Duration("warmup", time.Second, "how long each scenario runs first, unmeasured")
	concurrency := fs.Int("concurrency", 8, "connections (and workers)")
	rate := fs.Int("rate", 0, "requests per second per scenario; 0 runs as fast as the connections allow")
	only := fs.String("scenarios", "", "comma-separated scenario names (default: all)")
	abusive := fs.Bool("abuse", false, "measure ordinary requests alone and beside clients sending abusive GraphQL queries (--concurrency of them; --rate is the ordinary requests' rate, default 100)")
	abuseRate := fs.Int("abuse-rate", 0, "with --abuse: abusive requests per second, all clients together; 0 sends them as fast as the clients go")
	soak := fs.Bool("soak", false, "run the mixed soak load instead (30% create lead, 10% dialer event, 40% get lead, 20% list) for --duration against --replicas servers, delivering lead.created to a local --receiver, and report deliveries, duplicates, memory and how fast the queues empty")
	replicas := fs.Int("replicas", 1, "servers sharing the database, sent requests in turn (more than one needs PostgreSQL)")
	receiver := fs.String("receiver", loadtest.ReceiverFast, "with --soak: fast (answers 200 at once), hung (accepts connections and never answers) or refusing (resets every connection); a hung or refusing receiver's subscription is never paused")
	asJSON := fs.Bool("json", false, "with --soak: print the report as JSON")
	creates := fs.Int("creates", 30, "with --soak: the percentage of requests that create leads (100: writes and deliveries alone)")
	drain := fs.Duration("drain", time.Minute, "with --soak: how long the webhook queues have to empty after the load")
	settle := fs.Duration("settle", 10*time.Second, "with --soak: how long memory is watched after that")
	lendingVia := fs.String("lending-via", loadtest.ViaREST, "how the lending list scenarios ask: rest (the REST lists they are named by) or graphql (the applicationsPage and fundedDealsPage fields the REST lists translate onto)")
	return func(ctx context.Context, e env) error {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("finding this binary: %w", err)
		}
		var names []string
		if *only != "" {
			names = strings.Split(*only, ",")
		}
		if _, sqlite := store.SQLiteFile(e.cfg.DatabaseURL); sqlite && *replicas > 1 {
			return usagef("loadtest", "--replicas above 1 needs PostgreSQL (SVC_DATABASE_URL=postgres://...): a SQLite file serves one process")
		}
		if *lendingVia != loadtest.ViaGraphQL && *lendingVia != loadtest.ViaREST {
			return usagef("loadtest", "--lending-via must be graphql or rest")
		}
		if *creates < 1 || *creates > 100 {
			return usagef("loadtest", "--creates must be a percentage from 1 to 100")
		}
		run := loadtest.Config{Exe: exe, DatabaseURL: e.cfg.DatabaseURL, Leads: *leads, Agents: *agents,
			Duration: *duration, Warmup: *warmup, Concurrency: *concurrency, Rate: *rate, Scenarios: names, AbuseRate: *abuseRate,
			LendingVia: *lendingVia, Replicas: *replicas, Out: e.stdout}
		if *soak {
			_, err = loadtest.Soak(ctx, loadtest.SoakConfig{Config: run, Receiver: *receiver, Drain: *drain, Settle: *settle, JSON: *asJSON, Creates: *creates})
			return err
		}
		if *abusive {
			_, err = loadtest.RunAbuse(ctx, run)
			return err
		}
		_, err = loadtest.Run(ctx, run)
		return err
	}
}
