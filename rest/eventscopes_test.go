package rest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

// PRODUCT 3, events follow scopes: a subscription lists only event types
// its credential may read, on create and on update, REST and GraphQL; a
// type it may not read is 403 naming it, and "*" asks for the types it may
// read, refused when that is none.
func TestSubscriptionsListOnlyReadableEvents(t *testing.T) {
	e := resttest.New(t)
	hooksOnly := e.NewKey(e.Org.ID, viewer.ScopeWebhooksManage)
	leadsHooks := e.NewKey(e.Org.ID, viewer.ScopeWebhooksManage, viewer.ScopeLeadsRead)
	url := "https://hooks.example.com/in"
	refused := func(t *testing.T, r *resttest.Response, eventType string) {
		t.Helper()
		mustStatus(t, r, http.StatusForbidden)
		if code, _ := r.Error(); code != "FORBIDDEN" || !strings.Contains(string(r.Raw), eventType) {
			t.Errorf("refusal %s does not name %s: %s", code, eventType, r.Raw)
		}
	}
	t.Run("RESTCreate", func(t *testing.T) {
		mustStatus(t, e.Get("/v1/leads", hooksOnly), http.StatusForbidden)
		refused(t, e.Post("/v1/app-webhooks", hooksOnly, map[string]any{"url": url, "events": []string{"lead.created"}}), "lead.created")
		refused(t, e.Post("/v1/app-webhooks", hooksOnly, map[string]any{"url": url, "events": []string{"*"}}), "scope")
		refused(t, e.Post("/v1/app-webhooks", leadsHooks, map[string]any{"url": url, "events": []string{"lead.created", "deal.funded"}}), "deal.funded")
		refused(t, e.Post("/v1/app-webhooks", leadsHooks, map[string]any{"url": url, "events": []string{"app.installed"}}), "app.installed")
		mustStatus(t, e.Post("/v1/app-webhooks", leadsHooks, map[string]any{"url": url, "events": []string{"lead.created", "contact.updated"}}), http.StatusCreated)
		mustStatus(t, e.Post("/v1/app-webhooks", leadsHooks, map[string]any{"url": url, "events": []string{"*"}}), http.StatusCreated)
	})
	t.Run("RESTUpdate", func(t *testing.T) {
		r := e.Post("/v1/app-webhooks", leadsHooks, map[string]any{"url": url, "events": []string{"lead.created"}})
		mustStatus(t, r, http.StatusCreated)
		id := r.Data()["id"].(string)
		refused(t, e.Patch("/v1/app-webhooks/"+id, leadsHooks, map[string]any{"events": []string{"application.approved"}}), "application.approved")
		mustStatus(t, e.Patch("/v1/app-webhooks/"+id, leadsHooks, map[string]any{"events": []string{"lead.updated"}}), http.StatusOK)
		// The admin may read deal events; the subscription's key may not.
		refused(t, e.Patch("/v1/app-webhooks/"+id, e.Key, map[string]any{"events": []string{"deal.funded"}}), "deal.funded")
		mustStatus(t, e.Patch("/v1/app-webhooks/"+id, e.Key, map[string]any{"events": []string{"contact.updated"}}), http.StatusOK)
	})
	t.Run("GraphQL", func(t *testing.T) {
		create := `mutation($in: NewWebhookSubscription!) { createWebhookSubscription(input: $in) { subscription { id } } }`
		r := e.Post("/graphql", hooksOnly, map[string]any{"query": create,
			"variables": map[string]any{"in": map[string]any{"url": url, "events": []string{"lead.created"}}}})
		if !strings.Contains(string(r.Raw), `"FORBIDDEN"`) || !strings.Contains(string(r.Raw), "lead.created") {
			t.Errorf("createWebhookSubscription of lead.created with webhooks:manage alone: %s", r.Raw)
		}
		r = e.Post("/graphql", leadsHooks, map[string]any{"query": create,
			"variables": map[string]any{"in": map[string]any{"url": url, "events": []string{"lead.created"}}}})
		id, _ := r.Body["data"].(map[string]any)["createWebhookSubscription"].(map[string]any)["subscription"].(map[string]any)["id"].(string)
		update := `mutation($id: ID!, $in: WebhookSubscriptionPatch!) { updateWebhookSubscription(id: $id, input: $in) { id } }`
		r = e.Post("/graphql", leadsHooks, map[string]any{"query": update,
			"variables": map[string]any{"id": id, "in": map[string]any{"events": []string{"deal.funded"}}}})
		if !strings.Contains(string(r.Raw), `"FORBIDDEN"`) || !strings.Contains(string(r.Raw), "deal.funded") {
			t.Errorf("updateWebhookSubscription to deal.funded with leads:read: %s", r.Raw)
		}
	})
}

