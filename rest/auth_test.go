package rest_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/lendingpipe/svc/ent/auditevent"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/people"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
)

const testPassword = "correct horse battery staple"

// A person signs in, works with the session cookie under the CSRF rule,
// and signs out; the session then ends everywhere.
func TestSignInWorkSignOut(t *testing.T) {
	e := resttest.New(t)
	u := e.NewPerson(e.Org.ID, "Ada", "Advisor", "advisor", testPassword)

	res := e.Post("/auth/sign-in", "", map[string]string{"email": "  ADA.Advisor@example.com ", "password": testPassword})
	if res.Status != http.StatusOK {
		t.Fatalf("sign-in: %d %s", res.Status, res.Raw)
	}
	var cookie *http.Cookie
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		if c.Name == rest.SessionCookie {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || !cookie.Secure || cookie.SameSite != http.SameSiteLaxMode || cookie.Path != "/" || len(cookie.Value) < 43 {
		t.Fatalf("session cookie %+v: want HttpOnly, Secure, SameSite=Lax, Path=/ and a 256-bit token", cookie)
	}
	user, _ := res.Body["user"].(map[string]any)
	csrf, _ := res.Body["csrfToken"].(string)
	if user["id"] != u.ID.String() || user["role"] != "advisor" || csrf == "" || res.Body["expiresAt"] == nil {
		t.Fatalf("sign-in body %s", res.Raw)
	}
	s := resttest.Session{Cookie: rest.SessionCookie + "=" + cookie.Value, CSRF: csrf}

	got := e.Do(resttest.Request{Method: "GET", Path: "/auth/session", Header: s.Header(false)})
	if got.Status != http.StatusOK || got.Body["csrfToken"] != csrf {
		t.Fatalf("session: %d %s", got.Status, got.Raw)
	}
	if r := e.Do(resttest.Request{Method: "GET", Path: "/v1/leads", Header: s.Header(false)}); r.Status != http.StatusOK {
		t.Fatalf("GET with the cookie: %d %s", r.Status, r.Raw)
	}
	lead := map[string]any{"businessName": "Cookie Bakery"}
	r := e.Do(resttest.Request{Method: "POST", Path: "/v1/leads", Body: lead, Header: s.Header(false)})
	if code, _ := r.Error(); r.Status != http.StatusForbidden || code != "FORBIDDEN" || !strings.Contains(string(r.Raw), "CSRF") {
		t.Fatalf("POST without the CSRF token: %d %s, want 403 naming CSRF", r.Status, r.Raw)
	}
	bad := s.Header(true)
	bad[rest.CSRFHeader] = strings.Repeat("x", len(csrf))
	if r := e.Do(resttest.Request{Method: "POST", Path: "/v1/leads", Body: lead, Header: bad}); r.Status != http.StatusForbidden {
		t.Fatalf("POST with a wrong CSRF token: %d, want 403", r.Status)
	}
	r = e.Do(resttest.Request{Method: "POST", Path: "/v1/leads", Body: lead, Header: s.Header(true)})
	if r.Status != http.StatusCreated || r.Attr("createdBy") != "user:"+u.ID.String() {
		t.Fatalf("POST with the CSRF token: %d %s, want 201 created by user:%s", r.Status, r.Raw, u.ID)
	}
	gql := map[string]any{"query": `mutation { createLead(input: {businessName: "Graph Bakery"}) { id } }`}
	if r := e.Do(resttest.Request{Method: "POST", Path: "/graphql", Body: gql, Header: s.Header(false)}); r.Status != http.StatusForbidden {
		t.Fatalf("GraphQL mutation without the CSRF token: %d %s, want 403", r.Status, r.Raw)
	}
	if r := e.Do(resttest.Request{Method: "POST", Path: "/graphql", Body: gql, Header: s.Header(true)}); r.Status != http.StatusOK || r.Body["errors"] != nil {
		t.Fatalf("GraphQL mutation with the CSRF token: %d %s", r.Status, r.Raw)
	}

	if r := e.Do(resttest.Request{Method: "POST", Path: "/auth/sign-out", Header: s.Header(false)}); r.Status != http.StatusForbidden {
		t.Fatalf("sign-out without the CSRF token: %d, want 403", r.Status)
	}
	out := e.DoRaw(resttest.Request{Method: "POST", Path: "/auth/sign-out", Header: s.Header(true)})
	if out.Status != http.StatusNoContent || !strings.Contains(out.Header.Get("Set-Cookie"), "Max-Age=0") {
		t.Fatalf("sign-out: %d %v, want 204 clearing the cookie", out.Status, out.Header)
	}
	for _, path := range []string{"/auth/session", "/v1/leads"} {
		if r := e.Do(resttest.Request{Method: "GET", Path: path, Header: s.Header(false)}); r.Status != http.StatusUnauthorized {
			t.Fatalf("GET %s after sign-out: %d, want 401", path, r.Status)
		}
	}
	actions := auditActions(t, e, u.ID.String())
	for _, want := range []string{"user.invited", "user.invitation_accepted", "user.signed_in", "user.signed_out"} {
		if !strings.Contains(actions, want) {
			t.Errorf("audit log %s lacks %s", actions, want)
		}
	}
}

// auditActions lists the audit log's actions on target, oldest first.
func auditActions(t *testing.T, e *resttest.Env, target string) string {
	t.Helper()
	rows, err := e.DB.Client.AuditEvent.Query().Order(auditevent.ByOccurredAt()).All(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		if r.TargetID.String() == target {
			out = append(out, r.Action+" by "+r.Actor)
		}
	}
	return strings.Join(out, ", ")
}

// A wrong email and a wrong password are answered alike, and only the
// failure for a person's email reaches their organization's audit log,
// with the email tried and never the password.
func TestSignInFailuresAreUniform(t *testing.T) {
	e := resttest.New(t)
	u := e.NewPerson(e.Org.ID, "Uma", "Uniform", "advisor", testPassword)
	wrongPassword := e.Post("/auth/sign-in", "", map[string]string{"email": u.Email, "password": "not the password at all"})
	unknownEmail := e.Post("/auth/sign-in", "", map[string]string{"email": "nobody@example.com", "password": testPassword})
	for _, r := range []*resttest.Response{wrongPassword, unknownEmail} {
		code, _ := r.Error()
		msg, _ := r.Body["errors"].([]any)[0].(map[string]any)["message"].(string)
		if r.Status != http.StatusUnauthorized || code != "UNAUTHORIZED" || msg != "email or password is wrong" || r.Header.Get("Set-Cookie") != "" {
			t.Fatalf("refused sign-in: %d %s", r.Status, r.Raw)
		}
	}
	rows, err := e.DB.Client.AuditEvent.Query().Where(auditevent.Action("user.sign_in_failed")).All(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Email == nil || *rows[0].Email != u.Email || rows[0].Actor != "anonymous" || rows[0].ClientIP == nil {
		t.Fatalf("failed sign-ins in the audit log: %+v, want one naming %s", rows, u.Email)
	}
	all, err := e.DB.Client.AuditEvent.Query().All(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		if strings.Contains(r.String(), "not the password") || strings.Contains(r.String(), testPassword) {
			t.Fatalf("a password reached the audit log: %s", r)
		}
	}
}

// Five failures for one email lock it for 15 minutes, even for the right
// password; then it signs in again.
func TestSignInLockout(t *testing.T) {
	e := resttest.New(t)
	e.Clock.Set(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	u := e.NewPerson(e.Org.ID, "Lou", "Locked", "advisor", testPassword)
	for i := range people.LockoutFailures {
		if r := e.Post("/auth/sign-in", "", map[string]string{"email": u.Email, "password": "wrong password " + strconv.Itoa(i)}); r.Status != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d", i+1, r.Status)
		}
		e.Clock.Advance(time.Minute)
	}
	r := e.Post("/auth/sign-in", "", map[string]string{"email": u.Email, "password": testPassword})
	retry, _ := strconv.Atoi(r.Header.Get("Retry-After"))
	if code, _ := r.Error(); r.Status != http.StatusTooManyRequests || code != "RATE_LIMITED" || retry < 600 || retry > 900 {
		t.Fatalf("locked sign-in: %d Retry-After %q %s, want 429 with about 11 minutes to wait", r.Status, r.Header.Get("Retry-After"), r.Raw)
	}
	e.Clock.Advance(time.Duration(retry-1) * time.Second)
	if r := e.Post("/auth/sign-in", "", map[string]string{"email": u.Email, "password": testPassword}); r.Status != http.StatusTooManyRequests {
		t.Fatalf("a second before the lock ends: %d, want 429", r.Status)
	}
	e.Clock.Advance(time.Second)
	e.SignIn(u.Email, testPassword)
}

// Each client address may try 20 sign-ins a minute, whatever the emails.
func TestSignInPerAddressLimit(t *testing.T) {
	e := resttest.New(t)
	for i := range rest.DefaultSignInsPerMinute {
		if r := e.Post("/auth/sign-in", "", map[string]string{"email": "guess" + strconv.Itoa(i) + "@example.com", "password": "p"}); r.Status != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d %s", i+1, r.Status, r.Raw)
		}
	}
	r := e.Post("/auth/sign-in", "", map[string]string{"email": "one-more@example.com", "password": "p"})
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
		t.Fatalf("attempt %d: %d %v, want 429 with Retry-After", rest.DefaultSignInsPerMinute+1, r.Status, r.Header)
	}
}

