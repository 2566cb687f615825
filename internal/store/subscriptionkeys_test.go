package store_test

import (
	"context"
	"testing"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
)

// A subscription made before subscriptions recorded their API key gets
// it at start-up from the audit log's record of its creation; one with
// no such record keeps none (and so receives nothing).
func TestStartNamesTheKeysOfOlderSubscriptions(t *testing.T) {
	ctx := context.Background()
	url := storetest.URL(t)
	db, err := store.Open(ctx, url, store.Options{FilesURL: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	org, _, err := store.CreateOrganization(ctx, db.Client, "Acme Brokers")
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := store.CreateAPIKey(ctx, db.Client, org.ID, "live", "hooks", []string{viewer.ScopeWebhooksManage, viewer.ScopeLeadsRead})
	if err != nil {
		t.Fatal(err)
	}
	asKey := viewer.NewContext(ctx, viewer.Viewer{OrgID: org.ID, KeyID: key.ID, Scopes: key.Scopes})
	older, err := db.Client.WebhookSubscription.Create().SetURL("https://hooks.example.com/a").
		SetEvents([]string{"*"}).SetSecret("whsec_older_subscription").Save(asKey)
	if err != nil {
		t.Fatal(err)
	}
	unknown, err := db.Client.WebhookSubscription.Create().SetOrgID(org.ID).SetURL("https://hooks.example.com/b").
		SetEvents([]string{"*"}).SetSecret("whsec_unknown_subscription").Save(rule.SystemContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	// As the rows were before the upgrade: no key recorded.
	if _, err := db.SQL.ExecContext(ctx, `UPDATE webhook_subscriptions SET key_id = NULL`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = store.Open(ctx, url, store.Options{FilesURL: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	get := func(s *ent.WebhookSubscription) *ent.WebhookSubscription {
		t.Helper()
		got, err := db.Client.WebhookSubscription.Get(rule.SystemContext(ctx), s.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := get(older); got.KeyID == nil || *got.KeyID != key.ID {
		t.Errorf("the older subscription's key = %v; want %s, the audit log's creator", got.KeyID, key.ID)
	}
	if got := get(unknown); got.KeyID != nil {
		t.Errorf("the subscription with no recorded creator got key %s", got.KeyID)
	}
}
