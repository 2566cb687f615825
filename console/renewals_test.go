package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lendingpipe/svc/rest/resttest"
)

// fundedLong funds a lead's deal on a two-month term three months ago:
// its renewal came due a month later. It answers the deal's id.
func fundedLong(t *testing.T, env *resttest.Env, lead, lender string) string {
	t.Helper()
	app := lendingGQL(t, env, `mutation($in: SubmitApplicationInput!) { submitApplication(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"leadId": lead, "lenderId": lender, "requestedAmount": "40000.00"}})["submitApplication"].(map[string]any)["id"].(string)
	lendingGQL(t, env, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, interestRate: "1.3", rateType: factor, termMonths: 2}) { id } }`,
		map[string]any{"id": app})
	at := time.Now().UTC().AddDate(0, -3, 0).Format(time.RFC3339)
	return lendingGQL(t, env, `mutation($id: ID!, $at: Time) { fundDeal(input: {applicationId: $id, fundedAt: $at}) { id } }`,
		map[string]any{"id": app, "at": at})["fundDeal"].(map[string]any)["id"].(string)
}

// The Renewals screen lists the deals come due; "Start renewal" submits
// the lead to another lender as the deal's renewal, and the deal leaves
// the queue, its lead now having an application in play. The screen has
// no axe violation.
func TestStartRenewalFromTheQueue(t *testing.T) {
	env := serve(t)
	newLead := func(name string) string {
		return lendingGQL(t, env, `mutation($in: CreateLeadInput!) { createLead(input: $in) { id } }`,
			map[string]any{"in": map[string]any{"businessName": name, "requestedAmount": "40000.00"}})["createLead"].(map[string]any)["id"].(string)
	}
	first := createLender(t, env, "Northwind Capital", "0.05")
	createLender(t, env, "Bluefin Funding", "0.04")
	lead := newLead("Harbor Street Bakery")
	deal := fundedLong(t, env, lead, first)
	other := newLead("Lakeside Print Shop")
	fundedLong(t, env, other, first)

	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	run(t, ctx, evalVoid(`location.hash = '#/renewals'`))
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Renewals' && document.querySelector('main .pager-body')?.getAttribute('aria-busy') === 'false' && document.querySelectorAll('main tbody tr').length === 2`)
	if nav := eval[bool](t, ctx, `[...document.querySelectorAll('#nav a')].some(a => a.textContent === 'Renewals')`); !nav {
		t.Error("the nav offers no Renewals")
	}
	row := eval[string](t, ctx, `[...document.querySelectorAll('main tbody tr')].find(r => r.textContent.includes('Harbor Street Bakery'))?.textContent || ''`)
	if !strings.Contains(row, "Northwind Capital") || !strings.Contains(row, "40,000.00") {
		t.Errorf("the bakery's row reads %q", row)
	}
	if errs := eval[string](t, ctx, `document.getElementById('errors').textContent`); errs != "" {
		t.Errorf("the screen shows an error: %q", errs)
	}
	checkA11y(t, ctx)
	shot(t, ctx, "renewals")

	// Start the bakery's renewal with Bluefin.
	form := `main tbody tr:has(a[href="#/leads/` + lead + `"]) details.start-renewal`
	run(t, ctx,
		chromedp.Click(chromedp.CSS(form+` > summary`)),
		chromedp.WaitVisible(chromedp.CSS(form+` select[name="lenderId"]`)))
	waitFor(t, ctx, `[...document.querySelectorAll('`+form+` select[name="lenderId"] option')].some(o => o.textContent === 'Bluefin Funding')`)
	run(t, ctx, evalVoid(`(() => {
		const s = document.querySelector('`+form+` select[name="lenderId"]');
		s.value = [...s.options].find(o => o.textContent === 'Bluefin Funding').value;
	})()`))
	checkA11y(t, ctx)
	run(t, ctx, chromedp.Click(chromedp.CSS(form+` button[type="submit"]`)))
	waitFor(t, ctx, `document.querySelector('main .pager-body')?.getAttribute('aria-busy') === 'false' && document.querySelectorAll('main tbody tr').length === 1 && !document.querySelector('main tbody').textContent.includes('Harbor Street Bakery')`)

	// The application carries the deal it renews.
	apps := lendingGQL(t, env, `query($id: ID!) { applicationsPage(leadId: $id) { nodes { lenderName status renewalOfDealId isRenewal } } }`,
		map[string]any{"id": lead})["applicationsPage"].(map[string]any)["nodes"].([]any)
	renewal := false
	for _, a := range apps {
		a := a.(map[string]any)
		if a["lenderName"] == "Bluefin Funding" {
			renewal = a["status"] == "submitted" && a["renewalOfDealId"] == deal && a["isRenewal"] == true
		}
	}
	if !renewal {
		t.Fatalf("the lead's applications: %v", apps)
	}

	// Looking 90 days ahead, from the address: the filter shows it, and the
	// print shop's deal is still the one listed.
	run(t, ctx, evalVoid(`location.hash = '#/renewals?due=90'`))
	waitFor(t, ctx, `document.querySelector('main select[name="due"]')?.value === '90' && document.querySelector('main .pager-body')?.getAttribute('aria-busy') === 'false' && document.querySelectorAll('main tbody tr').length === 1 && document.querySelector('main tbody').textContent.includes('Lakeside Print Shop')`)
}