// Roles give scopes; a Bearer key wins over the cookie; another site's
// sign-in form is refused.
func TestSessionScopesBearerAndOrigin(t *testing.T) {
	e := resttest.New(t)
	agent := e.NewPerson(e.Org.ID, "Al", "Agent", "agent", testPassword)
	s := e.SignIn(agent.Email, testPassword)
	lead := map[string]any{"businessName": "Agent Deli"}
	if r := e.Do(resttest.Request{Method: "POST", Path: "/v1/leads", Body: lead, Header: s.Header(true)}); r.Status != http.StatusForbidden {
		t.Fatalf("an agent creating a lead: %d, want 403 (agents hold leads:read and dialer:write)", r.Status)
	}
	if r := e.Do(resttest.Request{Method: "GET", Path: "/v1/leads", Header: s.Header(false)}); r.Status != http.StatusOK {
		t.Fatalf("an agent listing leads: %d", r.Status)
	}
	// The key is of another organization with every scope: the request
	// acts as the key, in its organization.
	_, other := e.NewOrg("Other Brokers", viewer.AllScopes...)
	r := e.Do(resttest.Request{Method: "POST", Path: "/v1/leads", Key: other, Body: lead, Header: s.Header(false)})
	if r.Status != http.StatusCreated || strings.HasPrefix(r.Attr("createdBy").(string), "user:") {
		t.Fatalf("Bearer and cookie: %d %s, want the key's 201", r.Status, r.Raw)
	}
	if n := len(e.Get("/v1/leads", e.Key).Items()); n != 0 {
		t.Fatalf("the agent's organization has %d leads, want 0", n)
	}
	r = e.Do(resttest.Request{Method: "POST", Path: "/auth/sign-in", Body: map[string]string{"email": agent.Email, "password": testPassword},
		Header: map[string]string{"Origin": "https://evil.example"}})
	if r.Status != http.StatusForbidden || r.Header.Get("Set-Cookie") != "" {
		t.Fatalf("sign-in from another origin: %d, want 403 and no cookie", r.Status)
	}
}

