package console_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/lendingpipe/svc/rest/resttest"
)

// An approved offer's checklist on the lead page: one stipulation is met
// with a document uploaded to the lead, the other waived with a reason;
// the application is then ready and funds without waiving anything.
func TestStipulationsThenFund(t *testing.T) {
	env := serve(t)
	lead := lendingGQL(t, env, `mutation($in: CreateLeadInput!) { createLead(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"businessName": "Checklist Coffee", "requestedAmount": "40000.00"}})["createLead"].(map[string]any)["id"].(string)
	lender := createLender(t, env, "Northwind Capital", "0.05")
	app := lendingGQL(t, env, `mutation($l: ID!, $r: ID!) { submitApplication(input: {leadId: $l, lenderId: $r}) { id } }`,
		map[string]any{"l": lead, "r": lender})["submitApplication"].(map[string]any)["id"].(string)
	lendingGQL(t, env, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, interestRate: "1.32", rateType: factor,
		termMonths: 8, paymentFrequency: daily, conditions: ["Voided business check", "Landlord verification"]}) { id } }`, map[string]any{"id": app})
	up := env.Upload(env.Key, `mutation($r: ID!, $file: Upload!) { uploadDocument(recordId: $r, file: $file, category: voided_check) { id } }`,
		map[string]any{"r": lead}, resttest.File{Var: "file", Name: "voided-check.pdf", Content: []byte("%PDF-1.4\n% voided check\n")})
	if up.Status != 200 || up.Body["errors"] != nil {
		t.Fatalf("uploading the check: %d %v", up.Status, up.Body)
	}

	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	run(t, ctx, evalVoid(`location.hash = '#/leads/`+lead+`'`))
	row := `section.lending [data-application="` + app + `"]`
	list := `section.lending .stipulations[data-application="` + app + `"]`
	waitFor(t, ctx, `document.querySelectorAll('`+list+` li.stipulation').length === 2`)
	if h := eval[string](t, ctx, `document.querySelector('`+list+` h5').textContent`); h != "Stipulations: 2 of 2 outstanding" {
		t.Errorf("the checklist's heading reads %q", h)
	}
	first := list + ` li.stipulation:nth-child(1)`
	run(t, ctx, chromedp.Click(chromedp.CSS(first+` details.satisfy > summary`)))
	waitFor(t, ctx, `document.querySelectorAll('`+first+` select[name="documentIds"] option').length === 2`)
	run(t, ctx,
		evalVoid(`(() => { const s = document.querySelector('`+first+` select[name="documentIds"]'); s.selectedIndex = 1; })()`),
		chromedp.Click(chromedp.CSS(first+` details.satisfy button[type="submit"]`)))
	waitFor(t, ctx, `document.querySelector('`+list+` li.stipulation:nth-child(1) .badge')?.textContent === 'Received'`)

	second := list + ` li.stipulation:nth-child(2)`
	run(t, ctx,
		chromedp.Click(chromedp.CSS(second+` details.waive > summary`)),
		chromedp.SendKeys(chromedp.CSS(second+` details.waive input[name="reason"]`), "The lease is in the file"),
		chromedp.Click(chromedp.CSS(second+` details.waive button[type="submit"]`)))
	waitFor(t, ctx, `document.querySelector('`+list+` h5')?.textContent === 'Stipulations: all 2 met'`)
	shot(t, ctx, "stipulations")

	// Nothing outstanding: the funding form offers no waiver, and funds.
	run(t, ctx, chromedp.Click(chromedp.CSS(row+` details.fund > summary`)))
	if n := eval[int](t, ctx, `document.querySelectorAll('`+row+` details.fund input[name="waiveOutstanding"]').length`); n != 0 {
		t.Errorf("the funding form offers a waiver with nothing outstanding")
	}
	run(t, ctx, chromedp.Click(chromedp.CSS(row+` details.fund button[type="submit"]`)))
	waitFor(t, ctx, `[...document.querySelectorAll('section.lending tr')].some((r) => r.textContent.includes('Funded: $40,000.00'))`)

	d := lendingGQL(t, env, `query($id: ID!) { node(id: $id) { ... on Application { status readyToFund
		stipulations { text status documentIds waiveReason } } } }`, map[string]any{"id": app})["node"].(map[string]any)
	stips := d["stipulations"].([]any)
	check := stips[0].(map[string]any)
	lease := stips[1].(map[string]any)
	if d["status"] != "funded" || check["status"] != "received" || len(check["documentIds"].([]any)) != 1 ||
		lease["status"] != "waived" || lease["waiveReason"] != "The lease is in the file" {
		t.Errorf("after the checklist and the funding: %v", d)
	}
}
