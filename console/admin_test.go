package console_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lendingpipe/svc/rest/resttest"
)

// adminGQL runs a GraphQL operation with key and returns its data; any
// error fails the test.
func adminGQL(t *testing.T, env *resttest.Env, key, query string, vars map[string]any) map[string]any {
	t.Helper()
	r := env.Post("/graphql", key, map[string]any{"query": query, "variables": vars})
	if r.Status != http.StatusOK || r.Body["errors"] != nil {
		t.Fatalf("GraphQL %s: %d %s", query, r.Status, r.Raw)
	}
	return r.Body["data"].(map[string]any)
}

// adminField is data's object named name, then its string field key.
func adminField(data map[string]any, name, key string) string {
	obj, _ := data[name].(map[string]any)
	s, _ := obj[key].(string)
	return s
}

// restStatus is the status of GET path with key.
func restStatus(env *resttest.Env, path, key string) int {
	return env.Get(path, key).Status
}

// createKey makes a key through GraphQL and returns its secret.
func createKey(t *testing.T, env *resttest.Env, name string, scopes ...string) string {
	t.Helper()
	data := adminGQL(t, env, env.Key, `mutation($in: CreateApiKeyInput!) { createApiKey(input: $in) { secret } }`,
		map[string]any{"in": map[string]any{"name": name, "scopes": scopes}})
	return adminField(data, "createApiKey", "secret")
}

// openScreen goes to route and waits until its title shows.
func openScreen(t *testing.T, ctx context.Context, route, title string) {
	t.Helper()
	run(t, ctx, evalVoid(`location.hash = '`+route+`'`))
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === '`+title+`' && document.querySelector('.pager-body[aria-busy="false"], .charts[aria-busy="false"]') !== null`)
}

// confirmOpenDialog clicks the submit button of the dialog on screen and
// waits until it is gone.
func confirmOpenDialog(t *testing.T, ctx context.Context) {
	t.Helper()
	waitFor(t, ctx, `document.querySelector('dialog.confirm[open]') !== null`)
	run(t, ctx, chromedp.Click(chromedp.CSS(`dialog.confirm[open] button[type="submit"]`)))
	waitFor(t, ctx, `document.querySelector('dialog.confirm') === null`)
}

// shownSecret waits for the secret box to show a value starting with
// prefix other than not, and returns it.
func shownSecret(t *testing.T, ctx context.Context, prefix, not string) string {
	t.Helper()
	waitFor(t, ctx, `(document.querySelector('.secret .secret-value')?.value || '').startsWith('`+prefix+`') &&
		document.querySelector('.secret .secret-value').value !== '`+not+`'`)
	return eval[string](t, ctx, `document.querySelector('.secret .secret-value').value`)
}

// dismissSecret clicks the secret box's button and checks the secret is
// nowhere on the page afterwards, not even after the screen is reloaded.
func dismissSecret(t *testing.T, ctx context.Context, secret, route, title string) {
	t.Helper()
	run(t, ctx, chromedp.Click(chromedp.CSS(`.secret .actions button.primary`)))
	waitFor(t, ctx, `document.querySelector('.secret') === null`)
	absent := `!document.documentElement.outerHTML.includes('` + secret + `') && ![...document.querySelectorAll('input, textarea')].some((i) => i.value === '` + secret + `')`
	if !eval[bool](t, ctx, absent) {
		t.Errorf("the secret still shows after it was dismissed")
	}
	run(t, ctx, evalVoid(`location.hash = '#/board'`))
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Pipeline board'`)
	openScreen(t, ctx, route, title)
	if !eval[bool](t, ctx, absent) {
		t.Errorf("the secret shows again on %s", route)
	}
}

// waitAcrossReload is waitFor for a condition the page reaches by
// reloading: a poll cut short by the navigation is started again.
func waitAcrossReload(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(time.Until(deadline))))
		if err == nil {
			return
		}
		if !strings.Contains(err.Error(), "navigated") && !strings.Contains(err.Error(), "context") || time.Now().After(deadline) {
			body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
			t.Fatalf("waiting for %s: %v; the page reads:\n%s", expr, err, body)
		}
	}
}

