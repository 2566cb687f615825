package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

func subscribe(t testing.TB, e *resttest.Env, url string, events ...string) (id, secret string) {
	t.Helper()
	r := e.Post("/v1/app-webhooks", e.Key, map[string]any{"url": url, "events": events})
	mustStatus(t, r, http.StatusCreated)
	return r.Data()["id"].(string), r.Attr("secret").(string)
}

func fastRetries(schedule ...time.Duration) resttest.Option {
	return func(c *rest.Config) { c.Webhooks.Schedule = schedule }
}

func TestSubscriptions(t *testing.T) {
	e := resttest.New(t)
	rc := webhookstest.NewReceiver(t, webhookstest.OK)
	r := e.Post("/v1/app-webhooks", e.Key, map[string]any{"url": rc.URL, "events": []string{"lead.created", "lead.updated"}})
	mustStatus(t, r, http.StatusCreated)
	id, secret := r.Data()["id"].(string), r.Attr("secret").(string)
	if !strings.HasPrefix(id, "whsub_") || !strings.HasPrefix(secret, "whsec_") || r.Attr("isActive") != true || r.Data()["type"] != "webhook_subscription" {
		t.Fatalf("created = %s", r.Raw)
	}
	t.Run("SecretOnlyOnCreate", func(t *testing.T) {
		list := e.Get("/v1/app-webhooks", e.Key)
		mustStatus(t, list, http.StatusOK)
		if list.Meta()["total"] != 1.0 || strings.Contains(string(list.Raw), secret) || strings.Contains(string(list.Raw), `"secret"`) {
			t.Errorf("list = %s", list.Raw)
		}
		p := e.Patch("/v1/app-webhooks/"+id, e.Key, map[string]any{"events": []string{"*"}})
		mustStatus(t, p, http.StatusOK)
		if strings.Contains(string(p.Raw), secret) || p.Attr("events").([]any)[0] != "*" {
			t.Errorf("patch = %s", p.Raw)
		}
	})
	t.Run("CallerSecret", func(t *testing.T) {
		r := e.Post("/v1/app-webhooks", e.Key, map[string]any{"url": rc.URL, "events": []string{"*"}, "secret": "my-own-secret-0123456789"})
		mustStatus(t, r, http.StatusCreated)
		if r.Attr("secret") != "my-own-secret-0123456789" {
			t.Errorf("secret = %v", r.Attr("secret"))
		}
	})
	t.Run("Validation", func(t *testing.T) {
		for name, c := range map[string]struct {
			body  map[string]any
			field string
		}{
			"NoURL":        {map[string]any{"events": []string{"*"}}, "url"},
			"NoEvents":     {map[string]any{"url": rc.URL}, "events"},
			"EmptyEvents":  {map[string]any{"url": rc.URL, "events": []string{}}, "events"},
			"UnknownEvent": {map[string]any{"url": rc.URL, "events": []string{"lead.exploded"}}, "events"},
			"BadURL":       {map[string]any{"url": "not a url", "events": []string{"*"}}, "url"},
			"Credentials":  {map[string]any{"url": "https://u:p@example.com/h", "events": []string{"*"}}, "url"},
			"ShortSecret":  {map[string]any{"url": rc.URL, "events": []string{"*"}, "secret": "short"}, "secret"},
			"Unknown":      {map[string]any{"url": rc.URL, "events": []string{"*"}, "colour": "red"}, "colour"},
		} {
			t.Run(name, func(t *testing.T) {
				mustError(t, e.Post("/v1/app-webhooks", e.Key, c.body), http.StatusUnprocessableEntity, "VALIDATION_ERROR", c.field)
			})
		}
		mustError(t, e.Patch("/v1/app-webhooks/"+id, e.Key, map[string]any{"secret": "new-secret-0123456789"}), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "secret")
	})
	t.Run("Scope", func(t *testing.T) {
		leadsOnly := e.NewKey(e.Org.ID, viewer.ScopeLeadsRead, viewer.ScopeLeadsWrite)
		mustError(t, e.Post("/v1/app-webhooks", leadsOnly, map[string]any{"url": rc.URL, "events": []string{"*"}}), http.StatusForbidden, "FORBIDDEN", "")
		mustError(t, e.Get("/v1/app-webhooks", leadsOnly), http.StatusForbidden, "FORBIDDEN", "")
		mustError(t, e.Patch("/v1/app-webhooks/"+id, leadsOnly, map[string]any{"isActive": false}), http.StatusForbidden, "FORBIDDEN", "")
	})
	t.Run("OtherOrg", func(t *testing.T) {
		_, otherKey := e.NewOrg("Other", viewer.AllScopes...)
		mustError(t, e.Patch("/v1/app-webhooks/"+id, otherKey, map[string]any{"isActive": false}), http.StatusNotFound, "NOT_FOUND", "")
		mustError(t, e.Do(resttest.Request{Method: "DELETE", Path: "/v1/app-webhooks/" + id, Key: otherKey}), http.StatusNotFound, "NOT_FOUND", "")
		if r := e.Get("/v1/app-webhooks", otherKey); r.Meta()["total"] != 0.0 {
			t.Errorf("other org sees %s", r.Raw)
		}
	})
	t.Run("Delete", func(t *testing.T) {
		createLead(t, e, e.Key, map[string]any{"businessName": "Before delete"})
		rc.Wait(t, 1)
		r := e.Do(resttest.Request{Method: "DELETE", Path: "/v1/app-webhooks/" + id, Key: e.Key})
		if r.Status != http.StatusNoContent || len(r.Raw) != 0 {
			t.Fatalf("delete = %d %s", r.Status, r.Raw)
		}
		mustError(t, e.Patch("/v1/app-webhooks/"+id, e.Key, map[string]any{"isActive": true}), http.StatusNotFound, "NOT_FOUND", "")
	})
}

