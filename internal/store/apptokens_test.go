package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent/apikey"
	"github.com/lendingpipe/svc/ent/appinstallation"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
)

// PRODUCT 3: every app token belongs to an installation. No writer makes
// one without: neither the store's CreateKey nor the ent client directly.
func TestAppTokenNeedsAnInstallation(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t)
	org, _, err := store.CreateOrganization(ctx, db.Client, "Orphans")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("CreateKey", func(t *testing.T) {
		key, _, err := store.CreateKey(ctx, db.Client, org.ID, store.KeySpec{Kind: "at", Name: "cli", Scopes: []string{viewer.ScopeAdmin}})
		if err == nil {
			t.Fatalf("an app token without an installation was made: %s...", key[:12])
		}
	})
	t.Run("EntClient", func(t *testing.T) {
		_, err := db.Client.APIKey.Create().SetOrgID(org.ID).SetKind(apikey.KindAt).SetScopes([]string{viewer.ScopeAdmin}).
			SetDisplayPrefix("svc_at_abcde").SetHash(store.Hash("svc_at_orphan")).Save(rule.SystemContext(ctx))
		if err == nil {
			t.Fatal("the ent client stored an app token without an installation")
		}
	})
	n, err := db.Client.APIKey.Query().Count(rule.SystemContext(ctx))
	if err != nil || n != 0 {
		t.Errorf("keys stored: %d (%v); want none", n, err)
	}
}

// An app token a database already holds without an installed app (made by
// an older command line, or whose installation is gone or uninstalled
// while the token stayed) is refused at authentication, so upgrading cuts
// it off.
func TestOrphanAppTokensAreRefused(t *testing.T) {
	ctx := context.Background()
	sys := rule.SystemContext(ctx)
	db := storetest.Open(t)
	org, _, err := store.CreateOrganization(ctx, db.Client, "Orphans")
	if err != nil {
		t.Fatal(err)
	}
	app, err := db.Client.App.Create().SetOrgID(org.ID).SetName("Sync").SetScopes([]string{viewer.ScopeAdmin}).Save(sys)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := db.Client.AppInstallation.Create().SetOrgID(org.ID).SetAppID(app.ID).SetAppName(app.Name).
		SetScopes([]string{viewer.ScopeAdmin}).SetInstalledBy("system").Save(sys)
	if err != nil {
		t.Fatal(err)
	}
	installed, _, err := store.CreateKey(ctx, db.Client, org.ID, store.KeySpec{Kind: "at", Name: "Sync", Scopes: []string{viewer.ScopeAdmin}, InstallationID: &inst.ID})
	if err != nil {
		t.Fatal(err)
	}
	// What the older command line left: an app token row of no installation.
	orphan := "svc_at_" + "orphanorphanorphanorphanorphan0"
	if _, err := db.SQL.ExecContext(ctx, `INSERT INTO api_keys (id, created_at, updated_at, org_id, name, kind, display_prefix, hash, scopes)
		VALUES ($1, $2, $3, $4, 'cli', 'at', 'svc_at_orpha', $5, '["admin"]')`,
		"0192a0b0-0000-7000-8000-000000000001", time.Now().UTC(), time.Now().UTC(), org.ID, store.Hash(orphan)); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var kc store.KeyCache
	if _, err := kc.Authenticate(ctx, db.Client, installed, now); err != nil {
		t.Fatalf("the installed app's token: %v", err)
	}
	if _, err := kc.Authenticate(ctx, db.Client, orphan, now); !errors.Is(err, store.ErrBadKey) {
		t.Errorf("the app token of no installation: %v; want refused", err)
	}
	// Its installation uninstalled behind its back (the token not revoked).
	if err := db.Client.AppInstallation.Update().Where(appinstallation.ID(inst.ID)).SetUninstalledAt(now).Exec(sys); err != nil {
		t.Fatal(err)
	}
	var fresh store.KeyCache
	if _, err := fresh.Authenticate(ctx, db.Client, installed, now); !errors.Is(err, store.ErrBadKey) {
		t.Errorf("the app token of an uninstalled app: %v; want refused", err)
	}
}
