package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/lendingpipe/svc/ent/apikey"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
)

// The command line makes API keys only: asked for an app token (PRODUCT 3:
// every app token belongs to an installation) it says how one is made,
// prints no token and stores no key.
func TestKeysCreateMakesNoAppTokens(t *testing.T) {
	url := storetest.URL(t)
	db, err := store.Open(context.Background(), url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	org, _, err := store.CreateOrganization(context.Background(), db.Client, "Keys Shop")
	if err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string { return map[string]string{"SVC_DATABASE_URL": url}[k] }
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), []string{"keys", "create", "--org", org.ID.String(), "--kind", "at", "--scopes", "admin"},
		getenv, &stdout, &stderr)
	if code := exitCode(err, &stderr); code != 2 || !strings.Contains(stderr.String(), "installApp") {
		t.Errorf("keys create --kind at: exit %d, stderr %q; want 2, naming installApp", code, stderr.String())
	}
	if strings.Contains(stdout.String(), "svc_at_") {
		t.Errorf("keys create --kind at printed a token: %q", stdout.String())
	}
	n, err := db.Client.APIKey.Query().Where(apikey.OrgID(org.ID)).Count(rule.SystemContext(context.Background()))
	if err != nil || n != 0 {
		t.Errorf("keys stored: %d (%v); want none", n, err)
	}
}
