package console_test

import (
	"encoding/json"
	"testing"

	"github.com/chromedp/chromedp"
)

// The lead page shows its three approved offers side by side, cheapest
// first, with the figures computed by hand; the one with a stipulation
// outstanding has no "Ready to fund" badge. The board's card and the
// Applications screen's rows carry the badge too.
func TestOffersSideBySide(t *testing.T) {
	env := serve(t)
	lead := lendingGQL(t, env, `mutation($in: CreateLeadInput!) { createLead(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"businessName": "Sunrise Auto Repair", "requestedAmount": "40000.00"}})["createLead"].(map[string]any)["id"].(string)
	approve := func(lender, amount string, terms map[string]any) string {
		app := submitApp(t, env, lead, createLender(t, env, lender, "0.05"))
		terms["decision"], terms["approvedAmount"] = "APPROVED", amount
		lendingGQL(t, env, `mutation($id: ID!, $in: DecideApplicationInput!) { decideApplication(id: $id, input: $in) { id } }`,
			map[string]any{"id": app, "in": terms})
		return app
	}
	northwind := approve("Northwind Capital", "40000.00", map[string]any{"interestRate": "0.289", "rateType": "apr", "termMonths": 18,
		"paymentFrequency": "weekly"})
	bluefin := approve("Bluefin Funding", "45000.00", map[string]any{"interestRate": "1.35", "rateType": "factor", "termMonths": 9,
		"paymentFrequency": "daily", "conditions": []string{"Voided check"}})
	summit := approve("Summit Lending", "30000.00", map[string]any{"interestRate": "1.25", "rateType": "factor", "termMonths": 6,
		"paymentFrequency": "monthly"})
	declined := submitApp(t, env, lead, createLender(t, env, "Harbor Bank", "0.05"))
	lendingGQL(t, env, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: DECLINED, reason: "Too new"}) { id } }`,
		map[string]any{"id": declined})

	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	run(t, ctx, evalVoid(`location.hash = '#/leads/`+lead+`'`))
	waitFor(t, ctx, `document.querySelectorAll('.lead-lending .offers > li').length === 3 && document.querySelector('.lead-lending .offers').getAttribute('aria-busy') === 'false'`)

	type block struct {
		ID    string   `json:"id"`
		Name  string   `json:"name"`
		Terms []string `json:"terms"`
		Ready bool     `json:"ready"`
	}
	got := eval[[]block](t, ctx, `[...document.querySelectorAll('.lead-lending .offers [data-application-id]')].map((o) => ({
		id: o.dataset.applicationId, name: o.querySelector('h4').textContent,
		terms: [...o.querySelectorAll('dt')].map((dt) => dt.textContent + ': ' + dt.nextElementSibling.textContent),
		ready: o.querySelector('.badge.ready-to-fund') !== null }))`)
	want := []block{
		// 30000 x 1.25 = 37500.00 over 6 months: 6250.00 each.
		{summit, "Summit Lending", []string{"Approved: $30,000.00", "Rate: 1.25 factor", "Term: 6 months", "Frequency: monthly",
			"Payback: $37,500.00", "Payments: 6", "Payment: $6,250.00", "Cost of capital: $7,500.00"}, true},
		// 45000 x 1.35 = 60750.00 over 9 x 21 = 189 business days: 321.428…
		{bluefin, "Bluefin Funding", []string{"Approved: $45,000.00", "Rate: 1.35 factor", "Term: 9 months", "Frequency: daily",
			"Payback: $60,750.00", "Payments: 189", "Payment: $321.43", "Cost of capital: $15,750.00"}, false},
		// 40000 + 40000 x 0.289 x 18 / 12 = 57340.00 over 78 weeks: 735.128…
		{northwind, "Northwind Capital", []string{"Approved: $40,000.00", "Rate: 28.9 % APR", "Term: 18 months", "Frequency: weekly",
			"Payback: $57,340.00", "Payments: 78", "Payment: $735.13", "Cost of capital: $17,340.00"}, true},
	}
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("the offers read\n%s\nwant\n%s", gotJSON, wantJSON)
	}
	run(t, ctx, evalVoid(`document.querySelector('.lead-lending .offers-section').scrollIntoView()`))
	checkA11y(t, ctx)
	shot(t, ctx, "offers")
	phone(t, ctx)
	run(t, ctx, evalVoid(`document.querySelector('.lead-lending .offers-section').scrollIntoView()`))
	shot(t, ctx, "offers-phone")
	checkA11y(t, ctx)
	run(t, ctx, chromedp.EmulateReset())

	// The Applications screen badges the two ready ones.
	run(t, ctx, evalVoid(`location.hash = '#/applications'`))
	waitFor(t, ctx, `document.querySelectorAll('main .pager tbody tr').length === 4`)
	ready := eval[[]string](t, ctx, `[...document.querySelectorAll('main .pager tbody tr')].filter((r) => r.querySelector('.badge.ready-to-fund')).map((r) => r.cells[1].textContent).sort()`)
	if len(ready) != 2 || ready[0] != "Northwind Capital" || ready[1] != "Summit Lending" {
		t.Errorf("the Applications screen badges %v, want Northwind Capital and Summit Lending", ready)
	}

	// The board badges the lead's card, and no other.
	lendingGQL(t, env, `mutation { createLead(input: {businessName: "Quiet Cafe"}) { id } }`, nil)
	run(t, ctx, evalVoid(`location.hash = '#/board'`))
	waitFor(t, ctx, `document.querySelector('.card[data-id="`+lead+`"] .badge.ready-to-fund') !== null && [...document.querySelectorAll('.card')].some((c) => c.textContent.includes('Quiet Cafe'))`)
	if n := eval[int](t, ctx, `document.querySelectorAll('.card .badge.ready-to-fund').length`); n != 1 {
		t.Errorf("%d cards carry the badge, want 1", n)
	}
	checkA11y(t, ctx)
}
