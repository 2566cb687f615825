package console_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks"
)

// bellUnread is the count the header's bell shows, once it has read it.
const bellUnread = `(document.querySelector('#bell .bell-button')?.dataset.counted === 'true' ?
	Number(document.querySelector('#bell .bell-button').dataset.unread) : -1)`

// decisionPortal is a lender's portal posting signed decisions to an
// inbound endpoint whose automation decides the application named.
type decisionPortal struct {
	env          *resttest.Env
	path, secret string
}

func newDecisionPortal(t *testing.T, env *resttest.Env) decisionPortal {
	t.Helper()
	ep := env.Post("/v1/inbound-endpoints", env.Key, map[string]any{"name": "Northwind portal", "mapping": map[string]string{
		"applicationId": "$.application", "decision": "$.status", "approvedAmount": "$.offer.amount",
		"interestRate": "$.offer.factor", "rateType": "$.offer.type", "termMonths": "$.offer.term",
	}})
	if ep.Status != http.StatusCreated {
		t.Fatalf("inbound endpoint: %d %s", ep.Status, ep.Raw)
	}
	auto := env.Post("/v1/automations", env.Key, map[string]any{"name": "Northwind decisions",
		"trigger": map[string]any{"endpointId": ep.Data()["id"]}, "actions": []map[string]any{{"type": "decide_application"}}})
	if auto.Status != http.StatusCreated {
		t.Fatalf("automation: %d %s", auto.Status, auto.Raw)
	}
	return decisionPortal{env: env, path: ep.Attr("path").(string), secret: ep.Attr("secret").(string)}
}

// approve posts the lender's approval of app at amount, signed.
func (p decisionPortal) approve(t *testing.T, app, amount string) {
	t.Helper()
	body := `{"application":"` + app + `","status":"APPROVED","offer":{"amount":"` + amount + `","factor":"1.30","type":"factor","term":10}}`
	now := time.Now()
	r := p.env.Do(resttest.Request{Method: http.MethodPost, Path: p.path, Body: body, Header: map[string]string{
		"X-Webhook-Timestamp": strconv.FormatInt(now.Unix(), 10), "X-Webhook-Signature": webhooks.Sign(p.secret, now, []byte(body)),
	}})
	if r.Status != http.StatusOK {
		t.Fatalf("inbound POST: %d %s", r.Status, r.Raw)
	}
}

