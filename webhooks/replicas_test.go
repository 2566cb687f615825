package webhooks_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/seed"
	"github.com/lendingpipe/svc/webhooks"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

// Two workers, each with its own connection pool as two server processes
// would have, share one database and deliver 1,000 events: every event
// arrives, and no X-Webhook-Id arrives twice.
func TestTwoWorkersDeliverEachEventOnce(t *testing.T) {
	if os.Getenv(storetest.EnvURL) == "" {
		t.Skip("needs PostgreSQL (SVC_TEST_DATABASE_URL): SQLite is one process's file")
	}
	url := storetest.URL(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	recv := webhookstest.NewReceiver(t, webhookstest.OK)
	cfg := webhooks.DefaultConfig()
	cfg.AllowPrivate, cfg.AllowHTTP, cfg.Poll = true, true, 20*time.Millisecond
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	var dbs []*store.DB
	for range 2 {
		db, err := store.Open(ctx, url, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs = append(dbs, db)
	}
	org, _, err := store.CreateOrganization(ctx, dbs[0].Client, "Replicas")
	if err != nil {
		t.Fatal(err)
	}
	if err := createSubscription(ctx, dbs[0], org.ID, recv.URL); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, db := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			webhooks.NewWorker(db.Client, db.Dialect, cfg, time.Now, logger).Run(ctx)
		}()
	}
	if err := seed.Leads(ctx, dbs[1], org.ID, 1000, nil); err != nil {
		t.Fatal(err)
	}
	recv.Wait(t, 1000)
	time.Sleep(300 * time.Millisecond) // a duplicate would arrive now
	got := recv.Wait(t, 1000)
	seen := map[string]bool{}
	for _, d := range got {
		seen[d.Header.Get("X-Webhook-Id")] = true
	}
	cancel()
	wg.Wait()
	if len(got) != 1000 || len(seen) != 1000 {
		t.Fatalf("received %d deliveries with %d distinct ids, want 1000 and 1000", len(got), len(seen))
	}
}

func createSubscription(ctx context.Context, db *store.DB, orgID uuid.UUID, url string) error {
	scopes := []string{viewer.ScopeWebhooksManage, viewer.ScopeLeadsRead}
	_, key, err := store.CreateAPIKey(ctx, db.Client, orgID, "live", "hooks", scopes)
	if err != nil {
		return err
	}
	ctx = viewer.NewContext(ctx, viewer.Viewer{OrgID: orgID, KeyID: key.ID, Scopes: scopes})
	return db.Client.WebhookSubscription.Create().SetURL(url).SetEvents([]string{"lead.created"}).
		SetSecret("whsec_replicas_test_secret").Exec(ctx)
}