// A key created in the console shows its secret once; rotating it shows a
// new one, which works, while the old keeps working for the grace period
// chosen (24 hours by default).
func TestRotateKey(t *testing.T) {
	env := serve(t)
	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	openScreen(t, ctx, "#/keys", "API keys")

	run(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`form.create-key input[name="name"]`), "Dialer bridge"),
		chromedp.Click(chromedp.CSS(`form.create-key input[value="dialer:write"]`)),
		chromedp.Click(chromedp.CSS(`form.create-key button[type="submit"]`)),
	)
	old := shownSecret(t, ctx, "svc_live_", "")
	if got := restStatus(env, "/v1/leads", old); got != http.StatusOK {
		t.Fatalf("the created key gets %d on GET /v1/leads", got)
	}
	waitFor(t, ctx, `[...document.querySelectorAll('.pager tbody tr')].some((r) => r.textContent.includes('Dialer bridge') && r.textContent.includes('leads:read, dialer:write'))`)
	if warning := eval[string](t, ctx, `document.querySelector('.secret .warning').textContent`); !strings.Contains(warning, "shown this once") {
		t.Errorf("the secret's warning reads %q", warning)
	}
	if label := eval[string](t, ctx, `document.querySelector('label[for="' + document.querySelector('.secret .secret-value').id + '"]')?.textContent ?? ''`); label != "Secret of Dialer bridge" {
		t.Errorf("the secret's field is labelled %q", label)
	}
	dismissSecret(t, ctx, old, "#/keys", "API keys")

	run(t, ctx, chromedp.Click(chromedp.CSS(`button[aria-label="Rotate key Dialer bridge"]`)))
	waitFor(t, ctx, `document.querySelector('dialog.confirm[open] input[type="number"]')?.value === '24'`)
	confirmOpenDialog(t, ctx)
	rotatedAt := time.Now()
	fresh := shownSecret(t, ctx, "svc_live_", old)
	waitFor(t, ctx, `[...document.querySelectorAll('.pager tbody tr')].some((r) => r.textContent.includes('Rotated: works until'))`)

	if got := restStatus(env, "/v1/leads", fresh); got != http.StatusOK {
		t.Errorf("the new secret gets %d on GET /v1/leads", got)
	}
	if got := restStatus(env, "/v1/leads", old); got != http.StatusOK {
		t.Errorf("within its grace period the old secret gets %d on GET /v1/leads", got)
	}
	// The grace period sent was the default day.
	keys := adminGQL(t, env, env.Key, `{ apiKeys(limit: 100) { nodes { name expiresAt replacedBy } } }`, nil)
	var until time.Time
	for _, n := range keys["apiKeys"].(map[string]any)["nodes"].([]any) {
		k := n.(map[string]any)
		if k["name"] == "Dialer bridge" && k["replacedBy"] != nil {
			until, _ = time.Parse(time.RFC3339, k["expiresAt"].(string))
		}
	}
	if d := until.Sub(rotatedAt); d < 23*time.Hour+55*time.Minute || d > 24*time.Hour+5*time.Minute {
		t.Errorf("the old key works until %v, %v after the rotation; want a day", until, d)
	}
	dismissSecret(t, ctx, fresh, "#/keys", "API keys")
	shot(t, ctx, "keys")
}

