package graph_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/webhooksubscription"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/event/eventtest"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

const (
	registerApp   = `mutation($in: RegisterAppInput!) { registerApp(input: $in) { id name description scopes createdAt } }`
	installApp    = `mutation($app: ID!, $scopes: [String!]!) { installApp(appId: $app, scopes: $scopes) { token installation { id appId appName scopes installedBy installedAt uninstalledAt } } }`
	uninstallApp  = `mutation($id: ID!) { uninstallApp(installationId: $id) { id uninstalledAt } }`
	listInstalled = `query { appInstallations(includeUninstalled: true) { total nodes { id appName uninstalledAt } } }`
)

// register registers an app asking for scopes with key and returns its id.
func register(t *testing.T, e *resttest.Env, key string, scopes ...string) string {
	t.Helper()
	in := map[string]any{"name": "Dialer Sync", "description": "Keeps the dialer's leads in step", "scopes": scopes}
	return gqlAs(t, e, key, registerApp, map[string]any{"in": in})["registerApp"].(map[string]any)["id"].(string)
}

// install installs app with scopes and returns its token and installation id.
func install(t *testing.T, e *resttest.Env, key, app string, scopes ...string) (string, string) {
	t.Helper()
	out := gqlAs(t, e, key, installApp, map[string]any{"app": app, "scopes": scopes})["installApp"].(map[string]any)
	return out["token"].(string), out["installation"].(map[string]any)["id"].(string)
}

// subscribeWith creates a webhook subscription to events with key and returns its id.
func subscribeWith(t *testing.T, e *resttest.Env, key, url string, events ...string) uuid.UUID {
	t.Helper()
	r := e.Post("/v1/app-webhooks", key, map[string]any{"url": url, "events": events})
	if r.Status != http.StatusCreated {
		t.Fatalf("subscribing: %d %s", r.Status, r.Raw)
	}
	return uuid.MustParse(strings.TrimPrefix(r.Data()["id"].(string), "whsub_"))
}

// firstOf is the first delivery of eventType among ds, failing the test without one.
func firstOf(t *testing.T, ds []webhookstest.Delivery, eventType string) map[string]any {
	t.Helper()
	for _, d := range ds {
		if d.Env.Event == eventType {
			return d.Env.Data
		}
	}
	t.Fatalf("no %s among %d deliveries", eventType, len(ds))
	return nil
}

