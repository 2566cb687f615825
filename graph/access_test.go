package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lendingpipe/svc/access"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/apikey"
	"github.com/lendingpipe/svc/ent/auditevent"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
)

// gqlAs runs a GraphQL operation with key and returns its data, failing
// the test on any error.
func gqlAs(t *testing.T, e *resttest.Env, key, query string, vars map[string]any) map[string]any {
	t.Helper()
	r := e.Post("/graphql", key, map[string]any{"query": query, "variables": vars})
	if r.Status != http.StatusOK || r.Body["errors"] != nil {
		t.Fatalf("GraphQL %s: %d %s", query, r.Status, r.Raw)
	}
	return r.Body["data"].(map[string]any)
}

// gqlCode is the error code a GraphQL operation answers with key.
func gqlCode(e *resttest.Env, key, query string, vars map[string]any) (int, string) {
	r := e.Post("/graphql", key, map[string]any{"query": query, "variables": vars})
	errs, _ := r.Body["errors"].([]any)
	if len(errs) == 0 {
		return r.Status, ""
	}
	ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
	code, _ := ext["code"].(string)
	return r.Status, code
}

const (
	createKey = `mutation($in: CreateApiKeyInput!) { createApiKey(input: $in) { secret apiKey { id name prefix scopes lastUsedAt } } }`
	revokeKey = `mutation($id: ID!) { revokeApiKey(id: $id) { id revokedAt } }`
	rotateKey = `mutation($id: ID!, $grace: Int) { rotateApiKey(id: $id, graceSeconds: $grace) { secret apiKey { id } } }`
	listKeys  = `query { apiKeys(includeRevoked: true) { total nodes { id prefix revokedAt replacedBy lastUsedAt } } }`
)

// An admin's key through its life over HTTP: created (the secret shown
// once), used on REST, GraphQL and a websocket, listed without its secret
// and with its last use, revoked (401 on both surfaces at once, the
// websocket closed), and every step in the audit log with the admin's key
// and the request's id.
func TestAPIKeyLifecycle(t *testing.T) {
	e := resttest.New(t, func(c *rest.Config) { c.GraphQL.WSRecheckInterval = 50 * time.Millisecond })
	created := gqlAs(t, e, e.Key, createKey, map[string]any{"in": map[string]any{"name": "Dialer bridge", "scopes": []string{"leads:read"}}})
	out := created["createApiKey"].(map[string]any)
	secret := out["secret"].(string)
	k := out["apiKey"].(map[string]any)
	id := k["id"].(string)
	if !strings.HasPrefix(secret, "svc_live_") || !strings.HasPrefix(secret, k["prefix"].(string)) || len(k["prefix"].(string)) >= len(secret) {
		t.Fatalf("secret %q, prefix %q", secret, k["prefix"])
	}
	if r := e.Get("/v1/leads", secret); r.Status != http.StatusOK {
		t.Fatalf("the new key on REST: %d %s", r.Status, r.Raw)
	}
	gqlAs(t, e, secret, `query { leads(first: 1) { totalCount } }`, nil)
	if status, code := gqlCode(e, secret, createKey, map[string]any{"in": map[string]any{"name": "x", "scopes": []string{"admin"}}}); code != "FORBIDDEN" {
		t.Errorf("a leads:read key creating a key: %d %s; want FORBIDDEN", status, code)
	}
	ws := dialWS(t, e, "graphql-transport-ws", nil)
	ws.mustInit(secret)
	ws.start("1", presenceSubscription)

	// lastUsedAt is written in the background, at most once a minute.
	deadline := time.Now().Add(5 * time.Second)
	for {
		listed := gqlAs(t, e, e.Key, listKeys, nil)["apiKeys"].(map[string]any)
		if strings.Contains(strings.ToLower(toJSON(t, listed)), strings.ToLower(secret[len(k["prefix"].(string)):])) {
			t.Fatal("the listing shows the secret")
		}
		if lastUsed(listed, id) != nil || time.Now().After(deadline) {
			if lastUsed(listed, id) == nil {
				t.Error("lastUsedAt never written")
			}
			break
		}
		time.Sleep(20 * time.Millisecond)
	}

	gqlAs(t, e, e.Key, revokeKey, map[string]any{"id": id})
	if r := e.Get("/v1/leads", secret); r.Status != http.StatusUnauthorized {
		t.Errorf("the revoked key on REST: %d; want 401 at once", r.Status)
	}
	if status, _ := gqlCode(e, secret, `query { leads(first: 1) { totalCount } }`, nil); status != http.StatusUnauthorized {
		t.Errorf("the revoked key on GraphQL: %d; want 401", status)
	}
	if code, reason, _ := ws.closed(5 * time.Second); code != graph.CloseUnauthorized {
		t.Errorf("the revoked key's websocket: close %d (%q), want %d", code, reason, graph.CloseUnauthorized)
	}
	again := dialWS(t, e, "graphql-transport-ws", nil)
	if m, err := again.init(secret); err == nil && m.Type == "connection_ack" {
		t.Error("connection_init with the revoked key was acknowledged")
	}

	audit := gqlAs(t, e, e.Key, `query { auditEvents(first: 10) { edges { node { action actor targetId requestId fields } } } }`, nil)
	var actions []string
	for _, edge := range audit["auditEvents"].(map[string]any)["edges"].([]any) {
		n := edge.(map[string]any)["node"].(map[string]any)
		if n["targetId"] != id {
			continue
		}
		actions = append(actions, n["action"].(string))
		if n["actor"] == "system" || n["requestId"] == nil {
			t.Errorf("audit row %v: want the admin key as actor and the request's id", n)
		}
	}
	if strings.Join(actions, ",") != "api_key.revoked,api_key.created" {
		t.Errorf("audit actions for the key, newest first: %v", actions)
	}
}