// Revoking a key in the console refuses it over REST at once; revoking the
// key the console is signed in with sends the reader to sign in.
func TestRevokeKey(t *testing.T) {
	env := serve(t)
	victim := createKey(t, env, "Old integration", "leads:read")
	own := createKey(t, env, "Console operator", "admin", "leads:read")
	if got := restStatus(env, "/v1/leads", victim); got != http.StatusOK {
		t.Fatalf("the key gets %d before it is revoked", got)
	}
	// The console's own key is refused after it is revoked: that 401 is expected.
	ctx := newBrowser(t, "status of 401")
	signIn(t, ctx, env, own)
	openScreen(t, ctx, "#/keys", "API keys")
	waitFor(t, ctx, `[...document.querySelectorAll('.pager tbody tr')].some((r) => r.textContent.includes('Console operator (this console)'))`)

	// Cancelling changes nothing.
	run(t, ctx, chromedp.Click(chromedp.CSS(`button[aria-label="Revoke key Old integration"]`)))
	waitFor(t, ctx, `document.querySelector('dialog.confirm[open]')?.textContent.includes('cannot be undone')`)
	run(t, ctx, chromedp.Click(chromedp.CSS(`dialog.confirm[open] .actions button[type="button"]`)))
	waitFor(t, ctx, `document.querySelector('dialog.confirm') === null`)
	if got := restStatus(env, "/v1/leads", victim); got != http.StatusOK {
		t.Fatalf("a cancelled revocation left the key at %d", got)
	}

	run(t, ctx, chromedp.Click(chromedp.CSS(`button[aria-label="Revoke key Old integration"]`)))
	confirmOpenDialog(t, ctx)
	waitFor(t, ctx, `![...document.querySelectorAll('.pager tbody tr')].some((r) => r.textContent.includes('Old integration'))`)
	if got := restStatus(env, "/v1/leads", victim); got != http.StatusUnauthorized {
		t.Errorf("the revoked key gets %d, want 401", got)
	}
	// Listed with the revoked ones, as revoked.
	run(t, ctx, chromedp.Click(chromedp.CSS(`#keys-include-revoked`)))
	waitFor(t, ctx, `[...document.querySelectorAll('.pager tbody tr')].some((r) => r.textContent.includes('Old integration') && r.textContent.includes('Revoked'))`)

	// Revoking the console's own key: the next request is refused and the
	// console asks to sign in, saying why.
	run(t, ctx, chromedp.Click(chromedp.CSS(`button[aria-label="Revoke key Console operator"]`)))
	waitFor(t, ctx, `document.querySelector('dialog.confirm[open]')?.textContent.includes('signed in with this key')`)
	waitFor(t, ctx, `document.querySelector('dialog.confirm[open]') !== null`)
	run(t, ctx, chromedp.Click(chromedp.CSS(`dialog.confirm[open] button[type="submit"]`)))
	waitAcrossReload(t, ctx, `document.querySelector('form.sign-in') !== null && document.querySelector('#errors .error')?.textContent.includes('UNAUTHORIZED')`)
	// The refused key was forgotten: a reload asks to sign in without
	// trying it again.
	run(t, ctx, chromedp.Reload())
	waitFor(t, ctx, `document.querySelector('form.sign-in') !== null && document.getElementById('errors').textContent === ''`)
	if got := restStatus(env, "/v1/leads", own); got != http.StatusUnauthorized {
		t.Errorf("the console's revoked key gets %d, want 401", got)
	}
}

// An app registered in the console is installed with a subset of its
// scopes; its token is shown once and works with those scopes only, until
// the app is uninstalled.
func TestInstallApp(t *testing.T) {
	env := serve(t)
	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	openScreen(t, ctx, "#/apps", "Apps")

	run(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`form.register-app input[name="name"]`), "Dialer Sync"),
		chromedp.SendKeys(chromedp.CSS(`form.register-app textarea[name="description"]`), "Keeps the dialer's lists in step with the pipeline."),
		chromedp.Click(chromedp.CSS(`form.register-app input[value="leads:write"]`)),
		chromedp.Click(chromedp.CSS(`form.register-app button[type="submit"]`)),
	)
	waitFor(t, ctx, `document.querySelector('button[aria-label="Install Dialer Sync"]') !== null`)
	if row := eval[string](t, ctx, `document.querySelector('button[aria-label="Install Dialer Sync"]').closest('tr').textContent`); !strings.Contains(row, "leads:read, leads:write") || !strings.Contains(row, "in step with the pipeline") {
		t.Errorf("the app's row reads %q", row)
	}

	run(t, ctx, chromedp.Click(chromedp.CSS(`button[aria-label="Install Dialer Sync"]`)))
	waitFor(t, ctx, `document.querySelectorAll('dialog.confirm[open] input[type="checkbox"]:checked').length === 2`)
	// Grant leads:read only.
	run(t, ctx, chromedp.Click(chromedp.CSS(`dialog.confirm[open] input[value="leads:write"]`)))
	confirmOpenDialog(t, ctx)
	token := shownSecret(t, ctx, "svc_at_", "")
	waitFor(t, ctx, `[...document.querySelectorAll('button[aria-label="Uninstall Dialer Sync"]')].length === 1`)
	if row := eval[string](t, ctx, `document.querySelector('button[aria-label="Uninstall Dialer Sync"]').closest('tr').textContent`); !strings.Contains(row, "leads:read") || strings.Contains(row, "leads:write") {
		t.Errorf("the installation's row reads %q, want leads:read granted only", row)
	}
	if got := restStatus(env, "/v1/leads", token); got != http.StatusOK {
		t.Errorf("the app token gets %d on GET /v1/leads", got)
	}
	if got := env.Post("/v1/leads", token, map[string]any{"businessName": "Not Granted Co"}).Status; got != http.StatusForbidden {
		t.Errorf("the app token without leads:write gets %d on POST /v1/leads, want 403", got)
	}
	dismissSecret(t, ctx, token, "#/apps", "Apps")
	shot(t, ctx, "apps")

	run(t, ctx, chromedp.Click(chromedp.CSS(`button[aria-label="Uninstall Dialer Sync"]`)))
	confirmOpenDialog(t, ctx)
	waitFor(t, ctx, `document.querySelector('button[aria-label="Uninstall Dialer Sync"]') === null`)
	if got := restStatus(env, "/v1/leads", token); got != http.StatusUnauthorized {
		t.Errorf("the uninstalled app's token gets %d, want 401", got)
	}
}