// A URL refused only because a development setting is off says which
// setting would allow it, so a developer with a local receiver is not left
// guessing.
func TestHTTPSRequired(t *testing.T) {
	e := resttest.New(t, func(c *rest.Config) { c.Webhooks.AllowHTTP, c.Webhooks.AllowPrivate = false, false })
	for url, want := range map[string]string{
		"http://example.com/hook":         "must use https (set SVC_WEBHOOK_ALLOW_HTTP=true to allow http in development)",
		"https://127.0.0.1/hook":          "(set SVC_WEBHOOK_ALLOW_PRIVATE=true to allow it in development)",
		"https://10.1.2.3/hook":           "(set SVC_WEBHOOK_ALLOW_PRIVATE=true to allow it in development)",
		"https://169.254.169.254/latest":  "(set SVC_WEBHOOK_ALLOW_PRIVATE=true to allow it in development)",
		"https://[::1]/hook":              "(set SVC_WEBHOOK_ALLOW_PRIVATE=true to allow it in development)",
		"https://localhost/hook":          "must not point to localhost (set SVC_WEBHOOK_ALLOW_PRIVATE=true",
		"ftp://hooks.example.com/in":      "must use https",
		"https://u:p@hooks.example.com/h": "must not carry credentials",
	} {
		r := e.Post("/v1/app-webhooks", e.Key, map[string]any{"url": url, "events": []string{"*"}})
		mustError(t, r, http.StatusUnprocessableEntity, "VALIDATION_ERROR", "url")
		if !strings.Contains(string(r.Raw), want) {
			t.Errorf("%s: %s, want the message to say %q", url, r.Raw, want)
		}
	}
	mustStatus(t, e.Post("/v1/app-webhooks", e.Key, map[string]any{"url": "https://hooks.example.com/in", "events": []string{"*"}}), http.StatusCreated)
}