// An app token through its life over HTTP: the app registered, installed
// (the token shown once), the token working on REST, GraphQL and a
// websocket within its scopes, a subscription it creates belonging to the
// installation; then uninstalled: 401 on both surfaces at once, the
// websocket closed, app.installed and app.uninstalled delivered with the
// catalog's payloads (the uninstalled app's subscription told too), the
// subscription deleted once it has nothing left to deliver, and each step
// in the audit log.
func TestAppTokenLifecycle(t *testing.T) {
	e := resttest.New(t, func(c *rest.Config) { c.GraphQL.WSRecheckInterval = 50 * time.Millisecond })
	admin := webhookstest.NewReceiver(t, webhookstest.OK)
	subscribeWith(t, e, e.Key, admin.URL, event.AppInstalled, event.AppUninstalled)
	app := register(t, e, e.Key, "leads:read", "webhooks:manage", "analytics:read")
	token, inst := install(t, e, e.Key, app, "leads:read", "webhooks:manage")
	if !strings.HasPrefix(token, "svc_at_") {
		t.Fatalf("token %q, want svc_at_...", token)
	}
	if r := e.Get("/v1/leads", token); r.Status != http.StatusOK {
		t.Fatalf("the app token on REST: %d %s", r.Status, r.Raw)
	}
	gqlAs(t, e, token, `query { leads(first: 1) { totalCount } }`, nil)
	if r := e.Post("/v1/leads", token, map[string]any{"businessName": "Not mine to write"}); r.Status != http.StatusForbidden {
		t.Errorf("the leads:read app token creating a lead: %d; want 403", r.Status)
	}
	if r := e.Get("/v1/analytics/pipeline", token); r.Status != http.StatusForbidden {
		t.Errorf("the app token reading analytics it asked for but was not granted: %d; want 403", r.Status)
	}
	appHook := webhookstest.NewReceiver(t, webhookstest.OK)
	sub := subscribeWith(t, e, token, appHook.URL, "*")
	sys := rule.SystemContext(context.Background())
	if s, err := e.DB.Client.WebhookSubscription.Get(sys, sub); err != nil || s.InstallationID == nil || s.InstallationID.String() != inst {
		t.Fatalf("the app's subscription: %+v %v; want it to belong to installation %s", s, err, inst)
	}
	ws := dialWS(t, e, "graphql-transport-ws", nil)
	ws.mustInit(token)
	ws.start("1", presenceSubscription)

	gqlAs(t, e, e.Key, uninstallApp, map[string]any{"id": inst})
	if r := e.Get("/v1/leads", token); r.Status != http.StatusUnauthorized {
		t.Errorf("the uninstalled app's token on REST: %d; want 401 at once", r.Status)
	}
	if status, _ := gqlCode(e, token, `query { leads(first: 1) { totalCount } }`, nil); status != http.StatusUnauthorized {
		t.Errorf("the uninstalled app's token on GraphQL: %d; want 401", status)
	}
	if code, reason, _ := ws.closed(5 * time.Second); code != graph.CloseUnauthorized {
		t.Errorf("the uninstalled app's websocket: close %d (%q), want %d", code, reason, graph.CloseUnauthorized)
	}

	got := admin.Wait(t, 2)
	installed, uninstalled := firstOf(t, got, event.AppInstalled), firstOf(t, got, event.AppUninstalled)
	for name, data := range map[string]map[string]any{event.AppInstalled: installed, event.AppUninstalled: uninstalled} {
		if err := eventtest.Check(name, data); err != nil {
			t.Error(err)
		}
		if data["appId"] != app || data["installationId"] != inst || data["orgId"] != e.Org.ID.String() || data["appName"] != "Dialer Sync" {
			t.Errorf("%s: %v", name, data)
		}
	}
	if !slices.Equal(toStrings(installed["scopes"]), []string{"leads:read", "webhooks:manage"}) {
		t.Errorf("app.installed scopes: %v; want the ones granted", installed["scopes"])
	}
	firstOf(t, appHook.Wait(t, 1), event.AppUninstalled)
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := e.DB.Client.WebhookSubscription.Query().Where(webhooksubscription.ID(sub)).Count(sys)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the uninstalled app's subscription was not deleted")
		}
		time.Sleep(20 * time.Millisecond)
	}

	audit := gqlAs(t, e, e.Key, `query { auditEvents(first: 20) { edges { node { action targetType targetId } } } }`, nil)
	var actions []string
	for _, edge := range audit["auditEvents"].(map[string]any)["edges"].([]any) {
		n := edge.(map[string]any)["node"].(map[string]any)
		if n["targetId"] == app || n["targetId"] == inst {
			actions = append(actions, n["action"].(string))
		}
	}
	if strings.Join(actions, ",") != "app_installation.uninstalled,app_installation.installed,app.registered" {
		t.Errorf("audit actions for the app, newest first: %v", actions)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

// An installation grants only scopes the app asks for, once at a time,
// and is refused a caller without the admin scope.
func TestAppInstallRefusals(t *testing.T) {
	e := resttest.New(t)
	app := register(t, e, e.Key, "leads:read")
	if _, code := gqlCode(e, e.Key, installApp, map[string]any{"app": app, "scopes": []string{"leads:read", "leads:write"}}); code != "VALIDATION_ERROR" {
		t.Errorf("installing with a scope the app did not ask for: %s; want VALIDATION_ERROR", code)
	}
	r := e.Post("/graphql", e.Key, map[string]any{"query": installApp, "variables": map[string]any{"app": app, "scopes": []string{"admin"}}})
	if !strings.Contains(string(r.Raw), `"scopes"`) {
		t.Errorf("the refusal does not name scopes: %s", r.Raw)
	}
	_, inst := install(t, e, e.Key, app, "leads:read")
	if _, code := gqlCode(e, e.Key, installApp, map[string]any{"app": app, "scopes": []string{"leads:read"}}); code != "CONFLICT" {
		t.Errorf("installing an installed app: %s; want CONFLICT", code)
	}
	readOnly := e.NewKey(e.Org.ID, "leads:read")
	if _, code := gqlCode(e, readOnly, installApp, map[string]any{"app": app, "scopes": []string{"leads:read"}}); code != "FORBIDDEN" {
		t.Errorf("installing without the admin scope: %s; want FORBIDDEN", code)
	}
	gqlAs(t, e, e.Key, uninstallApp, map[string]any{"id": inst})
	install(t, e, e.Key, app, "leads:read") // installed again once uninstalled
	for _, in := range []map[string]any{{"name": "", "scopes": []string{"leads:read"}}, {"name": "x", "scopes": []string{}},
		{"name": "x", "scopes": []string{"everything"}}, {"name": "x", "description": strings.Repeat("d", 501), "scopes": []string{"leads:read"}}} {
		if _, code := gqlCode(e, e.Key, registerApp, map[string]any{"in": in}); code != "VALIDATION_ERROR" {
			t.Errorf("registering %v: %s; want VALIDATION_ERROR", in, code)
		}
	}
}

// Another organization may install an app by its id, but neither lists
// nor uninstalls the organization's installations, nor lists its apps.
func TestAppInstallationsStayInTheirOrganization(t *testing.T) {
	e := resttest.New(t)
	_, other := e.NewOrg("Beta Lending", viewer.AllScopes...)
	app := register(t, e, e.Key, "leads:read")
	_, inst := install(t, e, e.Key, app, "leads:read")
	if _, code := gqlCode(e, other, uninstallApp, map[string]any{"id": inst}); code != "NOT_FOUND" {
		t.Errorf("uninstalling by another organization: %s; want NOT_FOUND", code)
	}
	listed := toJSON(t, gqlAs(t, e, other, listInstalled, nil))
	apps := toJSON(t, gqlAs(t, e, other, `query { apps { total nodes { id } } }`, nil))
	if strings.Contains(listed, inst) || strings.Contains(apps, app) {
		t.Errorf("another organization lists the installation or the app: %s %s", listed, apps)
	}
	if r := e.Get("/v1/apps/installations", other); strings.Contains(string(r.Raw), inst) {
		t.Errorf("another organization lists the installation on REST: %s", r.Raw)
	}
	_, theirs := install(t, e, other, app, "leads:read")
	if mine := toJSON(t, gqlAs(t, e, e.Key, listInstalled, nil)); strings.Contains(mine, theirs) || !strings.Contains(mine, inst) {
		t.Errorf("the organization's installations: %s", mine)
	}
}

// app.webhook_paused of an app's paused subscription goes to the same
// installation's other active subscriptions only, not to the
// organization's other endpoints.
func TestAppWebhookPausedStaysInTheInstallation(t *testing.T) {
	e := resttest.New(t, func(c *rest.Config) { c.Webhooks.PauseAfter = 1 })
	app := register(t, e, e.Key, "webhooks:manage", "leads:read")
	token, _ := install(t, e, e.Key, app, "webhooks:manage", "leads:read")
	gone := webhookstest.NewReceiver(t, func(int) int { return http.StatusGone })
	sibling := webhookstest.NewReceiver(t, webhookstest.OK)
	orgs := webhookstest.NewReceiver(t, webhookstest.OK)
	subscribeWith(t, e, token, gone.URL, event.LeadCreated)
	subscribeWith(t, e, token, sibling.URL, event.AppWebhookPaused)
	subscribeWith(t, e, e.Key, orgs.URL, event.AppWebhookPaused)
	if r := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Trigger"}); r.Status != http.StatusCreated {
		t.Fatalf("creating a lead: %d %s", r.Status, r.Raw)
	}
	gone.Wait(t, 1)
	paused := firstOf(t, sibling.Wait(t, 1), event.AppWebhookPaused)
	if err := eventtest.Check(event.AppWebhookPaused, paused); err != nil {
		t.Error(err)
	}
	// The organization's endpoint would have been sent it in the same
	// fan-out as the sibling's; give a wrong delivery time to arrive.
	time.Sleep(300 * time.Millisecond)
	if n := len(orgs.Wait(t, 0)); n != 0 {
		t.Errorf("the organization's own endpoint received %d app.webhook_paused of the app's subscription; want none", n)
	}
}

