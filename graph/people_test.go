package graph_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/lendingpipe/svc/ent/auditevent"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

// me names the caller: no person for a key bound to no one, the person
// for a key bound to one.
func TestMe(t *testing.T) {
	e := resttest.New(t)
	agentKey := e.NewKey(e.Org.ID, viewer.ScopeLeadsRead)
	data, code := gql(t, e, agentKey, `{ me { credential scopes user { id } } }`, nil)
	me, _ := data["me"].(map[string]any)
	if code != "" || me["credential"] != "API_KEY" || me["user"] != nil || !slices.Equal(toStrings(me["scopes"]), []string{viewer.ScopeLeadsRead}) {
		t.Fatalf("me for a key bound to no one: %v %s", data, code)
	}
	u := e.NewUser(e.Org.ID, "Bo", "Bound", "advisor", "")
	key := boundKey(t, e, u.ID.String(), []string{viewer.ScopeLeadsWrite})
	data, code = gql(t, e, key, `{ me { credential user { id email signIn } } }`, nil)
	me, _ = data["me"].(map[string]any)
	user, _ := me["user"].(map[string]any)
	if code != "" || user["id"] != u.ID.String() || user["signIn"] != "NONE" {
		t.Fatalf("me for a key bound to %s: %v %s", u.ID, data, code)
	}
}

// boundKey creates, with the environment's admin key, a key with scopes
// bound to userID, and returns its secret.
func boundKey(t *testing.T, e *resttest.Env, userID string, scopes []string) string {
	t.Helper()
	data, code := gql(t, e, e.Key, `mutation($in: CreateApiKeyInput!) { createApiKey(input: $in) { secret apiKey { userId } } }`,
		map[string]any{"in": map[string]any{"name": "bound", "scopes": scopes, "userId": userID}})
	created, _ := data["createApiKey"].(map[string]any)
	secret, _ := created["secret"].(string)
	if code != "" || secret == "" || created["apiKey"].(map[string]any)["userId"] != userID {
		t.Fatalf("createApiKey bound to %s: %v %s", userID, data, code)
	}
	return secret
}