// The bell counts a lender's decision made through an inbound webhook: a
// person who is the lead's primary advisor has the console open; the
// lender's portal approves the lead's application through a signed
// inbound request, its automation decides it, and the bell's count goes
// up live, without a reload. The panel lists it, links it to the lead and
// marks it read when opened; Mark all read clears the rest; Escape closes
// the panel and gives focus back to the bell.
func TestBellCountsInboundDecision(t *testing.T) {
	env := serve(t)
	u := env.NewPerson(env.Org.ID, "Ada", "Advisor", "advisor", personPassword)
	lender := createLender(t, env, "Northwind Capital", "0.05")
	lead := newLead(t, env, map[string]any{"businessName": "Harbor Street Bakery", "requestedAmount": "50000.00",
		"assignToAdvisorId": u.ID.String()})
	app := submitApp(t, env, lead, lender)
	portal := newDecisionPortal(t, env)

	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(env.Server.URL+"/console"))
	passwordSignIn(t, ctx, u.Email, personPassword)
	waitFor(t, ctx, `document.getElementById('who').textContent === 'Ada Advisor' && `+bellUnread+` === 0`)
	if label := eval[string](t, ctx, `document.querySelector('#bell .bell-button').getAttribute('aria-label')`); label != "Notifications, none unread" {
		t.Errorf("the bell reads %q", label)
	}
	// A marker a reload would wipe.
	run(t, ctx, evalVoid(`window.bellNoReload = true`))

	// The subscription starts asynchronously: other applications of the
	// advisor's, declined by a key, show when it listens.
	warm := newLead(t, env, map[string]any{"businessName": "Warm-up Deli", "requestedAmount": "20000.00", "assignToAdvisorId": u.ID.String()})
	untilLive(t, ctx, func(i int) string {
		other := submitApp(t, env, warm, createLender(t, env, strings.TrimSuffix(fmt.Sprintf("Bluefin Funding %d", i), " 0"), "0.04"))
		lendingGQL(t, env, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: DECLINED, reason: "Too many positions"}) { id } }`,
			map[string]any{"id": other})
		return bellUnread + ` >= 1`
	})
	before := eval[int](t, ctx, bellUnread)

	portal.approve(t, app, "40000.00")
	waitFor(t, ctx, fmt.Sprintf(`%s === %d`, bellUnread, before+1))
	if label := eval[string](t, ctx, `document.querySelector('#bell .bell-button').getAttribute('aria-label')`); label != fmt.Sprintf("Notifications, %d unread", before+1) {
		t.Errorf("the bell reads %q", label)
	}
	if !eval[bool](t, ctx, `window.bellNoReload === true`) {
		t.Error("the page reloaded")
	}

	// Opened from the keyboard, the panel lists the decision first and
	// takes focus; axe finds nothing wrong with it.
	run(t, ctx, chromedp.Focus(chromedp.CSS(`#bell .bell-button`)), chromedp.KeyEvent(kb.Enter))
	waitFor(t, ctx, `!document.getElementById('bell-panel').hidden && document.querySelector('#bell .bell-list')?.getAttribute('aria-busy') === 'false' &&
		document.querySelector('#bell .bell-list li .bell-summary')?.textContent === 'Northwind Capital approved 40000.00'`)
	if !eval[bool](t, ctx, `document.getElementById('bell-panel').contains(document.activeElement) &&
		document.querySelector('#bell .bell-button').getAttribute('aria-expanded') === 'true'`) {
		t.Error("the open panel does not hold the focus")
	}
	checkA11y(t, ctx)
	shot(t, ctx, "bell")
	run(t, ctx, chromedp.KeyEvent(kb.Escape))
	waitFor(t, ctx, `document.getElementById('bell-panel').hidden && document.activeElement === document.querySelector('#bell .bell-button')`)

	// Opening the decision goes to its lead and marks it read.
	run(t, ctx, chromedp.Click(chromedp.CSS(`#bell .bell-button`)))
	waitFor(t, ctx, `document.querySelector('#bell .bell-list li.unread a') !== null`)
	run(t, ctx, chromedp.Click(chromedp.CSS(`#bell .bell-list li.unread a`)))
	waitFor(t, ctx, fmt.Sprintf(`location.hash === '#/leads/%s' && document.querySelector('main h1')?.textContent === 'Harbor Street Bakery' &&
		document.getElementById('bell-panel').hidden && %s === %d`, lead, bellUnread, before))
	waitForUnread(t, env, u.Email, before)

	// Mark all read clears the count, here and on the server.
	run(t, ctx, chromedp.Click(chromedp.CSS(`#bell .bell-button`)))
	waitFor(t, ctx, `document.querySelector('#bell .bell-list')?.getAttribute('aria-busy') === 'false' && !document.querySelector('#bell .bell-mark-all').disabled`)
	run(t, ctx, chromedp.Click(chromedp.CSS(`#bell .bell-mark-all`)))
	waitFor(t, ctx, bellUnread+` === 0 && document.querySelector('#bell .bell-list li.unread') === null`)
	waitForUnread(t, env, u.Email, 0)

	// On a phone the header keeps to one line and the open panel to the
	// screen.
	phone(t, ctx)
	waitFor(t, ctx, `matchMedia('(max-width: 700px)').matches && !document.getElementById('bell-panel').hidden`)
	if !eval[bool](t, ctx, `(() => {
		const top = document.querySelector('header.top');
		const r = document.getElementById('bell-panel').getBoundingClientRect();
		return top.scrollWidth <= top.clientWidth && r.left >= 0 && r.right <= innerWidth;
	})()`) {
		t.Error("on a phone the header overflows, or the open panel leaves the screen")
	}
	checkA11y(t, ctx)
	shot(t, ctx, "bell-phone")
}

// waitForUnread waits until the person email has want unread
// notifications, as the API counts them for their own session.
func waitForUnread(t *testing.T, env *resttest.Env, email string, want int) {
	t.Helper()
	s := env.SignIn(email, personPassword)
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := env.Do(resttest.Request{Method: http.MethodPost, Path: "/graphql", Header: s.Header(true),
			Body: map[string]any{"query": `{ unreadNotificationCount }`}})
		got := -1
		if d, ok := r.Body["data"].(map[string]any); ok {
			if n, ok := d["unreadNotificationCount"].(float64); ok {
				got = int(n)
			}
		}
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("unread notifications = %d, want %d: %s", got, want, r.Raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// With a key bound to no one the bell is not shown: notifications are a
// person's (the API answers FORBIDDEN), and the console does not ask.
func TestBellHiddenForKeyOfNoOne(t *testing.T) {
	env := serve(t)
	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Pipeline board'`)
	if shown := eval[bool](t, ctx, `!document.getElementById('bell').hidden || document.querySelector('#bell button') !== null`); shown {
		t.Error("the bell shows for a key bound to no one")
	}
	// Nothing asked for them: the page shows no error.
	if errs := eval[string](t, ctx, `document.getElementById('errors').textContent`); errs != "" {
		t.Errorf("the page shows %q", errs)
	}
}