// PRODUCT 3: an app token never manages credentials or apps, whatever its
// scopes. An app installed with admin is refused (FORBIDDEN) each of the
// six operations, so nothing it could mint outlives its uninstallation.
func TestAppTokensNeverManageCredentials(t *testing.T) {
	e := resttest.New(t)
	app := register(t, e, e.Key, "admin")
	token, inst := install(t, e, e.Key, app, "admin")
	key := gqlAs(t, e, e.Key, `mutation { createApiKey(input: {name: "Kept", scopes: ["leads:read"]}) { apiKey { id } } }`, nil)
	keyID := key["createApiKey"].(map[string]any)["apiKey"].(map[string]any)["id"]
	for name, op := range map[string]struct {
		query string
		vars  map[string]any
	}{
		"createApiKey": {`mutation { createApiKey(input: {name: "Minted", scopes: ["admin"]}) { secret } }`, nil},
		"rotateApiKey": {rotateKey, map[string]any{"id": keyID}},
		"revokeApiKey": {revokeKey, map[string]any{"id": keyID}},
		"registerApp":  {registerApp, map[string]any{"in": map[string]any{"name": "Minted", "scopes": []string{"admin"}}}},
		"installApp":   {installApp, map[string]any{"app": app, "scopes": []string{"admin"}}},
		"uninstallApp": {uninstallApp, map[string]any{"id": inst}},
	} {
		if status, code := gqlCode(e, token, op.query, op.vars); code != "FORBIDDEN" {
			t.Errorf("%s with an admin app token: %d %q; want FORBIDDEN", name, status, code)
		}
	}
	keys := gqlAs(t, e, e.Key, `query { apiKeys(includeRevoked: true) { total nodes { revokedAt replacedBy } } }`, nil)["apiKeys"].(map[string]any)
	if keys["total"].(float64) != 2 || strings.Contains(toJSON(t, keys), `"revokedAt":"`) {
		t.Errorf("keys after the app token's attempts: %v; want the environment's and the admin's, unrevoked", keys)
	}
	if n := gqlAs(t, e, e.Key, `query { apps { total } }`, nil)["apps"].(map[string]any)["total"].(float64); n != 1 {
		t.Errorf("apps after the app token's attempts: %v; want 1", n)
	}
}
