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
	screens := []struct{ route, title string }{
		{"/lenders", "Lenders"}, {"/applications", "Applications"},
		{"/agents", "Agents"}, {"/webhooks", "Webhooks"}, {"/inbound", "Inbound"},
		{"/automations", "Automations"}, {"/keys", "API keys"}, {"/apps", "Apps"},
		{"/analytics", "Analytics"},
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
		}
		run(t, ctx, evalVoid(`location.hash = '/leads/`+id+`'`))
		waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Harbor Freight'`)
		checkA11y(t, ctx)
	}
}
