package rest_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/people"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/root"
	"github.com/lendingpipe/svc/seed"
)

// BenchmarkGetLeadByCredential sets GET /v1/leads/{id} signed in with a
// person's session cookie beside the same request with an API key, over
// one database and one handler, in process. The two run in turn (key,
// session, session, key), so what a session costs is compared over
// seconds, not across the minutes a machine's speed may drift in.
func BenchmarkGetLeadByCredential(b *testing.B) {
	ctx := context.Background()
	db := storetest.Open(b)
	org, key := resttest.OrgWithKey(b, db, "Bench", viewer.AllScopes...)
	if err := seed.Leads(ctx, db, org.ID, 10_000, nil); err != nil {
		b.Fatal(err)
	}
	ids, err := db.Client.Lead.Query().Where(lead.OrgID(org.ID)).Limit(1000).IDs(rule.SystemContext(ctx))
	if err != nil {
		b.Fatal(err)
	}
	accounts := people.New(people.Settings{})
	cfg := rest.Config{RateLimit: 1 << 30, RateWindow: time.Minute, MaxBodyBytes: 1 << 20, Now: time.Now, People: accounts}
	handler := root.Handler(cfg, db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	cookie := benchSession(b, db, accounts, org.ID)
	credentials := map[string]func(*http.Request){
		"Key":     func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+key) },
		"Session": func(r *http.Request) { r.Header.Set("Cookie", cookie) },
	}
	for _, name := range []string{"Key", "Session", "Session", "Key"} {
		b.Run(name, func(b *testing.B) {
			set := credentials[name]
			measure(b, func(i int) {
				req := httptest.NewRequest("GET", "/v1/leads/"+ids[i%len(ids)].String(), nil)
				set(req)
				rec := httptest.NewRecorder()
				handler.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			})
		})
	}
}

// benchSession signs in a new advisor of org and answers the cookie
// header of their session.
func benchSession(b *testing.B, db *store.DB, accounts *people.Accounts, org uuid.UUID) string {
	b.Helper()
	ctx := context.Background()
	u, err := store.CreateUser(ctx, db.Client, store.UserSpec{OrgID: org, First: "Bea", Last: "Bench", Email: "bea.bench@example.com", Role: "advisor"})
	if err != nil {
		b.Fatal(err)
	}
	admin := viewer.NewContext(ctx, viewer.Viewer{OrgID: org, Scopes: []string{viewer.ScopeAdmin}})
	inv, err := accounts.InviteUser(admin, db.Client, u.ID)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := accounts.AcceptInvitation(ctx, db.Client, inv.Token, testPassword); err != nil {
		b.Fatal(err)
	}
	s, err := accounts.SignIn(ctx, db.Client, u.Email, testPassword, people.Client{})
	if err != nil {
		b.Fatal(err)
	}
	return rest.SessionCookie + "=" + s.Token
}