func TestCatalog(t *testing.T) {
	e := resttest.New(t)
	r := e.Get("/v1/webhooks/catalog", "")
	mustStatus(t, r, http.StatusOK)
	names := map[string]map[string]any{}
	for _, it := range r.Items() {
		names[it["id"].(string)] = it["attributes"].(map[string]any)
	}
	for _, want := range []string{"lead.created", "lead.status_changed", "lead.updated", "lead.stage_changed", "lead.assigned",
		"application.submitted", "application.approved", "application.declined", "deal.funded", "deal.commission_paid",
		"contact.created", "contact.updated", "document.uploaded", "app.installed", "app.uninstalled", "app.webhook_paused",
		"application.ready_to_fund", "deal.renewal_eligible"} {
		a, ok := names[want]
		if !ok {
			t.Errorf("catalog lacks %s", want)
			continue
		}
		if a["description"] == "" || a["schema"].(map[string]any)["type"] != "object" {
			t.Errorf("%s = %v", want, a)
		}
	}
	if r.Meta()["total"] != 18.0 {
		t.Errorf("total = %v", r.Meta()["total"])
	}
}

func TestStageMoveEvents(t *testing.T) {
	e := resttest.New(t)
	rc := webhookstest.NewReceiver(t, webhookstest.OK)
	subscribe(t, e, rc.URL, "lead.status_changed", "lead.stage_changed", "lead.assigned", "lead.updated")
	id := createLead(t, e, e.Key, map[string]any{"businessName": "Mover"})
	stages := e.Stages(e.Org.ID)
	mustStatus(t, e.Post("/v1/leads/"+id+"/stage", e.Key, map[string]any{"stageId": stages[2].ID}), http.StatusOK)
	got := rc.Wait(t, 2)
	types := map[string]map[string]any{}
	for _, d := range got {
		types[d.Env.Event] = d.Env.Data
	}
	for _, ty := range []string{"lead.status_changed", "lead.stage_changed"} {
		data := types[ty]
		if data == nil || data["previousStageId"] != stages[0].ID.String() || data["newStageId"] != stages[2].ID.String() ||
			data["previousStageLabel"] != "New" || data["newStageLabel"] != stages[2].StageLabel || data["changedBy"] == nil {
			t.Errorf("%s = %v", ty, data)
		}
	}
	adv := e.NewUser(e.Org.ID, "Al", "Assign", "advisor", "")
	mustStatus(t, e.Post("/v1/leads/"+id+"/assign", e.Key, map[string]any{"advisorId": adv.ID}), http.StatusOK)
	mustStatus(t, e.Patch("/v1/leads/"+id, e.Key, map[string]any{"industry": "Freight"}), http.StatusOK)
	got = rc.Wait(t, 4)
	// Deliveries of different events run concurrently: find them by type.
	byType := map[string]webhooks.Envelope{}
	for _, d := range got {
		byType[d.Env.Event] = d.Env
	}
	if a := byType["lead.assigned"]; a.Data["advisorId"] != adv.ID.String() || a.Data["previousAdvisorId"] != nil {
		t.Errorf("assign event = %+v", a)
	}
	if u := byType["lead.updated"]; fmt.Sprint(u.Data["changedFields"]) != "[industry]" {
		t.Errorf("update event = %+v", u)
	}
}

