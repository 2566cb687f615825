package console_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/lendingpipe/svc/rest/resttest"
)

// signInPerson opens the console, signs in as a person (who lands on their
// day) and goes to the board.
func signInPerson(t *testing.T, ctx context.Context, env *resttest.Env, email string) {
	t.Helper()
	run(t, ctx, chromedp.Navigate(env.Server.URL+"/console"))
	passwordSignIn(t, ctx, email, personPassword)
	waitFor(t, ctx, `document.getElementById('who').textContent !== '' && document.querySelector('main h1') !== null`)
	run(t, ctx, evalVoid(`location.hash = '#/board'`))
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Pipeline board'`)
	waitBoard(t, ctx)
}

// hashQuery is the query of the console's address.
func hashQuery(t *testing.T, ctx context.Context) url.Values {
	t.Helper()
	hash := eval[string](t, ctx, `location.hash`)
	_, query, _ := strings.Cut(hash, "?")
	v, err := url.ParseQuery(query)
	if err != nil {
		t.Fatalf("the address's query %q: %v", hash, err)
	}
	return v
}

// The board's filters live in the address: set one, go elsewhere, press
// Back, and the board shows them again; Back once more shows the board
// before the filter; a link with filters opens the board filtered.
func TestBoardFiltersInTheAddress(t *testing.T) {
	env := serve(t)
	newLead(t, env, map[string]any{"businessName": "Urgent Umbrellas", "priority": "high"})
	newLead(t, env, map[string]any{"businessName": "Calm Candles", "priority": "low"})
	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	waitBoard(t, ctx)
	cards := `[...document.querySelectorAll('.card .card-title')].map(a => a.textContent).sort().join(',')`
	waitFor(t, ctx, cards+` === 'Calm Candles,Urgent Umbrellas'`)

	run(t, ctx, chromedp.SetValue(`.board-filters select[name="priority"]`, "high"), evalVoid(`document.querySelector('.board-filters select[name="priority"]').dispatchEvent(new Event('change'))`))
	waitFor(t, ctx, `location.hash === '#/board?priority=high'`)
	waitBoard(t, ctx)
	waitFor(t, ctx, cards+` === 'Urgent Umbrellas'`)
	// The search joins it in the address.
	run(t, ctx, chromedp.SendKeys(`.board-filters input[name="search"]`, "urg"))
	waitFor(t, ctx, `location.hash === '#/board?priority=high&q=urg'`)

	openScreen(t, ctx, "/lenders", "Lenders")
	run(t, ctx, evalVoid(`history.back()`))
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Pipeline board' && document.querySelector('.board-filters select[name="priority"]')?.value === 'high'`)
	if q := eval[string](t, ctx, `document.querySelector('.board-filters input[name="search"]').value`); q != "urg" {
		t.Errorf("after Back the search reads %q, want urg", q)
	}
	waitBoard(t, ctx)
	waitFor(t, ctx, cards+` === 'Urgent Umbrellas'`)

	// Back again: the filters before the search, then none.
	run(t, ctx, evalVoid(`history.back()`))
	waitFor(t, ctx, `location.hash === '#/board?priority=high' && document.querySelector('.board-filters input[name="search"]')?.value === ''`)
	run(t, ctx, evalVoid(`history.back()`))
	// The first entry is the console's own address, /console, with no hash.
	waitFor(t, ctx, `['', '#/board'].includes(location.hash) && document.querySelector('.board-filters select[name="priority"]')?.value === ''`)
	waitBoard(t, ctx)
	waitFor(t, ctx, cards+` === 'Calm Candles,Urgent Umbrellas'`)

	// A shared link opens the board filtered.
	run(t, ctx, chromedp.Navigate(env.Server.URL+"/console#/board?priority=low"))
	waitFor(t, ctx, `document.querySelector('.board-filters select[name="priority"]')?.value === 'low'`)
	waitBoard(t, ctx)
	waitFor(t, ctx, cards+` === 'Calm Candles'`)
}

