package console_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lendingpipe/svc/rest/resttest"
)

// approvedLead is a lead submitted to one lender that approved it at
// 30,000.00; it returns the lead's and the application's ids.
func approvedLead(t *testing.T, env *resttest.Env, name string) (lead, app string) {
	t.Helper()
	lead = newLead(t, env, map[string]any{"businessName": name, "requestedAmount": "50000.00", "industry": "Food"})
	lender := createLender(t, env, "Northwind Capital", "0.05")
	app = submitApp(t, env, lead, lender)
	lendingGQL(t, env, `mutation($id: ID!, $in: DecideApplicationInput!) { decideApplication(id: $id, input: $in) { id } }`,
		map[string]any{"id": app, "in": map[string]any{"decision": "APPROVED", "approvedAmount": "30000.00", "interestRate": "1.35", "rateType": "factor", "termMonths": 12}})
	return lead, app
}

func submitApp(t *testing.T, env *resttest.Env, lead, lender string) string {
	t.Helper()
	d := lendingGQL(t, env, `mutation($in: SubmitApplicationInput!) { submitApplication(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"leadId": lead, "lenderId": lender}})
	return d["submitApplication"].(map[string]any)["id"].(string)
}

// openLead opens the lead's page and waits until its lending rows show.
func openLead(t *testing.T, ctx context.Context, lead, title string) {
	t.Helper()
	run(t, ctx, evalVoid(`location.hash = '#/leads/`+lead+`'`))
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === '`+title+`' && document.querySelector('.lead-lending .pager tbody tr') !== null`)
}

// formError checks that the form holding field shows msg beside it, in a
// live region, with focus on the field, which points at the message.
const formError = `((sel, msg) => {
	const input = document.querySelector(sel);
	const form = input?.closest('form');
	const err = form?.querySelector('.form-error');
	return !!err && err.textContent.includes(msg) && err.closest('[aria-live]') !== null &&
		document.activeElement === input && input.getAttribute('aria-invalid') === 'true' &&
		(input.getAttribute('aria-describedby') || '').split(' ').includes(err.id) &&
		!document.querySelector('#errors .error');
})`

// A refused funding is written beside its amount, in words, with focus
// there; the next success of the form clears it, and the global message
// region with it.
func TestLeadRefusedFundingBesideField(t *testing.T) {
	env := serve(t)
	lead, app := approvedLead(t, env, "Harbor Street Bakery")
	ctx := newBrowser(t, "status of 422", "status of 400")
	signIn(t, ctx, env, env.Key)
	openLead(t, ctx, lead, "Harbor Street Bakery")

	fund := `.lead-lending [data-application="` + app + `"] details.fund`
	amount := fund + ` input[name="fundedAmount"]`
	run(t, ctx,
		chromedp.Click(chromedp.CSS(fund+` > summary`)),
		chromedp.SendKeys(chromedp.CSS(amount), "45000.00"),
		chromedp.Click(chromedp.CSS(fund+` button[type="submit"]`)),
	)
	waitFor(t, ctx, `[...document.querySelectorAll('.error, .form-error')].some((e) => e.textContent.includes('must not exceed'))`)
	run(t, ctx, evalVoid(`document.querySelector('`+fund+`').scrollIntoView({ block: 'center' })`))
	shot(t, ctx, "refused-funding")
	waitFor(t, ctx, formError+`('`+amount+`', 'Funded amount must not exceed the approved amount 30000.00')`)

	// The lead's edit form: a refused email beside the email field, then
	// a good one clears it, and a stale global message too.
	email := `form.lead-edit input[name="email"]`
	run(t, ctx,
		chromedp.Click(chromedp.CSS(`.lead-attrs > button`)),
		chromedp.SendKeys(chromedp.CSS(email), "not an email"),
		chromedp.Click(chromedp.CSS(`form.lead-edit button[type="submit"]`)),
	)
	waitFor(t, ctx, formError+`('`+email+`', 'email')`)
	run(t, ctx,
		evalVoid(`document.querySelector('#errors').append(Object.assign(document.createElement('p'), { className: 'error', textContent: 'stale' }))`),
		evalVoid(`document.querySelector('`+email+`').value = ''`),
		chromedp.SendKeys(chromedp.CSS(email), "owner@harbor.example"),
		chromedp.Click(chromedp.CSS(`form.lead-edit button[type="submit"]`)),
	)
	waitFor(t, ctx, `document.querySelector('.attrs dd[data-attr="Email"]')?.textContent === 'owner@harbor.example'`)
	waitFor(t, ctx, `!document.querySelector('form.lead-edit .form-error') && !document.querySelector('#errors .error') &&
		document.querySelector('`+email+`').getAttribute('aria-invalid') !== 'true'`)

	// An error of a form without a field of its own shows at its submit.
	run(t, ctx, chromedp.Click(chromedp.CSS(`form.lead-assign button[type="submit"]`)))
	waitFor(t, ctx, `(() => { const f = document.querySelector('form.lead-assign'); const e = f.querySelector('.form-error');
		return !!e && e.textContent.includes('Choose an advisor') && f.contains(document.activeElement) && !document.querySelector('#errors .error'); })()`)
}

