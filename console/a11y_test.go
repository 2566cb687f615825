package console_test

import (
	"testing"
)

// Every screen, at 1280 px and on a phone, in light and dark mode, has no
// violation axe-core can find: the screens with data in them, a lead's
// page included.
func TestEveryScreenIsAccessible(t *testing.T) {
	env := serve(t)
	lead := env.Post("/v1/leads", env.Key, map[string]any{"businessName": "Harbor Freight", "requestedAmount": "125000.50"})
	id, _ := lead.Data()["id"].(string)
	if id == "" {
		t.Fatalf("creating a lead: %d %s", lead.Status, lead.Raw)
	}
	// People in each state the Users screen shows: signing in, and none.
	env.NewPerson(env.Org.ID, "Ada", "Advisor", "advisor", personPassword)
	env.NewUser(env.Org.ID, "Nell", "Newcomer", "agent", "")
	screens := []struct{ route, title, picture string }{
		{"/lenders", "Lenders", "lenders"}, {"/applications", "Applications", "applications"},
		{"/renewals", "Renewals", "renewals"},
		{"/agents", "Agents", "agents"}, {"/webhooks", "Webhooks", "webhooks"}, {"/inbound", "Inbound", "inbound"},
		{"/automations", "Automations", "automations"}, {"/users", "Users", "users"},
		{"/keys", "API keys", "keys"}, {"/apps", "Apps", "apps"},
		{"/analytics", "Analytics", "analytics"},
	}
	for _, size := range []string{"desktop", "phone"} {
		ctx := newBrowser(t)
		if size == "phone" {
			phone(t, ctx)
		}
		signIn(t, ctx, env, env.Key)
		waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Pipeline board' && document.querySelector('[aria-busy="true"]') === null && document.querySelector('.card') !== null`)
		checkA11y(t, ctx)
		for _, s := range screens {
			openScreen(t, ctx, s.route, s.title)
			checkA11y(t, ctx)
			if size == "phone" {
				shot(t, ctx, s.picture+"-phone") // the 1280 px pictures come from each screen's own test
			}
		}
		// My day, with a key bound to no one: it says whose screen it is.
		run(t, ctx, evalVoid(`location.hash = '/my-day'`))
		waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'My day' && document.querySelector('main p.muted') !== null`)
		checkA11y(t, ctx)
		run(t, ctx, evalVoid(`location.hash = '/leads/`+id+`'`))
		waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Harbor Freight'`)
		checkA11y(t, ctx)
		if size == "phone" {
			shot(t, ctx, "lead-phone")
		}
	}
}