// Deliveries follow the credential's scopes as each event is fanned out:
// a subscription whose key is revoked receives no more events, one whose
// key was rotated follows the replacement, and a "*" subscription gets
// only the types its key may read.
func TestDeliveriesFollowTheKeysScopes(t *testing.T) {
	e := resttest.New(t)
	kept := webhookstest.NewReceiver(t, webhookstest.OK)
	cut := webhookstest.NewReceiver(t, webhookstest.OK)
	rotated := webhookstest.NewReceiver(t, webhookstest.OK)
	keptKey := e.NewKey(e.Org.ID, viewer.ScopeWebhooksManage, viewer.ScopeLeadsRead)
	cutKey := e.NewKey(e.Org.ID, viewer.ScopeWebhooksManage, viewer.ScopeLeadsRead)
	rotatedKey := e.NewKey(e.Org.ID, viewer.ScopeWebhooksManage, viewer.ScopeLeadsRead)
	for key, rc := range map[string]*webhookstest.Receiver{keptKey: kept, cutKey: cut, rotatedKey: rotated} {
		mustStatus(t, e.Post("/v1/app-webhooks", key, map[string]any{"url": rc.URL, "events": []string{"*"}}), http.StatusCreated)
	}
	createLead(t, e, e.Key, map[string]any{"businessName": "Before"})
	for _, rc := range []*webhookstest.Receiver{kept, cut, rotated} {
		rc.Wait(t, 1)
	}
	keyID := func(secret string) string {
		t.Helper()
		r := e.Post("/graphql", e.Key, map[string]any{"query": `query { apiKeys { nodes { id prefix } } }`})
		for _, n := range r.Body["data"].(map[string]any)["apiKeys"].(map[string]any)["nodes"].([]any) {
			if k := n.(map[string]any); strings.HasPrefix(secret, k["prefix"].(string)) {
				return k["id"].(string)
			}
		}
		t.Fatalf("no key %s...", secret[:12])
		return ""
	}
	gql := func(query string, vars map[string]any) {
		t.Helper()
		if r := e.Post("/graphql", e.Key, map[string]any{"query": query, "variables": vars}); r.Body["errors"] != nil {
			t.Fatalf("%s: %s", query, r.Raw)
		}
	}
	gql(`mutation($id: ID!) { revokeApiKey(id: $id) { id } }`, map[string]any{"id": keyID(cutKey)})
	gql(`mutation($id: ID!) { rotateApiKey(id: $id, graceSeconds: 0) { secret } }`, map[string]any{"id": keyID(rotatedKey)})
	createLead(t, e, e.Key, map[string]any{"businessName": "After"})
	// app.installed: the admin's to read, not these keys'.
	app := e.Post("/graphql", e.Key, map[string]any{"query": `mutation { registerApp(input: {name: "Sync", scopes: ["leads:read"]}) { id } }`})
	gql(`mutation($a: ID!) { installApp(appId: $a, scopes: ["leads:read"]) { token } }`,
		map[string]any{"a": app.Body["data"].(map[string]any)["registerApp"].(map[string]any)["id"]})
	createLead(t, e, e.Key, map[string]any{"businessName": "Last"})
	kept.Wait(t, 3)
	rotated.Wait(t, 3)
	// Every event fanned out: a delivery to cut would have been made by now.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		n, err := e.DB.Client.WebhookEvent.Query().Where(webhookevent.Dispatched(false)).Count(rule.SystemContext(context.Background()))
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("events not fanned out within 10s")
		}
	}
	if got := cut.Wait(t, 0); len(got) != 1 {
		t.Errorf("the revoked key's subscription received %d events; want only the one before the revocation", len(got))
	}
	for name, rc := range map[string]*webhookstest.Receiver{"kept": kept, "rotated": rotated} {
		for _, d := range rc.Wait(t, 0) {
			if !strings.HasPrefix(d.Env.Event, "lead.") && !strings.HasPrefix(d.Env.Event, "contact.") {
				t.Errorf("the %s leads:read subscription to * received %s", name, d.Env.Event)
			}
		}
	}
}

