package console_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/lendingpipe/svc/rest/resttest"
)

// lendingGQL runs a GraphQL call with the environment's key and returns
// its data, failing the test on any error.
func lendingGQL(t *testing.T, env *resttest.Env, query string, vars map[string]any) map[string]any {
	t.Helper()
	resp := env.Post("/graphql", env.Key, map[string]any{"query": query, "variables": vars})
	if errs, ok := resp.Body["errors"]; ok || resp.Status != 200 {
		t.Fatalf("graphql %s: %d %v", query, resp.Status, errs)
	}
	data, _ := resp.Body["data"].(map[string]any)
	return data
}

func createLender(t *testing.T, env *resttest.Env, name, rate string) string {
	t.Helper()
	d := lendingGQL(t, env, `mutation($in: CreateLenderInput!) { createLender(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"name": name, "commissionRate": rate, "products": []string{"mca", "term_loan"},
			"minAmount": "10000.00", "maxAmount": "250000.00"}})
	return d["createLender"].(map[string]any)["id"].(string)
}

// The lead's lending section, in the browser: the lead goes to two lenders
// in one submission, one approves, a funding over the approved amount is
// refused in the server's words, the right one funds, and a commission
// payment is recorded; GraphQL then holds exactly that.
func TestSubmitApproveFund(t *testing.T) {
	env := serve(t)
	lead := lendingGQL(t, env, `mutation($in: CreateLeadInput!) { createLead(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"businessName": "Harbor Street Bakery", "requestedAmount": "50000.00", "industry": "Food"}})["createLead"].(map[string]any)["id"].(string)
	createLender(t, env, "Northwind Capital", "0.05")
	createLender(t, env, "Bluefin Funding", "0.04")

	// A refused funding may reach the console as a failed load.
	ctx := newBrowser(t, "status of 422", "status of 400", "status of 409")
	signIn(t, ctx, env, env.Key)
	run(t, ctx, evalVoid(`location.hash = '#/applications'`))
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Applications' && document.querySelector('main .pager-body')?.getAttribute('aria-busy') === 'false'`)
	// The section as the lead page mounts it, below the applications list.
	leadJSON, _ := json.Marshal(lead)
	run(t, ctx, evalVoid(`import('/console/app/sections/lending.js').then((m) => {
		const box = document.createElement('div');
		box.id = 'lead-lending';
		document.querySelector('main').append(box);
		m.renderLending(box, { id: `+string(leadJSON)+` }, {});
	})`))
	const sec = `#lead-lending section.lending`
	run(t, ctx,
		chromedp.WaitVisible(chromedp.CSS(sec+` details.submit-to-lenders > summary`)),
		chromedp.Click(chromedp.CSS(sec+` details.submit-to-lenders > summary`)),
	)
	waitFor(t, ctx, `document.querySelectorAll('`+sec+` .submit-lenders input[name="lender"]').length === 2`)
	run(t, ctx,
		chromedp.Click(chromedp.CSS(sec+` .submit-lenders li:nth-child(1) input[name="lender"]`)),
		chromedp.Click(chromedp.CSS(sec+` .submit-lenders li:nth-child(2) input[name="lender"]`)),
		chromedp.Click(chromedp.CSS(sec+` .submit-lenders button[type="submit"]`)),
	)
	waitFor(t, ctx, `document.querySelectorAll('`+sec+` .submit-results li.ok').length === 2`)
	waitFor(t, ctx, `document.querySelectorAll('`+sec+` .pager')[1]?.querySelectorAll('tbody tr').length === 2`)

	// Northwind approves with an offer.
	ids := lendingGQL(t, env, `query($lead: ID!) { applicationsPage(leadId: $lead) { nodes { id lenderName } } }`, map[string]any{"lead": lead})
	appIDs := map[string]string{}
	for _, n := range ids["applicationsPage"].(map[string]any)["nodes"].([]any) {
		a := n.(map[string]any)
		appIDs[a["lenderName"].(string)] = a["id"].(string)
	}
	north := sec + ` [data-application="` + appIDs["Northwind Capital"] + `"]`
	waitFor(t, ctx, `document.querySelector('`+north+` details.decide > summary') !== null`)
	run(t, ctx,
		chromedp.Click(chromedp.CSS(north+` details.decide > summary`)),
		chromedp.SendKeys(chromedp.CSS(north+` input[name="approvedAmount"]`), "45000.00"),
		chromedp.SendKeys(chromedp.CSS(north+` input[name="interestRate"]`), "1.35"),
		chromedp.SendKeys(chromedp.CSS(north+` input[name="termMonths"]`), "12"),
		chromedp.Click(chromedp.CSS(north+` details.decide button[type="submit"]`)),
	)
	waitFor(t, ctx, `[...document.querySelectorAll('`+sec+` tr')].some((r) => r.textContent.includes('Northwind Capital') && r.textContent.includes('Approved: $45,000.00 at 1.35 factor, 12 months'))`)

	// Funding more than approved is refused in the server's words, in the
	// form.
	run(t, ctx,
		chromedp.Click(chromedp.CSS(north+` details.fund > summary`)),
		chromedp.SendKeys(chromedp.CSS(north+` input[name="fundedAmount"]`), "99999.00"),
		chromedp.Click(chromedp.CSS(north+` details.fund button[type="submit"]`)),
	)
	waitFor(t, ctx, `document.querySelector('`+north+` details.fund .form-error')?.textContent.includes('VALIDATION_ERROR')`)
	refusal := eval[string](t, ctx, `document.querySelector('`+north+` details.fund .form-error').textContent`)
	if !strings.Contains(refusal, "Funding Northwind Capital's offer failed.") || !strings.Contains(refusal, "Request id: ") {
		t.Errorf("the refused funding reads %q", refusal)
	}
	run(t, ctx,
		evalVoid(`document.querySelector('`+north+` input[name="fundedAmount"]').value = ''`),
		chromedp.SendKeys(chromedp.CSS(north+` input[name="fundedAmount"]`), "45000.00"),
		chromedp.Click(chromedp.CSS(north+` details.fund button[type="submit"]`)),
	)
	waitFor(t, ctx, `[...document.querySelectorAll('`+sec+` tr')].some((r) => r.textContent.includes('Northwind Capital') && r.textContent.includes('Funded: $45,000.00'))`)

	// The deal's commission (5 % of 45,000.00) gets a first payment.
	deal := sec + ` [data-deal]`
	waitFor(t, ctx, `document.querySelector('`+deal+`') !== null`)
	if owed := eval[string](t, ctx, `[...document.querySelectorAll('`+sec+` .pager')].at(-1).querySelector('tbody tr td:nth-child(3)').textContent`); owed != "$2,250.00" {
		t.Errorf("the commission owed reads %q, want $2,250.00", owed)
	}
	run(t, ctx,
		chromedp.Click(chromedp.CSS(deal+` details.payment > summary`)),
		chromedp.SendKeys(chromedp.CSS(deal+` input[name="amount"]`), "1000.00"),
		chromedp.SendKeys(chromedp.CSS(deal+` input[name="reference"]`), "RMT-2211"),
		chromedp.Click(chromedp.CSS(deal+` details.payment button[type="submit"]`)),
	)
	waitFor(t, ctx, `[...document.querySelectorAll('`+sec+` .pager')].at(-1).querySelector('tbody tr')?.textContent.includes('Payment $1,000.00')`)

	d := lendingGQL(t, env, `query($lead: ID!) {
		applicationsPage(leadId: $lead) { total nodes { lenderName status approvedAmount withdrawnReason fundedDeal { fundedAmount commission { paidAmount status } } } }
		fundedDealsPage(leadId: $lead) { total } }`, map[string]any{"lead": lead})
	page := d["applicationsPage"].(map[string]any)
	got := map[string]string{}
	for _, n := range page["nodes"].([]any) {
		a := n.(map[string]any)
		desc := a["status"].(string)
		if fd, ok := a["fundedDeal"].(map[string]any); ok {
			c := fd["commission"].(map[string]any)
			desc += " " + a["approvedAmount"].(string) + " " + fd["fundedAmount"].(string) + " " + c["paidAmount"].(string) + " " + c["status"].(string)
		}
		if r, ok := a["withdrawnReason"].(string); ok {
			desc += " " + r
		}
		got[a["lenderName"].(string)] = desc
	}
	want := map[string]string{
		"Northwind Capital": "funded 45000.00 45000.00 1000.00 partially_paid",
		"Bluefin Funding":   "withdrawn funded_elsewhere",
	}
	if page["total"].(float64) != 2 || got["Northwind Capital"] != want["Northwind Capital"] || got["Bluefin Funding"] != want["Bluefin Funding"] {
		t.Errorf("the lead's applications are %v (total %v), want %v", got, page["total"], want)
	}
	if n := d["fundedDealsPage"].(map[string]any)["total"].(float64); n != 1 {
		t.Errorf("the lead has %v funded deals, want 1", n)
	}

	// The Applications screen lists both, and its status filter narrows them.
	run(t, ctx, evalVoid(`location.hash = '#/lenders'`))
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Lenders'`)
	run(t, ctx, evalVoid(`location.hash = '#/applications'`))
	waitFor(t, ctx, `document.querySelectorAll('main .pager tbody tr').length === 2 && document.querySelectorAll('main select[name="lender"] option').length === 3`)
	shot(t, ctx, "applications")
	run(t, ctx, evalVoid(`(() => { const s = document.querySelector('main select[name="status"]'); s.value = 'funded'; s.dispatchEvent(new Event('change')); })()`))
	waitFor(t, ctx, `document.querySelectorAll('main .pager tbody tr').length === 1 && document.querySelector('main .pager tbody tr').textContent.includes('Harbor Street Bakery')`)
}

