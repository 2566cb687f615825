package autorun

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/automationrun"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/autodef"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/webhooks"
)

// clock is the runner's clock, moved by hand so retries fall due when a
// test says.
type clock struct {
	mu sync.Mutex
	at time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = c.at.Add(d)
}

// env is a real database with an organization and a runner over it.
type env struct {
	db     *store.DB
	url    string // db's, for a second pool over it
	org    *ent.Organization
	admin  context.Context // acts for org with every scope
	sys    context.Context
	stages []*ent.PipelineStage
	clock  *clock
	cfg    webhooks.Config
	runner *Runner
}

// newEnv opens a fresh database; the runner retries on schedule.
func newEnv(t *testing.T, schedule ...time.Duration) *env {
	t.Helper()
	ctx := context.Background()
	url := storetest.URL(t)
	db, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	org, _, err := store.CreateOrganization(ctx, db.Client, "Acme Brokers")
	if err != nil {
		t.Fatal(err)
	}
	sys := rule.SystemContext(ctx)
	stages, err := db.Client.PipelineStage.Query().Where(pipelinestage.OrgID(org.ID)).Order(pipelinestage.ByPosition()).All(sys)
	if err != nil {
		t.Fatal(err)
	}
	cfg := webhooks.DefaultConfig()
	cfg.Poll = 20 * time.Millisecond
	if len(schedule) > 0 {
		cfg.Schedule = schedule
	}
	// As stored: to the millisecond, so times read back compare equal.
	c := &clock{at: apitime.Truncate(time.Now().UTC())}
	e := &env{db: db, url: url, org: org, sys: sys, stages: stages, clock: c, cfg: cfg,
		admin: viewer.NewContext(ctx, viewer.Viewer{OrgID: org.ID, Scopes: viewer.AllScopes})}
	e.runner = New(db, cfg, c.now, quiet())
	return e
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// automate stores an automation of the organization, as the API does.
func (e *env) automate(t *testing.T, set func(*ent.AutomationCreate), actions ...autodef.Action) *ent.Automation {
	t.Helper()
	c := e.db.Client.Automation.Create().SetName("Test automation").SetActions(actions)
	set(c)
	a, err := c.Save(e.admin)
	if err != nil {
		t.Fatalf("creating the automation: %v", err)
	}
	return a
}

// onEndpoint triggers the automation from a new inbound endpoint.
func (e *env) onEndpoint(t *testing.T) func(*ent.AutomationCreate) {
	t.Helper()
	ep, err := e.db.Client.InboundEndpoint.Create().SetName("Partner").SetEndpointKey("ep_" + uuid.NewString()).
		SetSecret("whsec_inbound_secret_0123456789").Save(e.admin)
	if err != nil {
		t.Fatal(err)
	}
	return func(c *ent.AutomationCreate) { c.SetEndpointID(ep.ID) }
}

// queue queues a run of a with input, due at the clock's now plus in.
func (e *env) queue(t *testing.T, a *ent.Automation, input map[string]any, in time.Duration) *ent.AutomationRun {
	t.Helper()
	run, err := e.db.Client.AutomationRun.Create().SetOrgID(a.OrgID).SetAutomationID(a.ID).
		SetInput(input).SetNextAttemptAt(e.clock.now().Add(in)).Save(e.sys)
	if err != nil {
		t.Fatalf("queueing a run: %v", err)
	}
	return run
}

// step runs one pass of the runner, as Run does on each wake-up, and
// returns how many runs it took.
func (e *env) step(t *testing.T) int {
	t.Helper()
	n, err := e.runner.runDue(apitime.WithClock(context.Background(), e.clock.now))
	if err != nil {
		t.Fatalf("running due automations: %v", err)
	}
	return n
}

func (e *env) reload(t *testing.T, run *ent.AutomationRun) *ent.AutomationRun {
	t.Helper()
	got, err := e.db.Client.AutomationRun.Get(e.sys, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func (e *env) leads(t *testing.T) []*ent.Lead {
	t.Helper()
	ls, err := e.db.Client.Lead.Query().Where(lead.OrgID(e.org.ID)).Order(lead.ByCreatedAt(), lead.ByID()).All(e.sys)
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// wantStatus fails unless run is status after attempts, finished or not.
func wantStatus(t *testing.T, run *ent.AutomationRun, status automationrun.Status, attempts int) {
	t.Helper()
	if run.Status != status || run.Attempts != attempts {
		t.Fatalf("run is %s after %d attempts (error %v), want %s after %d", run.Status, run.Attempts, deref(run.Error), status, attempts)
	}
	if finished := run.FinishedAt != nil; finished != (status != automationrun.StatusQueued) {
		t.Errorf("run %s has finishedAt %v", run.Status, run.FinishedAt)
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