// An event exists if and only if its change committed.
func TestOutboxCommitsWithTheChange(t *testing.T) {
	e := resttest.New(t)
	count := func() int {
		n, err := e.DB.Client.WebhookEvent.Query().Where(webhookevent.EventType("lead.created")).Count(rule.SystemContext(context.Background()))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	createLead(t, e, e.Key, map[string]any{"businessName": "Kept"})
	if n := count(); n != 1 {
		t.Fatalf("events after a committed create = %d, want 1", n)
	}
	// The second create fails, so the transaction around the operation rolls back the first and its event.
	r := e.Post("/graphql", e.Key, map[string]any{"query": `mutation { a: createLead(input: {businessName: "Gone"}) { id } b: createLead(input: {email: "bad"}) { id } }`})
	mustStatus(t, r, http.StatusOK)
	if n := count(); n != 1 {
		t.Fatalf("events after a rolled-back create = %d, want 1", n)
	}
	mustError(t, e.Post("/v1/leads", e.Key, map[string]any{"stageId": "0190c1d2-0000-7000-8000-000000000000"}), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "stageId")
	if n := count(); n != 1 {
		t.Fatalf("events after a failed create = %d, want 1", n)
	}
}

// contact.created and contact.updated are emitted from the GraphQL mutations.
func TestContactEvents(t *testing.T) {
	e := resttest.New(t)
	rc := webhookstest.NewReceiver(t, webhookstest.OK)
	subscribe(t, e, rc.URL, "contact.created", "contact.updated")
	r := e.Post("/graphql", e.Key, map[string]any{"query": `mutation { createContact(input: {firstName: "Cleo", email: "cleo@contact.example"}) { id } }`})
	mustStatus(t, r, http.StatusOK)
	id := r.Body["data"].(map[string]any)["createContact"].(map[string]any)["id"]
	rc.Wait(t, 1)
	r = e.Post("/graphql", e.Key, map[string]any{"query": `mutation($id: ID!) { updateContact(id: $id, input: {phone: "+15550111"}) { id } }`,
		"variables": map[string]any{"id": id}})
	mustStatus(t, r, http.StatusOK)
	got := rc.Wait(t, 2)
	byType := map[string]map[string]any{}
	for _, d := range got {
		byType[d.Env.Event] = d.Env.Data
	}
	if c := byType["contact.created"]; c["contactId"] != id || c["firstName"] != "Cleo" || c["email"] != "cleo@contact.example" {
		t.Errorf("contact.created = %v", c)
	}
	if u := byType["contact.updated"]; u["contactId"] != id || u["phone"] != "+15550111" {
		t.Errorf("contact.updated = %v", u)
	}
}

// TestDeliveryErrorsInTheAttemptLogNameNoAddress: with the address guard
// on, a subscription whose host resolves to loopback (stored directly, as
// if its name had re-resolved since it was checked) fails its attempt, and
// the attempt log the deliveries API returns says why without the address.
func TestDeliveryErrorsInTheAttemptLogNameNoAddress(t *testing.T) {
	e := resttest.New(t, func(c *rest.Config) { c.Webhooks.AllowPrivate = false })
	recv := webhookstest.NewReceiver(t, webhookstest.OK)
	url := "http://localhost" + recv.URL[strings.LastIndex(recv.URL, ":"):]
	_, key, err := store.CreateAPIKey(context.Background(), e.DB.Client, e.Org.ID, "live", "hooks", []string{viewer.ScopeLeadsRead})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := e.DB.Client.WebhookSubscription.Create().SetOrgID(e.Org.ID).SetURL(url).SetKeyID(key.ID).
		SetEvents([]string{"lead.created"}).SetSecret("whsec_guarded").Save(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	mustStatus(t, e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Guarded Co"}), http.StatusCreated)
	path := "/v1/app-webhooks/whsub_" + sub.ID.String() + "/deliveries"
	deadline := time.Now().Add(10 * time.Second)
	for {
		items := e.Get(path, e.Key).Items()
		if len(items) > 0 {
			if log, _ := items[0]["attributes"].(map[string]any)["attemptLog"].([]any); len(log) > 0 {
				msg, _ := log[0].(map[string]any)["error"].(string)
				if !strings.Contains(msg, "the receiver's address resolves to a private or reserved network") {
					t.Errorf("attempt error = %q", msg)
				}
				for _, addr := range []string{"127.0.0.1", "::1"} {
					if strings.Contains(msg, addr) {
						t.Errorf("attempt error %q names the resolved address %s", msg, addr)
					}
				}
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no attempt logged: %s", e.Get(path, e.Key).Raw)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