// A replay of a time range sends what the fan-out would send now: a "*"
// subscription of a leads:read key gets the lead events of the range
// again, not the app.* ones; a revoked key's subscription gets nothing.
func TestReplayFollowsTheKeysScopes(t *testing.T) {
	e := resttest.New(t)
	since := time.Now().Add(-time.Second).UTC().Format(time.RFC3339Nano)
	leadsKey := e.NewKey(e.Org.ID, viewer.ScopeWebhooksManage, viewer.ScopeLeadsRead)
	revokedKey := e.NewKey(e.Org.ID, viewer.ScopeWebhooksManage, viewer.ScopeLeadsRead)
	subscribe := func(key string) string {
		t.Helper()
		rc := webhookstest.NewReceiver(t, webhookstest.OK)
		r := e.Post("/v1/app-webhooks", key, map[string]any{"url": rc.URL, "events": []string{"*"}})
		mustStatus(t, r, http.StatusCreated)
		return r.Data()["id"].(string)
	}
	leadsSub, revokedSub := subscribe(leadsKey), subscribe(revokedKey)
	createLead(t, e, e.Key, map[string]any{"businessName": "Replayed"})
	app := e.Post("/graphql", e.Key, map[string]any{"query": `mutation { registerApp(input: {name: "Sync", scopes: ["leads:read"]}) { id } }`})
	inst := e.Post("/graphql", e.Key, map[string]any{"query": `mutation($a: ID!) { installApp(appId: $a, scopes: ["leads:read"]) { token } }`,
		"variables": map[string]any{"a": app.Body["data"].(map[string]any)["registerApp"].(map[string]any)["id"]}})
	if inst.Body["errors"] != nil {
		t.Fatalf("installApp: %s", inst.Raw)
	}
	keys := e.Post("/graphql", e.Key, map[string]any{"query": `query { apiKeys { nodes { id prefix } } }`})
	for _, n := range keys.Body["data"].(map[string]any)["apiKeys"].(map[string]any)["nodes"].([]any) {
		if k := n.(map[string]any); strings.HasPrefix(revokedKey, k["prefix"].(string)) {
			e.Post("/graphql", e.Key, map[string]any{"query": `mutation($id: ID!) { revokeApiKey(id: $id) { id } }`,
				"variables": map[string]any{"id": k["id"]}})
		}
	}
	queued := func(sub string) int {
		t.Helper()
		r := e.Post("/v1/app-webhooks/"+sub+"/replay", e.Key, map[string]any{"since": since})
		mustStatus(t, r, http.StatusAccepted)
		return int(r.Data()["attributes"].(map[string]any)["queued"].(float64))
	}
	leadEvents := 0
	for _, ev := range eventTypesSince(t, e) {
		if strings.HasPrefix(ev, "lead.") || strings.HasPrefix(ev, "contact.") {
			leadEvents++
		}
	}
	if leadEvents == 0 {
		t.Fatal("no lead event in the range")
	}
	if n := queued(leadsSub); n != leadEvents {
		t.Errorf("replaying the leads:read key's * subscription queued %d deliveries; want its %d lead events only", n, leadEvents)
	}
	if n := queued(revokedSub); n != 0 {
		t.Errorf("replaying the revoked key's subscription queued %d deliveries; want none", n)
	}
}

// eventTypesSince is the type of every event of e's organization's outbox.
func eventTypesSince(t *testing.T, e *resttest.Env) []string {
	t.Helper()
	evs, err := e.DB.Client.WebhookEvent.Query().All(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs {
		if ev.OrgID == e.Org.ID {
			out = append(out, ev.EventType)
		}
	}
	return out
}

// A subscription follows its key through any number of rotations: each
// rotation hands it to the replacing key.
func TestDeliveriesFollowTwentyRotations(t *testing.T) {
	e := resttest.New(t)
	rc := webhookstest.NewReceiver(t, webhookstest.OK)
	key := e.NewKey(e.Org.ID, viewer.ScopeWebhooksManage, viewer.ScopeLeadsRead)
	mustStatus(t, e.Post("/v1/app-webhooks", key, map[string]any{"url": rc.URL, "events": []string{"lead.created"}}), http.StatusCreated)
	keys := e.Post("/graphql", e.Key, map[string]any{"query": `query { apiKeys { nodes { id prefix } } }`})
	var id any
	for _, n := range keys.Body["data"].(map[string]any)["apiKeys"].(map[string]any)["nodes"].([]any) {
		if k := n.(map[string]any); strings.HasPrefix(key, k["prefix"].(string)) {
			id = k["id"]
		}
	}
	for i := range 20 {
		r := e.Post("/graphql", e.Key, map[string]any{"query": `mutation($id: ID!) { rotateApiKey(id: $id, graceSeconds: 0) { apiKey { id } } }`,
			"variables": map[string]any{"id": id}})
		if r.Body["errors"] != nil {
			t.Fatalf("rotation %d: %s", i+1, r.Raw)
		}
		id = r.Body["data"].(map[string]any)["rotateApiKey"].(map[string]any)["apiKey"].(map[string]any)["id"]
	}
	createLead(t, e, e.Key, map[string]any{"businessName": "Rotated Often"})
	if got := rc.Wait(t, 1); len(got) != 1 {
		t.Errorf("after 20 rotations the subscription received %d events; want 1", len(got))
	}
}
