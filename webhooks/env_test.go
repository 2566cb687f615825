package webhooks_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/ent/webhookdelivery"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
	"github.com/lendingpipe/svc/webhooks"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

// env is a real database with an organization and a delivery worker
// running over it, as one server process has. Changes are made through the
// ent client, in transactions, so their events reach the outbox exactly as
// the operations' do.
type env struct {
	db  *store.DB
	org *ent.Organization
	// as acts for org with every scope, as its admin key.
	as  context.Context
	cfg webhooks.Config
}

// newEnv opens a fresh database and starts a worker over it with the test
// configuration as opts adjust it.
func newEnv(tb testing.TB, opts ...func(*webhooks.Config)) *env {
	tb.Helper()
	cfg := webhookstest.Config()
	for _, o := range opts {
		o(&cfg)
	}
	db := storetest.Open(tb)
	org, _, err := store.CreateOrganization(context.Background(), db.Client, "Acme Brokers")
	if err != nil {
		tb.Fatalf("creating org: %v", err)
	}
	// An admin key: subscriptions receive what their creating key may read.
	_, key, err := store.CreateAPIKey(context.Background(), db.Client, org.ID, "live", "test", []string{viewer.ScopeAdmin})
	if err != nil {
		tb.Fatalf("creating key: %v", err)
	}
	e := &env{db: db, org: org, cfg: cfg,
		as: viewer.NewContext(context.Background(), viewer.Viewer{OrgID: org.ID, KeyID: key.ID, Scopes: viewer.AllScopes})}
	startWorker(tb, db, cfg)
	return e
}

// startWorker runs a worker over db until tb ends.
func startWorker(tb testing.TB, db *store.DB, cfg webhooks.Config) {
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		webhooks.NewWorker(db.Client, db.Dialect, cfg, time.Now, testLogger(tb)).Run(ctx)
		close(done)
	}()
	tb.Cleanup(func() { stop(); <-done })
}

// testLogger writes the worker's warnings and errors into the test's log.
func testLogger(tb testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(testLog{tb}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testLog struct{ tb testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.tb.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// retries sets the retry schedule.
func retries(schedule ...time.Duration) func(*webhooks.Config) {
	return func(c *webhooks.Config) { c.Schedule = schedule }
}

// subscribe subscribes url to events for the organization, as the
// subscriptions API stores it.
func (e *env) subscribe(tb testing.TB, url string, events ...string) *ent.WebhookSubscription {
	tb.Helper()
	sub, err := e.db.Client.WebhookSubscription.Create().SetURL(url).SetEvents(events).
		SetSecret("whsec_" + uuid.NewString()).Save(e.as)
	if err != nil {
		tb.Fatalf("subscribing: %v", err)
	}
	return sub
}

// createLead creates a lead in its own transaction; its lead.created
// commits with it and wakes the worker.
func (e *env) createLead(tb testing.TB, businessName string) *ent.Lead {
	tb.Helper()
	return e.createLeadWith(tb, func(c *ent.LeadCreate) { c.SetBusinessName(businessName) })
}

func (e *env) createLeadWith(tb testing.TB, set func(*ent.LeadCreate)) *ent.Lead {
	tb.Helper()
	var l *ent.Lead
	err := store.WithTx(e.as, e.db.Client, func(ctx context.Context, tx *ent.Client) error {
		c := tx.Lead.Create()
		set(c)
		var err error
		l, err = leads.Create(ctx, tx, ent.CreateLeadInput{}, leads.Fields(c))
		return err
	})
	if err != nil {
		tb.Fatalf("creating lead: %v", err)
	}
	return l
}

// firstStage is the stage a new lead starts in.
func (e *env) firstStage(tb testing.TB) *ent.PipelineStage {
	tb.Helper()
	s, err := e.db.Client.PipelineStage.Query().Where(pipelinestage.OrgID(e.org.ID)).
		Order(pipelinestage.ByPosition()).First(rule.SystemContext(context.Background()))
	if err != nil {
		tb.Fatalf("reading stages: %v", err)
	}
	return s
}

// deliveries counts the deliveries with status.
func (e *env) deliveries(tb testing.TB, status webhookdelivery.Status) int {
	tb.Helper()
	n, err := e.db.Client.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(status)).Count(rule.SystemContext(context.Background()))
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// awaitDeliveries waits up to timeout for n deliveries with status and
// reports whether they came.
func (e *env) awaitDeliveries(tb testing.TB, status webhookdelivery.Status, n int, timeout time.Duration) bool {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for e.deliveries(tb, status) != n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	return e.deliveries(tb, status) == n
}