// A session ends after 12 hours unused and 7 days after its sign-in, and
// at once when an admin deactivates the person.
func TestSessionTimeoutsAndDeactivation(t *testing.T) {
	e := resttest.New(t)
	e.Clock.Set(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	u := e.NewPerson(e.Org.ID, "Tim", "Timeout", "advisor", testPassword)
	live := func(s resttest.Session) bool {
		return e.Do(resttest.Request{Method: "GET", Path: "/auth/session", Header: s.Header(false)}).Status == http.StatusOK
	}
	idle := e.SignIn(u.Email, testPassword)
	e.Clock.Advance(people.DefaultIdleTimeout - time.Minute)
	if !live(idle) {
		t.Fatal("ended before its idle timeout")
	}
	e.Clock.Advance(people.DefaultIdleTimeout)
	if live(idle) {
		t.Fatal("alive after 12 hours unused")
	}
	kept := e.SignIn(u.Email, testPassword)
	for elapsed := time.Duration(0); elapsed < people.DefaultLifetime-11*time.Hour; elapsed += 11 * time.Hour {
		e.Clock.Advance(11 * time.Hour)
		if !live(kept) {
			t.Fatalf("ended after %s in use", elapsed+11*time.Hour)
		}
	}
	e.Clock.Advance(11 * time.Hour)
	if live(kept) {
		t.Fatal("alive past its 7 days")
	}
	s := e.SignIn(u.Email, testPassword)
	admin := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: e.Org.ID, Scopes: []string{viewer.ScopeAdmin}})
	if _, err := people.New(people.Settings{}).DeactivateUser(admin, e.DB.Client, u.ID); err != nil {
		t.Fatal(err)
	}
	if live(s) {
		t.Fatal("alive after deactivation")
	}
	if r := e.Post("/auth/sign-in", "", map[string]string{"email": u.Email, "password": testPassword}); r.Status != http.StatusUnauthorized {
		t.Fatalf("a deactivated person signing in: %d, want 401", r.Status)
	}
}