// Approving with only an amount names the missing field, beside it.
func TestLeadApprovalNamesMissingField(t *testing.T) {
	env := serve(t)
	lead := newLead(t, env, map[string]any{"businessName": "Copper Kettle Cafe", "requestedAmount": "40000.00"})
	app := submitApp(t, env, lead, createLender(t, env, "Bluefin Funding", "0.04"))
	ctx := newBrowser(t, "status of 422", "status of 400")
	signIn(t, ctx, env, env.Key)
	openLead(t, ctx, lead, "Copper Kettle Cafe")
	decide := `.lead-lending [data-application="` + app + `"] details.decide`
	run(t, ctx,
		chromedp.Click(chromedp.CSS(decide+` > summary`)),
		chromedp.SendKeys(chromedp.CSS(decide+` input[name="approvedAmount"]`), "30000.00"),
		chromedp.Click(chromedp.CSS(decide+` button[type="submit"]`)),
	)
	waitFor(t, ctx, formError+`('`+decide+` input[name="interestRate"]', ' Rate is required to approve an application')`)
}

// The lead page has one Lending heading, its advisor picker shows the
// lead's advisor, and it moves the lead to another stage.
func TestLeadPageStageAndAdvisor(t *testing.T) {
	env := serve(t)
	adv := env.NewUser(env.Org.ID, "Maya", "Chen", "advisor", "")
	lead := newLead(t, env, map[string]any{"businessName": "Juniper Print Shop", "assignToAdvisorId": adv.ID.String()})
	stages := env.Stages(env.Org.ID)
	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	run(t, ctx, evalVoid(`location.hash = '#/leads/`+lead+`'`))
	waitFor(t, ctx, `document.querySelector('.attrs dd[data-attr="Advisor"]')?.textContent === 'Maya Chen' && document.querySelector('.lead-lending h2') !== null`)
	if n := eval[int](t, ctx, `[...document.querySelectorAll('main h2')].filter((e) => e.textContent === 'Lending').length`); n != 1 {
		t.Errorf("the page has %d Lending headings, want 1", n)
	}
	waitFor(t, ctx, `document.querySelector('form.lead-assign select').value === '`+adv.ID.String()+`'`)

	to := stages[2]
	run(t, ctx,
		chromedp.WaitVisible(chromedp.CSS(`form.lead-stage select[name="stageId"]`)),
		chromedp.SetValue(chromedp.CSS(`form.lead-stage select[name="stageId"]`), to.ID.String()),
		chromedp.Click(chromedp.CSS(`form.lead-stage button[type="submit"]`)),
	)
	waitFor(t, ctx, `document.querySelector('.attrs dd[data-attr="Stage"]')?.textContent === '`+to.StageLabel+`'`)
	// The redrawn form keeps the focus, rather than dropping it to the body.
	waitFor(t, ctx, `document.activeElement === document.querySelector('form.lead-stage button[type="submit"]')`)
	if got := leadStage(t, env, lead); got != to.ID.String() {
		t.Errorf("the lead's stage is %s, want %s", got, to.ID)
	}
}

