package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks"
)

// A mutation operation runs in one transaction: one that answers with an
// error keeps nothing of its earlier fields and wakes no worker (the event
// they wrote is rolled back with them); one that succeeds commits, and the
// worker is woken once it has. The handler runs alone over the database, so
// no worker takes the wake-up first.
func TestMutationsRunInOneTransaction(t *testing.T) {
	db := storetest.Open(t)
	org, _ := resttest.OrgWithKey(t, db, "Whole Co", viewer.AllScopes...)
	cfg := webhooks.DefaultConfig()
	h := graph.NewHandler(graph.NewResolver(db, time.Now, cfg), graph.HandlerConfig{}, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	as := viewer.Viewer{OrgID: org.ID, Scopes: viewer.AllScopes}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(viewer.NewContext(r.Context(), as)))
	}))
	defer srv.Close()
	post := func(query string) map[string]any {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"query": query})
		resp, err := srv.Client().Post(srv.URL, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	leads := func() int {
		t.Helper()
		n, err := db.Client.Lead.Query().Count(rule.SystemContext(context.Background()))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	woken(db) // a signal left by set-up
	failed := post(`mutation { a: createLead(input: {businessName: "Rolled"}) { id } b: createLead(input: {email: "bad"}) { id } }`)
	if failed["errors"] == nil {
		t.Fatalf("the second field did not fail: %v", failed)
	}
	if n := leads(); n != 0 {
		t.Errorf("a failed operation left %d leads behind", n)
	}
	if woken(db) {
		t.Error("a rolled-back operation woke the worker")
	}

	kept := post(`mutation { createLead(input: {businessName: "Kept"}) { id } }`)
	if kept["errors"] != nil {
		t.Fatalf("createLead: %v", kept)
	}
	if n := leads(); n != 1 {
		t.Errorf("%d leads after one committed create, want 1", n)
	}
	if !woken(db) {
		t.Error("the committed operation did not wake the worker")
	}
}