// A websocket opened with the session cookie must come from the service's
// own origin, and closes with 4401 once the session is signed out.
func TestSessionWebsocket(t *testing.T) {
	e := resttest.New(t, func(c *rest.Config) { c.GraphQL.WSRecheckInterval = 100 * time.Millisecond })
	u := e.NewPerson(e.Org.ID, "Wes", "Socket", "advisor", testPassword)
	s := e.SignIn(u.Email, testPassword)
	url := "ws" + strings.TrimPrefix(e.Server.URL, "http") + "/graphql"
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
	header := func(origin string) http.Header {
		return http.Header{"Cookie": {s.Cookie}, "Origin": {origin}}
	}
	if _, resp, err := d.Dial(url, header("https://evil.example")); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a cookie websocket from another origin: %v %v, want 403", err, resp)
	}
	conn, _, err := d.Dial(url, header(e.Server.URL))
	if err != nil {
		t.Fatalf("a cookie websocket from the service's origin: %v", err)
	}
	defer conn.Close()
	if err := conn.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	var ack map[string]any
	if err := conn.ReadJSON(&ack); err != nil || ack["type"] != "connection_ack" {
		t.Fatalf("connection_init with the cookie: %v %v", ack, err)
	}
	if r := e.Do(resttest.Request{Method: "POST", Path: "/auth/sign-out", Header: s.Header(true)}); r.Status != http.StatusNoContent {
		t.Fatalf("sign-out: %d", r.Status)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		var m map[string]any
		err := conn.ReadJSON(&m)
		if err == nil {
			continue // a ping
		}
		if ce, ok := err.(*websocket.CloseError); !ok || ce.Code != 4401 {
			t.Fatalf("after sign-out the socket ended with %v, want close 4401", err)
		}
		return
	}
}