// Writes through REST and GraphQL show on an open lead page and on the
// Applications screen without a reload.
func TestLeadPageFollowsOtherWrites(t *testing.T) {
	env := serve(t)
	lead, app := approvedLead(t, env, "Harbor Street Bakery")
	stages := env.Stages(env.Org.ID)
	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	openLead(t, ctx, lead, "Harbor Street Bakery")

	// A marker a reload would wipe.
	run(t, ctx, evalVoid(`window.leadNoReload = true`))
	untilLive(t, ctx, func(i int) string {
		industry := fmt.Sprintf("Bakery %d", i)
		if r := env.Patch("/v1/leads/"+lead, env.Key, map[string]any{"industry": industry}); r.Status != 200 {
			t.Fatalf("updating the lead: %d %s", r.Status, r.Raw)
		}
		return `document.querySelector('.attrs dd[data-attr="Industry"]')?.textContent === '` + industry + `'`
	})

	to := stages[1]
	if r := env.Post("/v1/leads/"+lead+"/stage", env.Key, map[string]any{"stageId": to.ID.String()}); r.Status != 200 {
		t.Fatalf("moving the lead: %d %s", r.Status, r.Raw)
	}
	waitFor(t, ctx, `document.querySelector('.attrs dd[data-attr="Stage"]')?.textContent === '`+to.StageLabel+`' &&
		document.querySelector('.timeline > li .summary')?.textContent.includes('to `+to.StageLabel+`')`)

	lendingGQL(t, env, `mutation($in: FundDealInput!) { fundDeal(input: $in) { id } }`, map[string]any{"in": map[string]any{"applicationId": app}})
	want := leadStageLabel(t, env, lead)
	waitFor(t, ctx, `[...document.querySelectorAll('.timeline > li .summary')].some((s) => s.textContent === 'Funded 30000.00 by Northwind Capital') &&
		document.querySelector('.attrs dd[data-attr="Stage"]')?.textContent === '`+want+`' &&
		document.querySelector('.lead-lending .pager tbody')?.textContent.includes('Funded: $30,000.00')`)
	if !eval[bool](t, ctx, `window.leadNoReload === true`) {
		t.Error("the page reloaded")
	}

	// The Applications screen follows submissions and decisions made
	// elsewhere.
	run(t, ctx, evalVoid(`location.hash = '#/applications'`))
	waitFor(t, ctx, `document.querySelectorAll('main .pager tbody tr').length === 1`)
	var other string
	untilLive(t, ctx, func(i int) string {
		other = submitApp(t, env, lead, createLender(t, env, fmt.Sprintf("Bluefin Funding %d", i), "0.04"))
		return fmt.Sprintf(`document.querySelectorAll('main .pager tbody tr').length >= %d`, i+2)
	})
	lendingGQL(t, env, `mutation($id: ID!, $in: DecideApplicationInput!) { decideApplication(id: $id, input: $in) { id } }`,
		map[string]any{"id": other, "in": map[string]any{"decision": "DECLINED", "reason": "Too many positions"}})
	waitFor(t, ctx, `document.querySelector('main .pager tbody')?.textContent.includes('Declined: Too many positions')`)
}

// untilLive writes (write(i) returns what shows it on the page) until the
// page shows a write: its subscription starts asynchronously, so the
// first writes may come before it listens.
func untilLive(t *testing.T, ctx context.Context, write func(i int) string) {
	t.Helper()
	for i := 0; i < 40; i++ {
		if opsWait(ctx, write(i), time.Second) {
			return
		}
	}
	t.Fatalf("the page did not follow the writes; it reads:\n%s", eval[string](t, ctx, `document.querySelector('main').innerText`))
}

func leadStageLabel(t *testing.T, env *resttest.Env, id string) string {
	t.Helper()
	stage, _ := env.Get("/v1/leads/"+id, env.Key).Attr("stage").(map[string]any)
	label, _ := stage["stageLabel"].(string)
	if label == "" {
		label, _ = stage["label"].(string)
	}
	return label
}

// topActivity is the summary of the newest entry the lead page's history
// shows.
const topActivity = `document.querySelector('.lead-timeline .timeline > li .summary')?.textContent`