// A key bound to a person acts as them: changedBy and the audit log's
// actor are user:<id>; their deactivation stops the key; a key cannot be
// bound to another organization's user.
func TestKeysBoundToAPerson(t *testing.T) {
	e := resttest.New(t)
	u := e.NewUser(e.Org.ID, "Kay", "Keyholder", "admin", "")
	key := boundKey(t, e, u.ID.String(), []string{viewer.ScopeAdmin})
	actor := "user:" + u.ID.String()

	lead := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Bound Bistro"}).Data()["id"].(string)
	stages := e.Stages(e.Org.ID)
	if _, code := gql(t, e, key, `mutation($id: ID!, $s: ID!) { moveLeadToStage(id: $id, stageId: $s) { id } }`,
		map[string]any{"id": lead, "s": stages[1].ID}); code != "" {
		t.Fatalf("moving the lead: %s", code)
	}
	evs, err := e.DB.Client.WebhookEvent.Query().Where(webhookevent.EventType(event.LeadStatusChanged)).All(rule.SystemContext(context.Background()))
	if err != nil || len(evs) != 1 || evs[0].Data["changedBy"] != actor {
		t.Fatalf("lead.status_changed: %v %v, want changedBy %s", evs, err, actor)
	}
	data, code := gql(t, e, key, `mutation { createApiKey(input: {name: "made by a person", scopes: ["leads:read"]}) { apiKey { id } } }`, nil)
	if code != "" {
		t.Fatalf("an admin action with the bound key: %s", code)
	}
	made := data["createApiKey"].(map[string]any)["apiKey"].(map[string]any)["id"].(string)
	rows, err := e.DB.Client.AuditEvent.Query().Where(auditevent.Action("api_key.created")).All(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rows {
		if r.TargetID.String() == made {
			found = r.Actor == actor
		}
	}
	if !found {
		t.Fatalf("the audit log's api_key.created of %s does not name %s: %v", made, actor, rows)
	}

	other, _ := e.NewOrg("Other Brokers", viewer.AllScopes...)
	stranger := e.NewUser(other.ID, "Sal", "Stranger", "advisor", "")
	if _, code := gql(t, e, e.Key, `mutation($u: ID!) { createApiKey(input: {name: "x", scopes: ["leads:read"], userId: $u}) { secret } }`,
		map[string]any{"u": stranger.ID}); code != "VALIDATION_ERROR" {
		t.Fatalf("a key bound to another organization's user: %q, want VALIDATION_ERROR", code)
	}

	if _, code := gql(t, e, e.Key, `mutation($u: ID!) { deactivateUser(userId: $u) { signIn deactivatedAt } }`, map[string]any{"u": u.ID}); code != "" {
		t.Fatalf("deactivating: %s", code)
	}
	if r := e.Get("/v1/leads", key); r.Status != http.StatusUnauthorized {
		t.Fatalf("the deactivated person's key: %d, want 401", r.Status)
	}
	if _, code := gql(t, e, e.Key, `mutation($u: ID!) { createApiKey(input: {name: "x", scopes: ["leads:read"], userId: $u}) { secret } }`,
		map[string]any{"u": u.ID}); code != "VALIDATION_ERROR" {
		t.Fatalf("a key bound to a deactivated user: %q, want VALIDATION_ERROR", code)
	}
}

// Invitations through GraphQL: statuses, the conflict of inviting a
// person who signs in, a reset, admin only, and the audit log.
func TestInviteResetDeactivate(t *testing.T) {
	e := resttest.New(t)
	u := e.NewUser(e.Org.ID, "Nia", "New", "advisor", "")
	vars := map[string]any{"u": u.ID}
	status := func() string {
		data, _ := gql(t, e, e.Key, `query($u: ID!) { node(id: $u) { ... on User { signIn } } }`, vars)
		s, _ := data["node"].(map[string]any)["signIn"].(string)
		return s
	}
	if s := status(); s != "NONE" {
		t.Fatalf("before the invitation: %s", s)
	}
	writer := e.NewKey(e.Org.ID, viewer.ScopeLeadsWrite)
	for _, op := range []string{"inviteUser", "resetUserSignIn", "deactivateUser"} {
		q := `mutation($u: ID!) { ` + op + `(userId: $u) { __typename } }`
		if _, code := gql(t, e, writer, q, vars); code != "FORBIDDEN" {
			t.Fatalf("%s without admin: %q, want FORBIDDEN", op, code)
		}
	}
	data, code := gql(t, e, e.Key, `mutation($u: ID!) { inviteUser(userId: $u) { token } }`, vars)
	token, _ := data["inviteUser"].(map[string]any)["token"].(string)
	if code != "" || status() != "INVITED" {
		t.Fatalf("inviteUser: %v %s, status %s", data, code, status())
	}
	e.Post("/graphql", "", map[string]any{"query": `mutation($t: String!) { acceptInvitation(token: $t, password: "a long enough passphrase") { id } }`,
		"variables": map[string]any{"t": token}})
	if s := status(); s != "ACTIVE" {
		t.Fatalf("after accepting: %s", s)
	}
	if _, code := gql(t, e, e.Key, `mutation($u: ID!) { inviteUser(userId: $u) { token } }`, vars); code != "CONFLICT" {
		t.Fatalf("inviting an active person: %q, want CONFLICT", code)
	}
	if _, code := gql(t, e, e.Key, `mutation($u: ID!) { resetUserSignIn(userId: $u) { token } }`, vars); code != "" || status() != "INVITED" {
		t.Fatalf("resetUserSignIn: %q, status %s", code, status())
	}
	if _, code := gql(t, e, e.Key, `mutation($u: ID!) { deactivateUser(userId: $u) { id } }`, vars); code != "" || status() != "DEACTIVATED" {
		t.Fatalf("deactivateUser: %q, status %s", code, status())
	}
	if _, code := gql(t, e, e.Key, `mutation($u: ID!) { inviteUser(userId: $u) { token } }`, vars); code != "" || status() != "INVITED" {
		t.Fatalf("inviting a deactivated person again: %q, status %s", code, status())
	}
	rows, err := e.DB.Client.AuditEvent.Query().Where(auditevent.TargetID(u.ID)).Order(auditevent.ByOccurredAt()).All(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, r := range rows {
		actions = append(actions, r.Action)
	}
	want := []string{"user.invited", "user.invitation_accepted", "user.sign_in_reset", "user.deactivated", "user.invited"}
	if !slices.Equal(actions, want) {
		t.Fatalf("audit log %v, want %v", actions, want)
	}
}