func lastUsed(page map[string]any, id string) any {
	for _, n := range page["nodes"].([]any) {
		if n := n.(map[string]any); n["id"] == id {
			return n["lastUsedAt"]
		}
	}
	return nil
}

// A rotated key keeps working for its grace period, to the second by the
// server's clock, and then stops; the new key works from the start.
func TestAPIKeyRotationGrace(t *testing.T) {
	e := resttest.New(t)
	start := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	e.Clock.Set(start)
	created := gqlAs(t, e, e.Key, createKey, map[string]any{"in": map[string]any{"name": "Portal", "scopes": []string{"leads:read"}}})
	old := created["createApiKey"].(map[string]any)
	oldSecret, id := old["secret"].(string), old["apiKey"].(map[string]any)["id"].(string)
	rotated := gqlAs(t, e, e.Key, rotateKey, map[string]any{"id": id, "grace": 60})["rotateApiKey"].(map[string]any)
	newSecret := rotated["secret"].(string)
	for _, step := range []struct {
		at       time.Duration
		old, new int
	}{{0, 200, 200}, {59 * time.Second, 200, 200}, {60 * time.Second, 401, 200}, {time.Hour, 401, 200}} {
		e.Clock.Set(start.Add(step.at))
		if r := e.Get("/v1/leads", oldSecret); r.Status != step.old {
			t.Errorf("old key %v after the rotation: %d, want %d", step.at, r.Status, step.old)
		}
		if r := e.Get("/v1/leads", newSecret); r.Status != step.new {
			t.Errorf("new key %v after the rotation: %d, want %d", step.at, r.Status, step.new)
		}
	}
	if _, code := gqlCode(e, e.Key, rotateKey, map[string]any{"id": id}); code != "CONFLICT" {
		t.Errorf("rotating a rotated key: %s; want CONFLICT", code)
	}
	for _, grace := range []int{-1, 604801} {
		if _, code := gqlCode(e, e.Key, rotateKey, map[string]any{"id": rotated["apiKey"].(map[string]any)["id"], "grace": grace}); code != "VALIDATION_ERROR" {
			t.Errorf("grace %d: %s; want VALIDATION_ERROR", grace, code)
		}
	}
}

// Another organization's admin cannot see, revoke or rotate a key.
func TestAPIKeysStayInTheirOrganization(t *testing.T) {
	e := resttest.New(t)
	_, otherAdmin := e.NewOrg("Beta Lending", viewer.AllScopes...)
	id := gqlAs(t, e, e.Key, createKey, map[string]any{"in": map[string]any{"name": "Mine", "scopes": []string{"leads:read"}}})["createApiKey"].(map[string]any)["apiKey"].(map[string]any)["id"]
	for _, op := range []string{revokeKey, rotateKey} {
		if _, code := gqlCode(e, otherAdmin, op, map[string]any{"id": id}); code != "NOT_FOUND" {
			t.Errorf("%s by another organization: %s; want NOT_FOUND", op, code)
		}
	}
	listed := gqlAs(t, e, otherAdmin, listKeys, nil)["apiKeys"].(map[string]any)
	if strings.Contains(toJSON(t, listed), id.(string)) {
		t.Error("another organization lists the key")
	}
}

