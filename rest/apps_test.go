package rest_test

import (
	"net/http"
	"testing"

	"github.com/lendingpipe/svc/rest/resttest"
)

// GET /v1/apps/installations lists the organization's installed apps for
// its admin, uninstalled ones only when asked, and works with the app
// token only while the app is installed and only within its scopes.
func TestAppInstallationsList(t *testing.T) {
	e := resttest.New(t)
	app := field(gql(t, e, e.Key, `mutation { registerApp(input: {name: "Dialer Sync", scopes: ["leads:read", "admin"]}) { id } }`, nil), "registerApp")["id"]
	installed := field(gql(t, e, e.Key, `mutation($a: ID!) { installApp(appId: $a, scopes: ["leads:read"]) { token installation { id } } }`,
		map[string]any{"a": app}), "installApp")
	token, id := installed["token"].(string), field(installed, "installation")["id"].(string)
	r := e.Get("/v1/apps/installations", e.Key)
	mustStatus(t, r, http.StatusOK)
	items := r.Items()
	if len(items) != 1 || items[0]["id"] != id || items[0]["type"] != "app_installation" {
		t.Fatalf("installations: %s", r.Raw)
	}
	attrs := items[0]["attributes"].(map[string]any)
	if attrs["appId"] != app || attrs["appName"] != "Dialer Sync" || attrs["uninstalledAt"] != nil {
		t.Errorf("installation attributes: %v", attrs)
	}
	if r := e.Get("/v1/apps/installations", token); r.Status != http.StatusForbidden {
		t.Errorf("the leads:read app token listing installations: %d; want 403", r.Status)
	}
	gql(t, e, e.Key, `mutation($id: ID!) { uninstallApp(installationId: $id) { id } }`, map[string]any{"id": id})
	if n := len(e.Get("/v1/apps/installations", e.Key).Items()); n != 0 {
		t.Errorf("%d installations listed after the uninstall; want none without includeUninstalled", n)
	}
	if items := e.Get("/v1/apps/installations?includeUninstalled=true", e.Key).Items(); len(items) != 1 ||
		items[0]["attributes"].(map[string]any)["uninstalledAt"] == nil {
		t.Errorf("with includeUninstalled: %v", items)
	}
	if r := e.Get("/v1/apps/installations?includeUninstalled=maybe", e.Key); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("a malformed includeUninstalled: %d; want 422", r.Status)
	}
	if r := e.Get("/v1/leads", token); r.Status != http.StatusUnauthorized {
		t.Errorf("the uninstalled app's token: %d; want 401", r.Status)
	}
}
