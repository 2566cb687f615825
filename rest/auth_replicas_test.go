package rest_test

import (
	"context"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/people"
	"github.com/lendingpipe/svc/rest"
)

// authCall posts or gets path on base with the session cookie (and its
// CSRF token) when given.
func authCall(t *testing.T, method, base, path, body, cookie, csrf string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	if csrf != "" {
		req.Header.Set(rest.CSRFHeader, csrf)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// Sessions, lockouts and the per-address sign-in budget hold across
// replicas: a sign-out on one refuses the session on the other at once;
// failures on both count toward one lockout; with Redis, attempts on both
// draw from one budget.
func TestSignInAcrossReplicas(t *testing.T) {
	if os.Getenv(storetest.EnvURL) == "" {
		t.Skip("needs PostgreSQL (SVC_TEST_DATABASE_URL): replicas share a database server")
	}
	reps := startReplicas(t, storetest.URL(t), 2, replicaConfig(1_000_000))
	ctx := context.Background()
	org, _, err := store.CreateOrganization(ctx, reps[0].db.Client, "Replicated People")
	if err != nil {
		t.Fatal(err)
	}
	u, err := store.CreateUser(ctx, reps[0].db.Client, store.UserSpec{OrgID: org.ID, First: "Rae", Last: "Plica",
		Email: "rae.plica@example.com", Role: "advisor"})
	if err != nil {
		t.Fatal(err)
	}
	accounts := people.New(people.Settings{})
	admin := viewer.NewContext(ctx, viewer.Viewer{OrgID: org.ID, Scopes: []string{viewer.ScopeAdmin}})
	inv, err := accounts.InviteUser(admin, reps[0].db.Client, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := accounts.AcceptInvitation(ctx, reps[0].db.Client, inv.Token, testPassword); err != nil {
		t.Fatal(err)
	}
	a, b := reps[0].srv.URL, reps[1].srv.URL
	creds := `{"email":"rae.plica@example.com","password":"` + testPassword + `"}`

	resp := authCall(t, "POST", a, "/auth/sign-in", creds, "", "")
	var cookie string
	for _, c := range resp.Cookies() {
		if c.Name == rest.SessionCookie {
			cookie = c.Name + "=" + c.Value
		}
	}
	if resp.StatusCode != http.StatusOK || cookie == "" {
		t.Fatalf("sign-in on one replica: %d", resp.StatusCode)
	}
	if r := authCall(t, "GET", b, "/auth/session", "", cookie, ""); r.StatusCode != http.StatusOK {
		t.Fatalf("the session on the other replica: %d", r.StatusCode)
	}
	v, cur, err := accounts.Authenticate(ctx, reps[0].db.Client, strings.TrimPrefix(cookie, rest.SessionCookie+"="))
	if err != nil || v.UserID != u.ID {
		t.Fatalf("the session's person: %v %v", v, err)
	}
	// The first replica holds the session in its cache, as it does while
	// the person works.
	if r := authCall(t, "GET", a, "/v1/leads", "", cookie, ""); r.StatusCode != http.StatusOK {
		t.Fatalf("the session on the first replica: %d", r.StatusCode)
	}
	if r := authCall(t, "POST", b, "/auth/sign-out", "", cookie, cur.CSRFToken); r.StatusCode != http.StatusNoContent {
		t.Fatalf("sign-out on the other replica: %d", r.StatusCode)
	}
	if r := authCall(t, "GET", b, "/v1/leads", "", cookie, ""); r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the signed-out session on the replica that signed it out: %d, want 401 at once", r.StatusCode)
	}
	signedOut := time.Now()
	for authCall(t, "GET", a, "/v1/leads", "", cookie, "").StatusCode != http.StatusUnauthorized {
		if time.Since(signedOut) > 2*people.SessionCacheTTL {
			t.Fatalf("the first replica still serves the signed-out session after %s", time.Since(signedOut))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("the other replica refused the signed-out session after %s", time.Since(signedOut).Round(time.Millisecond))

	wrong := `{"email":"rae.plica@example.com","password":"not the password"}`
	for i := range people.LockoutFailures {
		if r := authCall(t, "POST", reps[i%2].srv.URL, "/auth/sign-in", wrong, "", ""); r.StatusCode != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d", i+1, r.StatusCode)
		}
	}
	for _, base := range []string{a, b} {
		if r := authCall(t, "POST", base, "/auth/sign-in", creds, "", ""); r.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("after five failures spread over two replicas: %d, want 429 on both", r.StatusCode)
		}
	}

	if os.Getenv("SVC_TEST_REDIS_URL") == "" {
		return
	}
	// 8 attempts so far from this address; the budget is 20 a minute on
	// both replicas together. Each guess names another email, so no
	// lockout answers first.
	for i := 8; i < rest.DefaultSignInsPerMinute; i++ {
		guess := `{"email":"guess` + strconv.Itoa(i) + `@example.com","password":"p"}`
		if r := authCall(t, "POST", reps[i%2].srv.URL, "/auth/sign-in", guess, "", ""); r.StatusCode != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d", i+1, r.StatusCode)
		}
	}
	if r := authCall(t, "POST", b, "/auth/sign-in", `{"email":"x@example.com","password":"p"}`, "", ""); r.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("attempt %d across replicas: %d, want 429 (the budget is shared through Redis)", rest.DefaultSignInsPerMinute+1, r.StatusCode)
	}
}