// The audit row is written in the action's transaction: an action rolled
// back leaves none.
func TestAuditRowRollsBackWithItsAction(t *testing.T) {
	e := resttest.New(t)
	as := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: e.Org.ID, Scopes: viewer.AllScopes})
	sys := rule.SystemContext(context.Background())
	before, err := e.DB.Client.AuditEvent.Query().Where(auditevent.OrgID(e.Org.ID)).Count(sys)
	if err != nil {
		t.Fatal(err)
	}
	failed := errors.New("the action failed after the key was made")
	err = store.WithTx(as, e.DB.Client, func(ctx context.Context, c *ent.Client) error {
		if _, _, err := access.CreateKey(ctx, c, access.NewKey{Name: "Doomed", Scopes: []string{"leads:read"}}); err != nil {
			return err
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatal(err)
	}
	after, err := e.DB.Client.AuditEvent.Query().Where(auditevent.OrgID(e.Org.ID)).Count(sys)
	if err != nil || after != before {
		t.Errorf("%d audit rows after the rollback, %d before (%v); want no new one", after, before, err)
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// App tokens (svc_at_) belong to their app's installation: the key
// operations neither list, revoke nor rotate one.
func TestAppTokensAreNotManagedAsKeys(t *testing.T) {
	e := resttest.New(t)
	secret, _ := install(t, e, e.Key, register(t, e, e.Key, "leads:read"), "leads:read")
	token, err := e.DB.Client.APIKey.Query().Where(apikey.Hash(store.Hash(secret))).Only(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{revokeKey, rotateKey} {
		if _, code := gqlCode(e, e.Key, op, map[string]any{"id": token.ID.String()}); code != "NOT_FOUND" {
			t.Errorf("%s of an app token: %s; want NOT_FOUND", op, code)
		}
	}
	if strings.Contains(toJSON(t, gqlAs(t, e, e.Key, listKeys, nil)), token.ID.String()) {
		t.Error("apiKeys lists an app token")
	}
}

// A key's input is checked: a name, at least one known scope, and an
// expiry later than now and within ten years.
func TestCreateApiKeyRefusesBadInput(t *testing.T) {
	e := resttest.New(t)
	now := time.Now().UTC()
	for _, in := range []map[string]any{
		{"name": "", "scopes": []string{"leads:read"}},
		{"name": strings.Repeat("k", 101), "scopes": []string{"leads:read"}},
		{"name": "No scopes", "scopes": []string{}},
		{"name": "Unknown scope", "scopes": []string{"leads:delete"}},
		{"name": "Expired", "scopes": []string{"leads:read"}, "expiresAt": now.Add(-time.Minute).Format(time.RFC3339)},
		{"name": "Forever and more", "scopes": []string{"leads:read"}, "expiresAt": now.AddDate(11, 0, 0).Format(time.RFC3339)},
	} {
		if status, code := gqlCode(e, e.Key, createKey, map[string]any{"in": in}); code != "VALIDATION_ERROR" {
			t.Errorf("createApiKey %v: %d %s; want VALIDATION_ERROR", in, status, code)
		}
	}
}

// Subscriptions created, changed and deleted by an admin are in the audit
// log, with the fields each change set or cleared.
func TestAuditRecordsSubscriptionChanges(t *testing.T) {
	e := resttest.New(t)
	created := gqlAs(t, e, e.Key, `mutation { createWebhookSubscription(input: {url: "https://hooks.example/a", events: ["lead.created"]}) { subscription { id } } }`, nil)
	id := created["createWebhookSubscription"].(map[string]any)["subscription"].(map[string]any)["id"].(string)
	gqlAs(t, e, e.Key, `mutation($id: ID!) { updateWebhookSubscription(id: $id, input: {isActive: false}) { id } }`, map[string]any{"id": id})
	gqlAs(t, e, e.Key, `mutation($id: ID!) { deleteWebhookSubscription(id: $id) }`, map[string]any{"id": id})
	audit := gqlAs(t, e, e.Key, `{ auditEvents(first: 10, where: {targetType: "webhook_subscription"}) { edges { node { action targetId fields } } } }`, nil)
	var got []string
	for _, edge := range audit["auditEvents"].(map[string]any)["edges"].([]any) {
		n := edge.(map[string]any)["node"].(map[string]any)
		if n["targetId"] != id {
			t.Errorf("audit row of another target: %v", n)
		}
		got = append(got, n["action"].(string))
		if n["action"] == "webhook_subscription.updated" && !strings.Contains(toJSON(t, n["fields"]), "isActive") {
			t.Errorf("the update's fields: %v", n["fields"])
		}
	}
	if want := "webhook_subscription.deleted,webhook_subscription.updated,webhook_subscription.created"; strings.Join(got, ",") != want {
		t.Errorf("audit actions, newest first: %v; want %s", got, want)
	}
}

// A key that reaches its expiry while a websocket of it is open closes
// the socket (4401) at the next re-check, by the server's clock.
func TestAPIKeyExpiringClosesItsWebsocket(t *testing.T) {
	e := resttest.New(t, func(c *rest.Config) { c.GraphQL.WSRecheckInterval = 50 * time.Millisecond })
	start := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	e.Clock.Set(start)
	created := gqlAs(t, e, e.Key, createKey, map[string]any{"in": map[string]any{"name": "Short-lived",
		"scopes": []string{"leads:read"}, "expiresAt": start.Add(time.Hour).Format(time.RFC3339)}})
	secret := created["createApiKey"].(map[string]any)["secret"].(string)
	ws := dialWS(t, e, "graphql-transport-ws", nil)
	ws.mustInit(secret)
	ws.start("1", presenceSubscription)
	time.Sleep(150 * time.Millisecond) // re-checks pass while the key is valid
	ws.mustBeOpen()
	e.Clock.Set(start.Add(time.Hour))
	if code, reason, _ := ws.closed(5 * time.Second); code != graph.CloseUnauthorized {
		t.Errorf("the expired key's websocket: close %d (%q), want %d", code, reason, graph.CloseUnauthorized)
	}
}

// graceSeconds that is not a whole number, or beyond any Int, is a
// VALIDATION_ERROR naming it and quoting the value sent, never a value
// the server made of it (0, the largest Int).
func TestRotateGraceMustBeAWholeNumber(t *testing.T) {
	e := resttest.New(t)
	created := gqlAs(t, e, e.Key, createKey, map[string]any{"in": map[string]any{"name": "Grace", "scopes": []string{"leads:read"}}})
	id := created["createApiKey"].(map[string]any)["apiKey"].(map[string]any)["id"].(string)
	for _, grace := range []json.Number{"1.5", "1e20", "-0.5"} {
		t.Run(string(grace), func(t *testing.T) {
			r := e.Post("/graphql", e.Key, map[string]any{"query": rotateKey, "variables": map[string]any{"id": id, "grace": grace}})
			errs, _ := r.Body["errors"].([]any)
			if r.Status != http.StatusUnprocessableEntity || len(errs) != 1 {
				t.Fatalf("graceSeconds %s: %d %s; want one 422", grace, r.Status, r.Raw)
			}
			first := errs[0].(map[string]any)
			msg, _ := first["message"].(string)
			code, _ := first["extensions"].(map[string]any)["code"].(string)
			if code != "VALIDATION_ERROR" || !strings.Contains(msg, "graceSeconds") || !strings.Contains(msg, "whole number") ||
				!strings.Contains(msg, string(grace)) || strings.Contains(msg, "9223372036854775807") {
				t.Errorf("graceSeconds %s: %s %q; want VALIDATION_ERROR naming graceSeconds and quoting the value", grace, code, msg)
			}
		})
	}
}

// Every out-of-range offset page argument answers alike: VALIDATION_ERROR,
// HTTP 422, naming it, before any resolver runs.
func TestAPIKeysPageBoundsAnswerAlike(t *testing.T) {
	e := resttest.New(t)
	for _, arg := range []string{"limit: 0", "limit: 101", "limit: -1", "page: 0", "page: 1000001"} {
		r := e.Post("/graphql", e.Key, map[string]any{"query": `query { apiKeys(` + arg + `) { total } }`})
		status, code := gqlCode(e, e.Key, `query { apiKeys(`+arg+`) { total } }`, nil)
		field := ""
		if errs, _ := r.Body["errors"].([]any); len(errs) > 0 {
			field, _ = errs[0].(map[string]any)["extensions"].(map[string]any)["field"].(string)
		}
		if want := strings.SplitN(arg, ":", 2)[0]; status != http.StatusUnprocessableEntity || code != "VALIDATION_ERROR" || field != want {
			t.Errorf("apiKeys(%s): %d %s field %q; want 422 VALIDATION_ERROR field %s", arg, status, code, field, want)
		}
	}
	if status, code := gqlCode(e, e.Key, `query { apiKeys(limit: 1, page: 1) { total } }`, nil); status != http.StatusOK || code != "" {
		t.Errorf("apiKeys(limit: 1, page: 1): %d %s", status, code)
	}
}

// A repeated scope is stored once, on every path that stores scopes: a
// key, an app's request, an installation's grant (and its token).
func TestRepeatedScopesAreStoredOnce(t *testing.T) {
	e := resttest.New(t)
	twice := []string{"leads:read", "leads:read", "webhooks:manage", "leads:read"}
	want := `["leads:read","webhooks:manage"]`
	key := gqlAs(t, e, e.Key, createKey, map[string]any{"in": map[string]any{"name": "Twice", "scopes": twice}})
	if got := toJSON(t, key["createApiKey"].(map[string]any)["apiKey"].(map[string]any)["scopes"]); got != want {
		t.Errorf("createApiKey scopes: %s; want %s", got, want)
	}
	in := map[string]any{"name": "Twice", "scopes": twice}
	app := gqlAs(t, e, e.Key, `mutation($in: RegisterAppInput!) { registerApp(input: $in) { id scopes } }`, map[string]any{"in": in})["registerApp"].(map[string]any)
	if got := toJSON(t, app["scopes"]); got != want {
		t.Errorf("registerApp scopes: %s; want %s", got, want)
	}
	inst := gqlAs(t, e, e.Key, `mutation($a: ID!, $s: [String!]!) { installApp(appId: $a, scopes: $s) { token installation { scopes } } }`,
		map[string]any{"a": app["id"], "s": twice})["installApp"].(map[string]any)
	if got := toJSON(t, inst["installation"].(map[string]any)["scopes"]); got != want {
		t.Errorf("installApp scopes: %s; want %s", got, want)
	}
	token, err := e.DB.Client.APIKey.Query().Where(apikey.Hash(store.Hash(inst["token"].(string)))).Only(rule.SystemContext(context.Background()))
	if err != nil || toJSON(t, token.Scopes) != want {
		t.Errorf("the app token's scopes: %v (%v); want %s", token, err, want)
	}
}

// Two revocations racing answer as a later one does: the key, revoked
// once, never CONFLICT. Run on PostgreSQL too (SVC_TEST_DATABASE_URL).
func TestRacingRevocationsBothSucceed(t *testing.T) {
	e := resttest.New(t)
	for round := range 5 {
		created := gqlAs(t, e, e.Key, createKey, map[string]any{"in": map[string]any{"name": "Raced", "scopes": []string{"leads:read"}}})
		id := created["createApiKey"].(map[string]any)["apiKey"].(map[string]any)["id"].(string)
		const racers = 4
		answers := make([]string, racers)
		var wg sync.WaitGroup
		for i := range racers {
			wg.Go(func() {
				r := e.Post("/graphql", e.Key, map[string]any{"query": revokeKey, "variables": map[string]any{"id": id}})
				if r.Status != http.StatusOK || r.Body["errors"] != nil {
					answers[i] = "error: " + string(r.Raw)
					return
				}
				answers[i] = toJSON(t, r.Body["data"].(map[string]any)["revokeApiKey"].(map[string]any)["revokedAt"])
			})
		}
		wg.Wait()
		for i, a := range answers {
			if strings.HasPrefix(a, "error") || a == "null" || a != answers[0] {
				t.Errorf("round %d, revocation %d: %s; want the same revokedAt as the others (%s)", round, i, a, answers[0])
			}
		}
	}
}