// A person saves the board's filters as a view; after a reload, picking it
// from the "Views" menu applies them; the menu works from the keyboard,
// passes axe, and deletes the person's own view.
func TestSavedViewsMenu(t *testing.T) {
	env := serve(t)
	u := env.NewPerson(env.Org.ID, "Ada", "Advisor", "advisor", personPassword)
	newLead(t, env, map[string]any{"businessName": "Urgent Umbrellas", "priority": "high", "source": "referral"})
	newLead(t, env, map[string]any{"businessName": "Calm Candles", "priority": "low"})
	ctx := newBrowser(t)
	signInPerson(t, ctx, env, u.Email)
	cards := `[...document.querySelectorAll('.card .card-title')].map(a => a.textContent).sort().join(',')`
	waitFor(t, ctx, cards+` === 'Calm Candles,Urgent Umbrellas'`)

	run(t, ctx, chromedp.Navigate(env.Server.URL+"/console#/board?priority=high&source=referral"))
	waitFor(t, ctx, `document.querySelector('.board-filters select[name="source"]')?.value === 'referral'`)
	waitBoard(t, ctx)
	// Open the menu and the save form from the keyboard.
	run(t, ctx, evalVoid(`document.querySelector('.views-button').focus()`), chromedp.KeyEvent(kb.Enter))
	waitFor(t, ctx, `document.querySelector('.views-panel')?.hidden === false && document.querySelector('.views-list')?.getAttribute('aria-busy') === 'false'`)
	run(t, ctx, evalVoid(`document.querySelector('.save-view-button').focus()`), chromedp.KeyEvent(kb.Enter))
	waitFor(t, ctx, `document.activeElement === document.querySelector('form.save-view input[name="name"]')`)
	checkA11y(t, ctx)
	run(t, ctx, chromedp.SendKeys(`form.save-view input[name="name"]`, "Hot referrals"), chromedp.KeyEvent(kb.Enter))
	waitFor(t, ctx, `[...document.querySelectorAll('.views-list .view-link')].some(a => a.textContent === 'Hot referrals')`)
	shot(t, ctx, "board-views")
	// Escape closes the menu, back to its button.
	run(t, ctx, chromedp.KeyEvent(kb.Escape))
	waitFor(t, ctx, `document.querySelector('.views-panel').hidden && document.activeElement === document.querySelector('.views-button')`)

	// Reload without filters, then pick the view.
	run(t, ctx, chromedp.Navigate(env.Server.URL+"/console#/board"), chromedp.Reload())
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Pipeline board' && document.querySelector('.views-button') !== null`)
	waitBoard(t, ctx)
	waitFor(t, ctx, cards+` === 'Calm Candles,Urgent Umbrellas'`)
	run(t, ctx, chromedp.Click(`.views-button`))
	waitFor(t, ctx, `[...document.querySelectorAll('.views-list .view-link')].some(a => a.textContent === 'Hot referrals')`)
	run(t, ctx, evalVoid(`[...document.querySelectorAll('.views-list .view-link')].find(a => a.textContent === 'Hot referrals').click()`))
	waitFor(t, ctx, `document.querySelector('.board-filters select[name="priority"]')?.value === 'high' && document.querySelector('.board-filters select[name="source"]')?.value === 'referral'`)
	if q := hashQuery(t, ctx); q.Get("priority") != "high" || q.Get("source") != "referral" {
		t.Errorf("the view's address: %v", q)
	}
	waitBoard(t, ctx)
	waitFor(t, ctx, cards+` === 'Urgent Umbrellas'`)

	// The view as the API stores it: the board's own arguments.
	data, code := graphQL(t, env, u.Email, `{ views(screen: BOARD) { name filters shared } }`)
	if code != "" {
		t.Fatalf("views: %s", code)
	}
	views := data["views"].([]any)
	if len(views) != 1 {
		t.Fatalf("views: %v", views)
	}
	where, _ := views[0].(map[string]any)["filters"].(map[string]any)["where"].(map[string]any)
	if where["priority"] != "high" || where["source"] != "referral" {
		t.Errorf("the saved filters: %v", views[0])
	}

	// Delete it, confirming.
	run(t, ctx, chromedp.Click(`.views-button`))
	waitFor(t, ctx, `document.querySelector('.views-list .delete-view') !== null`)
	run(t, ctx, chromedp.Click(`.views-list .delete-view`))
	confirmOpenDialog(t, ctx)
	waitFor(t, ctx, `document.querySelector('.views-list')?.children.length === 0 && document.querySelector('.views-list')?.getAttribute('aria-busy') === 'false'`)
}

// Applications keep their filters in the address, and the "Views" menu is
// there too.
func TestApplicationFiltersInTheAddress(t *testing.T) {
	env := serve(t)
	u := env.NewPerson(env.Org.ID, "Ada", "Advisor", "advisor", personPassword)
	ctx := newBrowser(t)
	signInPerson(t, ctx, env, u.Email)
	openScreen(t, ctx, "/applications", "Applications")
	if eval[bool](t, ctx, `document.querySelector('.views-button') === null`) {
		t.Error("Applications has no Views menu")
	}
	run(t, ctx, chromedp.SetValue(`select[name="status"]`, "approved"), evalVoid(`document.querySelector('select[name="status"]').dispatchEvent(new Event('change'))`))
	waitFor(t, ctx, `location.hash === '#/applications?status=approved'`)
	openScreen(t, ctx, "/lenders", "Lenders")
	run(t, ctx, evalVoid(`history.back()`))
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Applications' && document.querySelector('select[name="status"]')?.value === 'approved'`)
}

// graphQL asks the API as the person signed in with email.
func graphQL(t *testing.T, env *resttest.Env, email, query string) (map[string]any, string) {
	t.Helper()
	s := env.SignIn(email, personPassword)
	r := env.Do(resttest.Request{Method: "POST", Path: "/graphql", Header: s.Header(true), Body: map[string]any{"query": query}})
	data, _ := r.Body["data"].(map[string]any)
	if errs, _ := r.Body["errors"].([]any); len(errs) > 0 {
		ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
		code, _ := ext["code"].(string)
		return data, code
	}
	return data, ""
}
