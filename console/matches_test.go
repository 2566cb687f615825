package console_test

import (
	"encoding/json"
	"testing"

	"github.com/chromedp/chromedp"
)

// The lead page's "Where to send" ranks the panel by box and record: the
// lender that approved and funded an earlier deal first, the one that
// declined one next, the one with no record after them, and the one
// whose box the amount misses last, with the miss in words. Ticking the
// top two and "Submit to selected" opens two applications; both lenders
// then show the lead's open application as a miss.
func TestWhereToSend(t *testing.T) {
	env := serve(t)
	newLead := func(name, amount string) string {
		return lendingGQL(t, env, `mutation($in: CreateLeadInput!) { createLead(input: $in) { id } }`,
			map[string]any{"in": map[string]any{"businessName": name, "requestedAmount": amount, "industry": "Bakery"}})["createLead"].(map[string]any)["id"].(string)
	}
	lender := func(name string, in map[string]any) string {
		in["name"] = name
		return lendingGQL(t, env, `mutation($in: CreateLenderInput!) { createLender(input: $in) { id } }`,
			map[string]any{"in": in})["createLender"].(map[string]any)["id"].(string)
	}
	alpha := lender("Alpha Funding", map[string]any{})
	beta := lender("Beta Capital", map[string]any{})
	gamma := lender("Gamma Bank", map[string]any{})
	delta := lender("Delta Lending", map[string]any{"maxAmount": "20000.00"})
	funded := submitApp(t, env, newLead("Rye and Co", "30000.00"), alpha)
	lendingGQL(t, env, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, interestRate: "1.3", rateType: factor, termMonths: 6}) { id } }`,
		map[string]any{"id": funded})
	lendingGQL(t, env, `mutation($id: ID!) { fundDeal(input: {applicationId: $id}) { id } }`, map[string]any{"id": funded})
	declined := submitApp(t, env, newLead("Crumb Ltd", "30000.00"), beta)
	lendingGQL(t, env, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: DECLINED, reason: "Thin file"}) { id } }`,
		map[string]any{"id": declined})
	lead := newLead("Sourdough Corner", "40000.00")

	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	run(t, ctx, evalVoid(`location.hash = '#/leads/`+lead+`'`))
	ready := `document.querySelectorAll('.lead-lending .matches > li.match').length === 4 && document.querySelector('.lead-lending .matches').getAttribute('aria-busy') === 'false'`
	waitFor(t, ctx, ready)

	type row struct {
		ID     string   `json:"id"`
		Name   string   `json:"name"`
		Score  string   `json:"score"`
		Fits   bool     `json:"fits"`
		Misses []string `json:"misses"`
	}
	read := func() []row {
		return eval[[]row](t, ctx, `[...document.querySelectorAll('.lead-lending .matches > li.match')].map((m) => ({
			id: m.dataset.lenderId, name: m.querySelector('.match-name').textContent, score: m.querySelector('.score').textContent,
			fits: m.classList.contains('eligible'), misses: [...m.querySelectorAll('.misses li')].map((li) => li.textContent) }))`)
	}
	want := []row{
		{alpha, "Alpha Funding", "Score 1.0000", true, []string{}},
		{beta, "Beta Capital", "Score 0.2000", true, []string{}},
		{gamma, "Gamma Bank", "No score", true, []string{}},
		{delta, "Delta Lending", "No score", false, []string{"amount: requestedAmount 40000.00 is above the lender's maxAmount 20000.00"}},
	}
	gotJSON, _ := json.Marshal(read())
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("Where to send reads\n%s\nwant\n%s", gotJSON, wantJSON)
	}
	parts := eval[[]string](t, ctx, `[...document.querySelectorAll('.lead-lending .matches > li.match:first-child .score-parts dt')].map((dt) => dt.textContent + ': ' + dt.nextElementSibling.textContent)`)
	if len(parts) != 3 || parts[0] != "Approval rate: 1.0000 × 0.5" || parts[1] != "Funded share: 1.0000 × 0.3" {
		t.Errorf("the first lender's score parts read %q", parts)
	}
	run(t, ctx, evalVoid(`document.querySelector('.lead-lending .where-to-send').scrollIntoView()`))
	checkA11y(t, ctx)
	shot(t, ctx, "where-to-send")

	// Submit to the top two.
	run(t, ctx, evalVoid(`for (const box of [...document.querySelectorAll('.lead-lending .matches input[name=match]')].slice(0, 2)) box.click();
		document.querySelector('.lead-lending .where-to-send-form button[type=submit]').click()`))
	waitFor(t, ctx, `document.querySelectorAll('.lead-lending .where-to-send .submit-results .ok').length === 2`)
	waitFor(t, ctx, ready+` && [...document.querySelectorAll('.lead-lending .matches > li.match')].filter((m) => m.classList.contains('ineligible')).length === 3`)
	apps := lendingGQL(t, env, `query($id: ID!) { applicationsPage(leadId: $id, limit: 10) { total nodes { lenderId status } } }`,
		map[string]any{"id": lead})["applicationsPage"].(map[string]any)
	nodes := apps["nodes"].([]any)
	lenders := map[string]bool{}
	for _, n := range nodes {
		lenders[n.(map[string]any)["lenderId"].(string)] = true
	}
	if apps["total"].(float64) != 2 || !lenders[alpha] || !lenders[beta] {
		t.Fatalf("the lead's applications are %v, want one with each of the top two", apps)
	}
	if got := read(); got[len(got)-1].Name == "Delta Lending" && len(got[0].Misses) != 0 {
		t.Errorf("after submitting, the first lender reads %+v, want the two submitted ones to miss openApplication", got[0])
	}
	checkA11y(t, ctx)
	run(t, ctx, chromedp.EmulateReset())
}