// The lead page shows the lead's stored history, newest first: an entry
// written by the page's own edit and by its own lending action appears at
// the top without a reload, with the attributes it changed; "Show more"
// reads the older entries by cursor and moves the focus to the first of
// them.
func TestLeadPageActivity(t *testing.T) {
	env := serve(t)
	lead := newLead(t, env, map[string]any{"businessName": "Harbor Street Bakery", "requestedAmount": "50000.00", "industry": "Food"})
	app := submitApp(t, env, lead, createLender(t, env, "Northwind Capital", "0.05"))
	// More history than a page holds.
	for i := range 20 {
		if r := env.Patch("/v1/leads/"+lead, env.Key, map[string]any{"tags": []string{fmt.Sprintf("visit-%d", i)}}); r.Status != 200 {
			t.Fatalf("tagging the lead: %d %s", r.Status, r.Raw)
		}
	}
	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	openLead(t, ctx, lead, "Harbor Street Bakery")
	waitFor(t, ctx, `document.querySelectorAll('.lead-timeline .timeline > li').length === 20 && `+topActivity+` === 'Changed tags'`)
	if got := eval[string](t, ctx, `document.querySelector('.lead-timeline .timeline-status').textContent`); got != "20 of 23 entries" {
		t.Errorf("the history's status reads %q", got)
	}
	if actor := eval[string](t, ctx, `document.querySelector('.lead-timeline .timeline > li .actor').textContent`); actor != "test" {
		t.Errorf("the newest entry's actor reads %q, want the key's name", actor)
	}
	// Show more: the three oldest (the submission moved the lead), the
	// focus on the first of them.
	run(t, ctx, chromedp.Click(chromedp.CSS(`.lead-timeline .timeline-more`)))
	waitFor(t, ctx, `document.querySelectorAll('.lead-timeline .timeline > li').length === 23 && document.querySelector('.lead-timeline .timeline-more').hidden &&
		document.activeElement === document.querySelectorAll('.lead-timeline .timeline > li')[20] &&
		document.querySelectorAll('.lead-timeline .timeline > li')[22].dataset.kind === 'lead.created'`)
	if got := eval[string](t, ctx, `document.querySelectorAll('.lead-timeline .timeline > li .summary')[21].textContent`); got != "Submitted to Northwind Capital for 50000.00" {
		t.Errorf("the second oldest entry reads %q", got)
	}

	// The page's own edit.
	run(t, ctx, evalVoid(`window.activityNoReload = true`),
		chromedp.Click(chromedp.CSS(`.lead-attrs > button`)),
		chromedp.SetValue(chromedp.CSS(`form.lead-edit input[name="industry"]`), "Bakery"),
		chromedp.Click(chromedp.CSS(`form.lead-edit button[type="submit"]`)),
	)
	waitFor(t, ctx, topActivity+` === 'Changed industry' &&
		document.querySelector('.lead-timeline .timeline > li .changes')?.textContent === 'industry: Food → Bakery'`)
	// Read again, the history shows as many entries as it did, the newest
	// first, and offers the one that no longer fits.
	waitFor(t, ctx, `document.querySelectorAll('.lead-timeline .timeline > li').length === 23 && !document.querySelector('.lead-timeline .timeline-more').hidden`)

	// The page's own lending action.
	north := `.lead-lending [data-application="` + app + `"]`
	run(t, ctx,
		chromedp.Click(chromedp.CSS(north+` details.decide > summary`)),
		chromedp.SendKeys(chromedp.CSS(north+` input[name="approvedAmount"]`), "45000.00"),
		chromedp.SendKeys(chromedp.CSS(north+` input[name="interestRate"]`), "1.35"),
		chromedp.SendKeys(chromedp.CSS(north+` input[name="termMonths"]`), "12"),
		chromedp.Click(chromedp.CSS(north+` details.decide button[type="submit"]`)),
	)
	waitFor(t, ctx, `[...document.querySelectorAll('.lead-timeline .timeline > li .summary')].slice(0, 2).some((s) => s.textContent === 'Northwind Capital approved 45000.00')`)
	if !eval[bool](t, ctx, `window.activityNoReload === true`) {
		t.Error("the page reloaded")
	}
	checkA11y(t, ctx)
	run(t, ctx, evalVoid(`document.querySelector('.lead-timeline').scrollIntoView()`))
	shot(t, ctx, "lead-activity")
}