// A lender added in the form shows in the paged list; editing it to
// inactive moves it out of the active filter and into the inactive one.
func TestLendersScreen(t *testing.T) {
	env := serve(t)
	createLender(t, env, "Bluefin Funding", "0.04")
	// The refused duplicate may reach the console as a failed load.
	ctx := newBrowser(t, "status of 409", "status of 422")
	signIn(t, ctx, env, env.Key)
	run(t, ctx, evalVoid(`location.hash = '#/lenders'`))
	waitFor(t, ctx, `document.querySelectorAll('main .pager tbody tr').length === 1`)

	form := `main form.lender-form`
	run(t, ctx,
		chromedp.SendKeys(chromedp.CSS(form+` input[name="name"]`), "Northwind Capital"),
		chromedp.Click(chromedp.CSS(form+` input[name="products"][value="mca"]`)),
		chromedp.Click(chromedp.CSS(form+` input[name="products"][value="term_loan"]`)),
		chromedp.SendKeys(chromedp.CSS(form+` input[name="minAmount"]`), "10000.00"),
		chromedp.SendKeys(chromedp.CSS(form+` input[name="maxAmount"]`), "500000.00"),
		chromedp.SendKeys(chromedp.CSS(form+` input[name="minMonthlyRevenue"]`), "15000.00"),
		chromedp.SendKeys(chromedp.CSS(form+` input[name="commissionRate"]`), "0.05"),
		chromedp.SendKeys(chromedp.CSS(form+` input[name="contactEmail"]`), "deals@northwind.example"),
		chromedp.Click(chromedp.CSS(form+` button[type="submit"]`)),
	)
	waitFor(t, ctx, `document.querySelectorAll('main .pager tbody tr').length === 2`)
	first := eval[string](t, ctx, `document.querySelector('main .pager tbody tr').textContent`)
	for _, want := range []string{"Northwind Capital", "mca, term loan", "$10,000.00 to $500,000.00", "$15,000.00", "0.05", "deals@northwind.example"} {
		if !strings.Contains(first, want) {
			t.Errorf("the new lender's row reads %q, want %q in it", first, want)
		}
	}
	// Saving scrolled to the form; the picture shows the list.
	run(t, ctx, evalVoid(`window.scrollTo(0, 0)`))
	shot(t, ctx, "lenders")

	// A second lender of the same name is refused in words.
	run(t, ctx,
		chromedp.SendKeys(chromedp.CSS(form+` input[name="name"]`), "northwind capital"),
		chromedp.Click(chromedp.CSS(form+` button[type="submit"]`)),
	)
	waitFor(t, ctx, `document.querySelector('#errors .error')?.textContent.includes('CONFLICT')`)

	// Edit: inactive, and the maximum cleared.
	run(t, ctx, chromedp.Click(chromedp.CSS(`main .pager tbody tr button[aria-label="Edit Northwind Capital"]`)))
	waitFor(t, ctx, `document.querySelector('`+form+` h2')?.textContent === 'Edit Northwind Capital'`)
	run(t, ctx,
		chromedp.Click(chromedp.CSS(form+` input[name="isActive"]`)),
		evalVoid(`document.querySelector('`+form+` input[name="maxAmount"]').value = ''`),
		chromedp.Click(chromedp.CSS(form+` button[type="submit"]`)),
	)
	waitFor(t, ctx, `document.querySelectorAll('main .pager tbody tr').length === 1 && !document.querySelector('main .pager tbody').textContent.includes('Northwind')`)
	run(t, ctx, evalVoid(`(() => { const s = document.querySelector('main select[name="active"]'); s.value = 'false'; s.dispatchEvent(new Event('change')); })()`))
	waitFor(t, ctx, `document.querySelector('main .pager tbody tr')?.textContent.includes('Northwind Capital')`)

	d := lendingGQL(t, env, `query { lendersPage(isActive: false) { total nodes { name isActive maxAmount minAmount commissionRate } } }`, nil)
	p := d["lendersPage"].(map[string]any)
	if p["total"].(float64) != 1 {
		t.Fatalf("inactive lenders: %v", p)
	}
	l := p["nodes"].([]any)[0].(map[string]any)
	if l["name"] != "Northwind Capital" || l["maxAmount"] != nil || l["minAmount"] != "10000.00" || l["commissionRate"] != "0.05" {
		t.Errorf("the edited lender is %v", l)
	}
}
