package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
)

// A key bound to a user authenticates as that user; the user's
// deactivation refuses it at once in this process (the cached record is
// read again), their reactivation lets it work again, and their deletion
// refuses it for good.
func TestKeysBoundToAUserStopWithThem(t *testing.T) {
	ctx := context.Background()
	sys := rule.SystemContext(ctx)
	db := storetest.Open(t)
	org, _, err := store.CreateOrganization(ctx, db.Client, "Bound")
	if err != nil {
		t.Fatal(err)
	}
	u, err := store.CreateUser(ctx, db.Client, store.UserSpec{OrgID: org.ID, First: "Bea", Last: "Bound", Email: "bea@example.com", Role: "advisor"})
	if err != nil {
		t.Fatal(err)
	}
	bound, _, err := store.CreateKey(ctx, db.Client, org.ID, store.KeySpec{Kind: "live", Name: "bound", Scopes: []string{viewer.ScopeLeadsRead}, UserID: &u.ID})
	if err != nil {
		t.Fatal(err)
	}
	unbound, _, err := store.CreateKey(ctx, db.Client, org.ID, store.KeySpec{Kind: "live", Name: "unbound", Scopes: []string{viewer.ScopeLeadsRead}})
	if err != nil {
		t.Fatal(err)
	}
	var kc store.KeyCache
	works := func(key string) (viewer.Viewer, error) { return kc.Authenticate(ctx, db.Client, key, time.Now()) }

	v, err := works(bound)
	if err != nil || v.UserID != u.ID || v.Actor() != "user:"+u.ID.String() || v.Credential() != viewer.CredentialAPIKey {
		t.Fatalf("the bound key: %+v %v, want user %s", v, err, u.ID)
	}
	if v, err := works(unbound); err != nil || v.Actor() == "user:"+u.ID.String() {
		t.Fatalf("the unbound key: %+v %v", v, err)
	}

	if err := db.Client.User.UpdateOne(u).SetDeactivatedAt(time.Now()).Exec(sys); err != nil {
		t.Fatal(err)
	}
	if _, err := works(bound); !errors.Is(err, store.ErrBadKey) {
		t.Fatalf("the key of a deactivated user, at once: %v, want ErrBadKey", err)
	}
	if _, err := works(unbound); err != nil {
		t.Fatalf("the unbound key after the deactivation: %v", err)
	}

	if err := db.Client.User.UpdateOne(u).ClearDeactivatedAt().Exec(sys); err != nil {
		t.Fatal(err)
	}
	if _, err := works(bound); err != nil {
		t.Fatalf("the key of a reactivated user: %v", err)
	}

	if err := db.Client.User.DeleteOne(u).Exec(sys); err != nil {
		t.Fatal(err)
	}
	if _, err := works(bound); !errors.Is(err, store.ErrBadKey) {
		t.Fatalf("the key of a deleted user: %v, want ErrBadKey", err)
	}
}