// A person's session sees and changes only their own organization's
// records, as an API key of it would.
func TestSessionIsolation(t *testing.T) {
	e := resttest.New(t)
	lead := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Org A Diner"})
	id, _ := lead.Data()["id"].(string)
	other, _ := e.NewOrg("Other Brokers", viewer.AllScopes...)
	admin := e.NewPerson(other.ID, "Bea", "Other", "admin", testPassword)
	s := e.SignIn(admin.Email, testPassword)
	if r := e.Do(resttest.Request{Method: "GET", Path: "/v1/leads/" + id, Header: s.Header(false)}); r.Status != http.StatusNotFound {
		t.Fatalf("another organization's lead by session: %d, want 404", r.Status)
	}
	r := e.Do(resttest.Request{Method: "PATCH", Path: "/v1/leads/" + id, Body: map[string]any{"businessName": "Taken"}, Header: s.Header(true)})
	if r.Status != http.StatusNotFound {
		t.Fatalf("changing another organization's lead by session: %d, want 404", r.Status)
	}
	if r := e.Do(resttest.Request{Method: "GET", Path: "/v1/leads", Header: s.Header(false)}); len(r.Items()) != 0 {
		t.Fatalf("the other organization's admin lists %d leads, want 0", len(r.Items()))
	}
}

// An invited person sets their password over GraphQL with no credential
// but the invitation; nothing else is answered without one.
func TestAcceptInvitationNeedsNoCredential(t *testing.T) {
	e := resttest.New(t)
	u := e.NewUser(e.Org.ID, "Ivy", "Invited", "advisor", "")
	invite := e.Post("/graphql", e.Key, map[string]any{"query": `mutation($id: ID!) { inviteUser(userId: $id) { token url expiresAt user { signIn } } }`,
		"variables": map[string]any{"id": u.ID}})
	inv, _ := invite.Body["data"].(map[string]any)["inviteUser"].(map[string]any)
	token, _ := inv["token"].(string)
	if !strings.HasPrefix(token, "svc_inv_") || inv["url"] != "/console/#/accept/"+token || inv["user"].(map[string]any)["signIn"] != "INVITED" {
		t.Fatalf("inviteUser: %s", invite.Raw)
	}
	accept := func(password string) *resttest.Response {
		return e.Post("/graphql", "", map[string]any{"query": `mutation($t: String!, $p: String!) { acceptInvitation(token: $t, password: $p) { id email signIn } }`,
			"variables": map[string]any{"t": token, "p": password}})
	}
	if r := accept("short"); r.Status != http.StatusOK || !strings.Contains(string(r.Raw), "12 to 128") {
		t.Fatalf("a short password: %d %s", r.Status, r.Raw)
	}
	if r := accept("password1234"); !strings.Contains(string(r.Raw), "VALIDATION_ERROR") {
		t.Fatalf("a common password: %d %s", r.Status, r.Raw)
	}
	r := accept(testPassword)
	got, _ := r.Body["data"].(map[string]any)["acceptInvitation"].(map[string]any)
	if r.Status != http.StatusOK || got["email"] != u.Email || got["signIn"] != "ACTIVE" {
		t.Fatalf("acceptInvitation: %d %s", r.Status, r.Raw)
	}
	if r := accept(testPassword); !strings.Contains(string(r.Raw), "unknown, used or expired") {
		t.Fatalf("the invitation used twice: %s", r.Raw)
	}
	e.SignIn(u.Email, testPassword)
	for _, q := range []string{
		`mutation { acceptInvitation(token: "x", password: "y") { id } createLead(input: {businessName: "Sneaky"}) { id } }`,
		`{ leadsPage { total } }`,
		`mutation { createLead(input: {businessName: "Sneaky"}) { id } }`,
	} {
		if r := e.Post("/graphql", "", map[string]any{"query": q}); r.Status != http.StatusUnauthorized {
			t.Fatalf("%s without a credential: %d %s, want 401", q, r.Status, r.Raw)
		}
	}
}