// The analytics screen draws each report with Chart.js and lists the same
// figures in its tables, money as the server's decimal strings.
func TestAnalyticsCharts(t *testing.T) {
	env := serve(t)
	agent := env.NewUser(env.Org.ID, "Riley", "Brooks", "agent", "Floor")
	lead := func(name, amount string) string {
		r := env.Post("/v1/leads", env.Key, map[string]any{"businessName": name, "requestedAmount": amount})
		if r.Status != http.StatusCreated {
			t.Fatalf("creating a lead: %d %s", r.Status, r.Raw)
		}
		return r.Data()["id"].(string)
	}
	lender := func(name, rate string) string {
		return adminField(adminGQL(t, env, env.Key, `mutation($n: String!, $r: Rate!) { createLender(input: {name: $n, commissionRate: $r}) { id } }`,
			map[string]any{"n": name, "r": rate}), "createLender", "id")
	}
	submit := func(lead, lender string) string {
		return adminField(adminGQL(t, env, env.Key, `mutation($l: ID!, $r: ID!) { submitApplication(input: {leadId: $l, lenderId: $r}) { id } }`,
			map[string]any{"l": lead, "r": lender}), "submitApplication", "id")
	}
	summit, harbor := lender("Summit Capital", "0.03"), lender("Harbor Funding", "0.02")
	bakery, garage := lead("Corner Bakery", "25000"), lead("Main St Garage", "40000")
	lead("Quiet Florist", "9000")

	approved := submit(bakery, summit)
	adminGQL(t, env, env.Key, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, approvedAmount: "25000.50", interestRate: "1.3", rateType: factor, termMonths: 6}) { id } }`,
		map[string]any{"id": approved})
	deal := adminField(adminGQL(t, env, env.Key, `mutation($id: ID!) { fundDeal(input: {applicationId: $id, fundedAmount: "25000.50"}) { id } }`,
		map[string]any{"id": approved}), "fundDeal", "id")
	adminGQL(t, env, env.Key, `mutation($id: ID!) { recordCommissionPayment(input: {dealId: $id, amount: "300.00"}) { id } }`, map[string]any{"id": deal})
	declined := submit(garage, harbor)
	adminGQL(t, env, env.Key, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: DECLINED, reason: "Revenue too low"}) { id } }`,
		map[string]any{"id": declined})
	// The bakery's deal renewed with Harbor: 10,000.00 at 2 %, 50.00 paid.
	renewal := adminField(adminGQL(t, env, env.Key, `mutation($l: ID!, $r: ID!, $d: ID!) { submitApplication(input: {leadId: $l, lenderId: $r, renewalOfDealId: $d}) { id } }`,
		map[string]any{"l": bakery, "r": harbor, "d": deal}), "submitApplication", "id")
	adminGQL(t, env, env.Key, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, approvedAmount: "10000.00", interestRate: "1.2", rateType: factor, termMonths: 6}) { id } }`,
		map[string]any{"id": renewal})
	renewed := adminField(adminGQL(t, env, env.Key, `mutation($id: ID!) { fundDeal(input: {applicationId: $id}) { id } }`,
		map[string]any{"id": renewal}), "fundDeal", "id")
	adminGQL(t, env, env.Key, `mutation($id: ID!) { recordCommissionPayment(input: {dealId: $id, amount: "50.00"}) { id } }`, map[string]any{"id": renewed})

	now := time.Now().UTC().Add(-time.Minute)
	for _, ev := range []map[string]any{
		{"eventType": "call_started", "occurredAt": now.Add(-2 * time.Minute)},
		{"eventType": "call_answered", "occurredAt": now.Add(-110 * time.Second)},
		{"eventType": "call_ended", "occurredAt": now, "durationSeconds": 95},
	} {
		ev["externalCallId"], ev["userId"] = "call-1", agent.ID.String()
		ev["occurredAt"] = ev["occurredAt"].(time.Time).Format(time.RFC3339)
		if r := env.Post("/v1/dialer/events", env.Key, ev); r.Status != http.StatusCreated {
			t.Fatalf("recording a call event: %d %s", r.Status, r.Raw)
		}
	}

	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	openScreen(t, ctx, "#/analytics", "Analytics")
	waitFor(t, ctx, `document.querySelectorAll('figure.chart').length === 5`)

	// Every chart is a Chart.js chart whose canvas has pixels drawn, and is
	// described in words.
	drawn := eval[[]string](t, ctx, `[...document.querySelectorAll('figure.chart')].map((f) => {
		const canvas = f.querySelector('canvas');
		const chart = Chart.getChart(canvas);
		const px = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
		let ink = 0;
		for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) ink++;
		return f.dataset.chart + ':' + (chart ? chart.config.type : 'none') + ':' + (ink > 100) + ':' + (canvas.getAttribute('role') === 'img' && canvas.getAttribute('aria-label').length > 20);
	})`)
	want := []string{"funnel:bar:true:true", "funding:bar:true:true", "lenders:bar:true:true", "commissions:bar:true:true", "dialer:line:true:true"}
	if strings.Join(drawn, " ") != strings.Join(want, " ") {
		t.Errorf("the charts are %v, want %v", drawn, want)
	}

	tableOf := func(name string) string {
		return eval[string](t, ctx, `[...document.querySelectorAll('figure[data-chart="`+name+`"] table tr')].map((r) => [...r.cells].map((c) => c.textContent).join('|')).join('\n')`)
	}
	checks := map[string][]string{
		"funnel":  {"Leads|3|—", "Applied|2|66.67 %", "Approved|1|50.00 %", "Funded|1|100.00 %", "Overall (funded / leads)|1|33.33 %"},
		"funding": {"Total|2|$35,000.50|1 · $10,000.00"},
		"lenders": {"Harbor Funding|2|1|1|1|50.00 %", "Summit Capital|1|1|0|1|100.00 %"},
		"commissions": {"Summit Capital|$750.02|$300.00|$0.00|$450.02", "Harbor Funding|$200.00|$50.00|$0.00|$150.00",
			"Total|$950.02|$350.00|$0.00|$600.02", "Of it, renewals|$200.00|$50.00|—|—"},
		"dialer": {"Riley Brooks|1|1|1 min 35 s|1 min 35 s"},
	}
	for name, rows := range checks {
		got := tableOf(name)
		for _, row := range rows {
			if !strings.Contains(got, row) {
				t.Errorf("the %s table lacks %q; it reads:\n%s", name, row, got)
			}
		}
	}
	// This month's bucket holds the deals, the renewal among them.
	month := time.Now().Format("2006-01") + "-01|2|$35,000.50|1 · $10,000.00"
	if got := tableOf("funding"); !strings.Contains(got, month) {
		t.Errorf("the funding table lacks %q; it reads:\n%s", month, got)
	}
	shot(t, ctx, "analytics")

	// Another period: by day over today only, the charts are redrawn.
	today := time.Now().Format("2006-01-02")
	run(t, ctx,
		evalVoid(`document.querySelector('form.period input[name="from"]').value = '`+today+`'`),
		chromedp.SetValue(chromedp.CSS(`form.period select[name="interval"]`), "day"),
		chromedp.Click(chromedp.CSS(`form.period button[type="submit"]`)),
	)
	waitFor(t, ctx, `document.querySelector('figure[data-chart="funding"] h2')?.textContent === 'Funded volume by day'`)
	if got := tableOf("funding"); !strings.Contains(got, today+"|2|$35,000.50|1 · $10,000.00") {
		t.Errorf("by day, the funding table reads:\n%s", got)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('figure.chart canvas').length`); n != 5 {
		t.Errorf("%d canvases after redrawing", n)
	}

	// At a phone's width the screens fit: wide tables scroll in their own box.
	run(t, ctx, chromedp.EmulateViewport(390, 800))
	for _, s := range [][2]string{{"#/analytics", "Analytics"}, {"#/keys", "API keys"}, {"#/apps", "Apps"}} {
		openScreen(t, ctx, s[0], s[1])
		waitFor(t, ctx, `document.documentElement.scrollWidth <= 390`)
	}
}
