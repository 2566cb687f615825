package graph_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent/auditevent"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

// PublicOperation lets through, without a credential, a JSON POST whose
// chosen operation is a mutation selecting acceptInvitation alone, and
// puts the body back for the handler.
func TestPublicOperation(t *testing.T) {
	const accept = `mutation($t: String!, $p: String!) { acceptInvitation(token: $t, password: $p) { id } }`
	cases := []struct {
		name, method, contentType, body string
		public                          bool
	}{
		{"accept alone", "POST", "application/json", `{"query": ` + quote(accept) + `}`, true},
		{"accept and __typename", "POST", "application/json", `{"query": "mutation { __typename acceptInvitation(token: \"t\", password: \"p\") { id } }"}`, true},
		{"the named operation is the accepting one", "POST", "application/json",
			`{"query": "query Q { leadsPage { total } } mutation A { acceptInvitation(token: \"t\", password: \"p\") { id } }", "operationName": "A"}`, true},
		{"the named operation is another", "POST", "application/json",
			`{"query": "query Q { leadsPage { total } } mutation A { acceptInvitation(token: \"t\", password: \"p\") { id } }", "operationName": "Q"}`, false},
		{"two operations, none named", "POST", "application/json",
			`{"query": "mutation A { acceptInvitation(token: \"t\", password: \"p\") { id } } mutation B { acceptInvitation(token: \"t\", password: \"p\") { id } }"}`, false},
		{"an unknown operation name", "POST", "application/json", `{"query": ` + quote(accept) + `, "operationName": "Other"}`, false},
		{"accept and another mutation", "POST", "application/json",
			`{"query": "mutation { acceptInvitation(token: \"t\", password: \"p\") { id } createLead(input: {businessName: \"x\"}) { id } }"}`, false},
		{"an aliased other mutation", "POST", "application/json",
			`{"query": "mutation { acceptInvitation: createLead(input: {businessName: \"x\"}) { id } }"}`, false},
		{"a query", "POST", "application/json", `{"query": "{ me { credential } }"}`, false},
		{"a subscription", "POST", "application/json", `{"query": "subscription { __typename }"}`, false},
		{"an inline fragment at the root", "POST", "application/json",
			`{"query": "mutation { ... on Mutation { createLead(input: {businessName: \"x\"}) { id } } }"}`, false},
		{"a fragment spread at the root", "POST", "application/json",
			`{"query": "mutation { ...F } fragment F on Mutation { acceptInvitation(token: \"t\", password: \"p\") { id } }"}`, false},
		{"a query that does not parse", "POST", "application/json", `{"query": "mutation { acceptInvitation("}`, false},
		{"a body that is not JSON", "POST", "application/json", `mutation { acceptInvitation(token: "t", password: "p") { id } }`, false},
		{"an empty body", "POST", "application/json", ``, false},
		{"a GET", "GET", "", ``, false},
		{"a multipart upload", "POST", "multipart/form-data; boundary=x", `{"query": ` + quote(accept) + `}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(c.method, "/graphql", strings.NewReader(c.body))
			if c.contentType != "" {
				r.Header.Set("Content-Type", c.contentType)
			}
			if got := graph.PublicOperation(r); got != c.public {
				t.Fatalf("PublicOperation = %v, want %v", got, c.public)
			}
			if c.method != "POST" {
				return
			}
			// The handler reads the body after it: it is whole.
			rest, err := io.ReadAll(r.Body)
			if err != nil || string(rest) != c.body {
				t.Fatalf("the body left for the handler: %q %v, want %q", rest, err, c.body)
			}
		})
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// me lists the credential's own scopes: a key with admin alone says
// admin, not everything admin implies.
func TestMeListsTheCredentialsScopes(t *testing.T) {
	e := resttest.New(t)
	admin := e.NewKey(e.Org.ID, viewer.ScopeAdmin)
	data, code := gql(t, e, admin, `{ me { credential scopes user { id } } }`, nil)
	me, _ := data["me"].(map[string]any)
	if code != "" || me["credential"] != "API_KEY" || me["user"] != nil || !slices.Equal(toStrings(me["scopes"]), []string{viewer.ScopeAdmin}) {
		t.Fatalf("me for an admin key: %v %s", data, code)
	}
	// Without a credential, me is refused like any other query.
	if r := e.Post("/graphql", "", map[string]any{"query": `{ me { credential } }`}); r.Status != http.StatusUnauthorized {
		t.Fatalf("me without a credential: %d %s, want 401", r.Status, r.Raw)
	}
}

// invite invites u with key and returns the invitation's token and url.
func invite(t *testing.T, e *resttest.Env, key, userID string) (token, url string) {
	t.Helper()
	data, code := gql(t, e, key, `mutation($u: ID!) { inviteUser(userId: $u) { token url expiresAt user { id signIn } } }`,
		map[string]any{"u": userID})
	inv, _ := data["inviteUser"].(map[string]any)
	token, _ = inv["token"].(string)
	url, _ = inv["url"].(string)
	if code != "" || !strings.HasPrefix(token, "svc_inv_") || inv["user"].(map[string]any)["signIn"] != "INVITED" {
		t.Fatalf("inviteUser %s: %v %s", userID, data, code)
	}
	return token, url
}

// acceptAs sends acceptInvitation with no credential and returns the
// user's signIn, or the error's code and field.
func acceptAs(t *testing.T, e *resttest.Env, token, password string) (signIn, code, field string) {
	t.Helper()
	data, ext := gqlExt(t, e, "", `mutation($t: String!, $p: String!) { acceptInvitation(token: $t, password: $p) { id signIn } }`,
		map[string]any{"t": token, "p": password})
	if ext != nil {
		code, _ = ext["code"].(string)
		field, _ = ext["field"].(string)
		return "", code, field
	}
	signIn, _ = data["acceptInvitation"].(map[string]any)["signIn"].(string)
	return signIn, "", ""
}

// An invitation accepted with no credential: the audit log names who
// invited; refused passwords name the password, a used or expired token
// names the token.
func TestAcceptInvitationOverGraphQL(t *testing.T) {
	e := resttest.New(t)
	inviter := e.NewUser(e.Org.ID, "Ida", "Inviter", "admin", "")
	admin := boundKey(t, e, inviter.ID.String(), []string{viewer.ScopeAdmin})
	u := e.NewUser(e.Org.ID, "Pat", "Person", "advisor", "")
	token, url := invite(t, e, admin, u.ID.String())
	if url != graph.AcceptPath+token || !strings.HasPrefix(url, "/console/#/accept/") {
		t.Fatalf("the invitation's url %q", url)
	}
	rows, err := e.DB.Client.AuditEvent.Query().Where(auditevent.TargetID(u.ID), auditevent.Action("user.invited")).
		All(rule.SystemContext(context.Background()))
	if err != nil || len(rows) != 1 || rows[0].Actor != "user:"+inviter.ID.String() {
		t.Fatalf("the audit log's user.invited: %v %v, want the actor user:%s", rows, err, inviter.ID)
	}
	if b, _ := json.Marshal(rows[0]); strings.Contains(string(b), token) || strings.Contains(string(b), strings.TrimPrefix(token, "svc_inv_")) {
		t.Fatalf("the audit log holds the token: %s", b)
	}

	for _, pw := range []string{"short", "password1234", u.Email, strings.ToUpper(u.Email)} {
		if _, code, field := acceptAs(t, e, token, pw); code != "VALIDATION_ERROR" || field != "password" {
			t.Fatalf("the password %q: %s on %q, want VALIDATION_ERROR on password", pw, code, field)
		}
	}
	if signIn, code, _ := acceptAs(t, e, token, "a long enough passphrase"); code != "" || signIn != "ACTIVE" {
		t.Fatalf("accepting: %q %s, want ACTIVE", signIn, code)
	}
	if _, code, field := acceptAs(t, e, token, "another long passphrase"); code != "VALIDATION_ERROR" || field != "token" {
		t.Fatalf("the token used twice: %s on %q, want VALIDATION_ERROR on token", code, field)
	}
	if _, code, field := acceptAs(t, e, "svc_inv_nothing", "a long enough passphrase"); code != "VALIDATION_ERROR" || field != "token" {
		t.Fatalf("an unknown token: %s on %q, want VALIDATION_ERROR on token", code, field)
	}

	// An invitation expires 72 hours after it was made: still good just
	// before, refused at the hour and after, and the user stays INVITED.
	late := e.NewUser(e.Org.ID, "Lou", "Late", "agent", "")
	early := e.NewUser(e.Org.ID, "Eve", "Early", "agent", "")
	lateToken, _ := invite(t, e, admin, late.ID.String())
	earlyToken, _ := invite(t, e, admin, early.ID.String())
	e.Clock.Advance(72*time.Hour - time.Minute)
	if signIn, code, _ := acceptAs(t, e, earlyToken, "a long enough passphrase"); code != "" || signIn != "ACTIVE" {
		t.Fatalf("accepting a minute before expiry: %q %s", signIn, code)
	}
	e.Clock.Advance(time.Minute)
	if _, code, field := acceptAs(t, e, lateToken, "a long enough passphrase"); code != "VALIDATION_ERROR" || field != "token" {
		t.Fatalf("an expired token: %s on %q, want VALIDATION_ERROR on token", code, field)
	}
	data, code := gql(t, e, admin, `query($u: ID!) { node(id: $u) { ... on User { signIn invitationExpiresAt } } }`, map[string]any{"u": late.ID})
	if n, _ := data["node"].(map[string]any); code != "" || n["signIn"] != "INVITED" || n["invitationExpiresAt"] == nil {
		t.Fatalf("the user whose invitation expired: %v %s, want INVITED", data, code)
	}
}

// A sign-in email is unique across organizations, and an admin reaches
// only their own organization's users.
func TestPeopleAcrossOrganizations(t *testing.T) {
	e := resttest.New(t)
	mine := e.NewUser(e.Org.ID, "Sam", "Same", "advisor", "")
	other, otherKey := e.NewOrg("Other Brokers", viewer.AllScopes...)
	twin := e.NewUser(other.ID, "Sam", "Same", "advisor", "") // the same email
	invite(t, e, e.Key, mine.ID.String())
	if _, code := gql(t, e, otherKey, `mutation($u: ID!) { inviteUser(userId: $u) { token } }`, map[string]any{"u": twin.ID}); code != "CONFLICT" {
		t.Fatalf("the same email invited in a second organization: %q, want CONFLICT", code)
	}
	for _, op := range []string{"inviteUser", "resetUserSignIn", "deactivateUser"} {
		q := `mutation($u: ID!) { ` + op + `(userId: $u) { __typename } }`
		if _, code := gql(t, e, otherKey, q, map[string]any{"u": mine.ID}); code != "NOT_FOUND" {
			t.Fatalf("%s of another organization's user: %q, want NOT_FOUND", op, code)
		}
	}
	data, code := gql(t, e, e.Key, `query($u: ID!) { node(id: $u) { ... on User { signIn } } }`, map[string]any{"u": mine.ID})
	if code != "" || data["node"].(map[string]any)["signIn"] != "INVITED" {
		t.Fatalf("after the other organization's attempts: %v %s, want INVITED", data, code)
	}
}

// ApiKey.user is the person a key acts as, in the listing too; a rotated
// key's successor acts as the same person.
func TestApiKeyUser(t *testing.T) {
	e := resttest.New(t)
	u := e.NewUser(e.Org.ID, "Uma", "User", "advisor", "")
	secret := boundKey(t, e, u.ID.String(), []string{viewer.ScopeLeadsRead})
	data, code := gql(t, e, secret, `{ me { user { id } } }`, nil)
	if code != "" || data["me"].(map[string]any)["user"].(map[string]any)["id"] != u.ID.String() {
		t.Fatalf("me with the bound key: %v %s", data, code)
	}
	data, code = gql(t, e, e.Key, `{ apiKeys { nodes { id name } } }`, nil)
	var boundID string
	for _, n := range data["apiKeys"].(map[string]any)["nodes"].([]any) {
		if k := n.(map[string]any); k["name"] == "bound" {
			boundID, _ = k["id"].(string)
		}
	}
	data, code = gql(t, e, e.Key, `mutation($id: ID!) { rotateApiKey(id: $id, graceSeconds: 0) { secret apiKey { userId user { id } } } }`,
		map[string]any{"id": boundID})
	rotated, _ := data["rotateApiKey"].(map[string]any)
	if code != "" || rotated["apiKey"].(map[string]any)["userId"] != u.ID.String() {
		t.Fatalf("rotating the bound key: %v %s", data, code)
	}
	data, code = gql(t, e, rotated["secret"].(string), `{ me { user { id } } }`, nil)
	if code != "" || data["me"].(map[string]any)["user"].(map[string]any)["id"] != u.ID.String() {
		t.Fatalf("me with the rotated key: %v %s", data, code)
	}
	data, code = gql(t, e, e.Key, `{ apiKeys(includeRevoked: true) { nodes { name userId user { id email } } } }`, nil)
	if code != "" {
		t.Fatalf("apiKeys: %s", code)
	}
	seen := 0
	for _, n := range data["apiKeys"].(map[string]any)["nodes"].([]any) {
		k := n.(map[string]any)
		switch k["name"] {
		case "bound":
			seen++
			if k["userId"] != u.ID.String() || k["user"].(map[string]any)["email"] != u.Email {
				t.Fatalf("the bound key: %v", k)
			}
		default:
			if k["userId"] != nil || k["user"] != nil {
				t.Fatalf("a key bound to no one: %v", k)
			}
		}
	}
	if seen != 2 {
		t.Fatalf("apiKeys listed the bound key and its successor %d times: %v", seen, data)
	}
}
