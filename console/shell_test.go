package console_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/lendingpipe/svc/console"
	"github.com/lendingpipe/svc/graph/playground"
)

var uuidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// A wrong key is refused in words with the request id; the right one
// shows the organization, lives in sessionStorage only, and sign-out
// forgets it.
func TestSignIn(t *testing.T) {
	env := serve(t)
	// The refused sign-in's 401 is the one failed load this test expects.
	ctx := newBrowser(t, "status of 401")
	const input = `form.sign-in input[name="api-key"]`
	run(t, ctx,
		chromedp.Navigate(env.Server.URL+"/console"),
		chromedp.WaitVisible(chromedp.CSS(`form.sign-in button.use-key`)),
		chromedp.Click(chromedp.CSS(`form.sign-in button.use-key`)),
		chromedp.WaitVisible(chromedp.CSS(input)),
		chromedp.SendKeys(chromedp.CSS(input), "svc_live_notakey"),
		chromedp.Click(chromedp.CSS(`form.sign-in button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#errors .error`)),
	)
	refusal := eval[string](t, ctx, `document.querySelector('#errors .error').textContent`)
	if !strings.Contains(refusal, "refused this API key") || !strings.Contains(refusal, "UNAUTHORIZED") ||
		!regexp.MustCompile(`Request id: `+uuidPattern.String()).MatchString(refusal) {
		t.Errorf("the refusal reads %q, want it in words with the code and a request id", refusal)
	}
	if role := eval[string](t, ctx, `document.getElementById('errors').getAttribute('role')`); role != "alert" {
		t.Errorf("the error region's role is %q", role)
	}
	if stored := eval[string](t, ctx, `sessionStorage.getItem('`+playground.KeyStorage+`') ?? ''`); stored != "" {
		t.Errorf("a refused key was stored: %q", stored)
	}
	shot(t, ctx, "sign-in-refused")

	run(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('`+input+`').value = ''`))
	signInHere(t, ctx, env.Key)
	if org := eval[string](t, ctx, `document.getElementById('org-name').textContent`); org != env.Org.Name {
		t.Errorf("the header names %q, want %q", org, env.Org.Name)
	}
	if errs := eval[string](t, ctx, `document.getElementById('errors').textContent`); errs != "" {
		t.Errorf("the refusal still shows after signing in: %q", errs)
	}
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Pipeline board'`)
	if stored := eval[string](t, ctx, `sessionStorage.getItem('`+playground.KeyStorage+`') ?? ''`); stored != env.Key {
		t.Errorf("sessionStorage holds %q, want the key", stored)
	}
	if where := eval[string](t, ctx, `location.href + ' ' + document.cookie + ' ' + localStorage.length`); strings.Contains(where, env.Key) || !strings.HasSuffix(where, " 0") {
		t.Errorf("the key is in the URL, a cookie or localStorage: %s", where)
	}
	if hash := eval[string](t, ctx, `location.hash`); hash != "" && hash != "#/board" {
		t.Errorf("landed at %q, want the board", hash)
	}
	shot(t, ctx, "signed-in")

	// Every screen of the nav is reachable and shows its title.
	links := eval[[]string](t, ctx, `[...document.querySelectorAll('#nav a')].map(a => a.getAttribute('href'))`)
	if len(links) < 10 {
		t.Errorf("the nav links to %v", links)
	}
	for _, href := range append(links, "#/leads/abc", "#/webhooks/xyz", "#/nowhere") {
		run(t, ctx, chromedp.Evaluate[chromedp.Void](`location.hash = '`+href+`'`))
		waitFor(t, ctx, `document.querySelector('main h1') && !document.querySelector('main .loading')`)
	}
	if hash := eval[string](t, ctx, `location.hash`); hash != "#/board" {
		t.Errorf("an unknown route stays at %q, want #/board", hash)
	}
	run(t, ctx, chromedp.Evaluate[chromedp.Void](`location.hash = '#/leads/abc'`))
	waitFor(t, ctx, `document.querySelector('main')?.textContent.includes('Id: abc')`)

	// A reload keeps the tab signed in.
	run(t, ctx, chromedp.Reload())
	waitFor(t, ctx, `document.getElementById('org-name').textContent === '`+env.Org.Name+`'`)

	run(t, ctx, chromedp.Click(chromedp.CSS(`#sign-out`)))
	waitFor(t, ctx, `document.querySelector('form.sign-in') !== null`)
	if stored := eval[string](t, ctx, `sessionStorage.getItem('`+playground.KeyStorage+`') ?? 'gone'`); stored != "gone" {
		t.Errorf("sign-out left %q in sessionStorage", stored)
	}
	if org := eval[string](t, ctx, `document.getElementById('org-name').textContent + (document.getElementById('nav').hidden ? '' : 'nav shown')`); org != "" {
		t.Errorf("signed out, the header still shows %q", org)
	}
}

// signInHere types key into the sign-in form already on screen.
func signInHere(t *testing.T, ctx context.Context, key string) {
	t.Helper()
	run(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`form.sign-in input[name="api-key"]`), key),
		chromedp.Click(chromedp.CSS(`form.sign-in button[type="submit"]`)),
	)
	waitFor(t, ctx, `document.getElementById('org-name').textContent !== ''`)
}

// The page and its files carry the policy and the other headers, and the
// page reports no violation while the board loads, the vendored libraries
// included; a violation provoked on purpose is seen, so the check can fail.
func TestConsoleCSP(t *testing.T) {
	env := serve(t)
	for _, p := range []string{"/console", "/console/app/main.js", "/console/app/style.css", "/console/app/screens/board.js",
		"/console/vendor/chart.js-4.6.1/chart.umd.min.js", "/console/vendor/graphql-ws-6.4.2/client.js"} {
		resp, err := env.Server.Client().Get(env.Server.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		if resp.StatusCode != http.StatusOK || h.Get("Content-Security-Policy") != console.Policy || h.Get("X-Content-Type-Options") != "nosniff" ||
			h.Get("Referrer-Policy") != "no-referrer" || h.Get("ETag") == "" || h.Get("Cache-Control") == "" {
			t.Errorf("GET %s: %d %v", p, resp.StatusCode, h)
		}
		if want := map[bool]string{true: "text/javascript; charset=utf-8", false: "text/html; charset=utf-8"}[strings.HasSuffix(p, ".js")]; !strings.HasSuffix(p, ".css") && h.Get("Content-Type") != want {
			t.Errorf("GET %s: Content-Type %q", p, h.Get("Content-Type"))
		}
	}

	ctx := newBrowser(t, "Applying inline style violates")
	watchCSP(t, ctx)
	signIn(t, ctx, env, env.Key)
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Pipeline board'`)
	if n := eval[int](t, ctx, `document.querySelectorAll('script:not([src]), style, [style]').length`); n != 0 {
		t.Errorf("%d inline scripts or styles in the page", n)
	}
	libs := eval[string](t, ctx, `import('/console/app/libs.js').then(async (m) => {
		const Chart = await m.loadChart();
		const Sortable = await m.loadSortable();
		const canvas = document.createElement('canvas');
		document.querySelector('main').append(canvas);
		const chart = new Chart(canvas, {type: 'bar', data: {labels: ['a', 'b'], datasets: [{label: 'n', data: [1, 2]}]}, options: {animation: false}});
		const list = document.createElement('ul');
		document.querySelector('main').append(list);
		Sortable.create(list);
		chart.destroy();
		return typeof Chart + ' ' + typeof Sortable;
	})`)
	if libs != "function function" {
		t.Errorf("the vendored libraries load as %q", libs)
	}
	if v := eval[[]string](t, ctx, `window.cspViolations`); len(v) != 0 {
		t.Errorf("CSP violations: %v", v)
	}
	// The watch itself works: an inline style attribute is refused.
	run(t, ctx, chromedp.Evaluate[chromedp.Void](`document.body.setAttribute('style', 'color: red')`))
	waitFor(t, ctx, `window.cspViolations.length > 0`)
}

// The playground sends the console's key; without one it says where to
// sign in rather than failing its first request.
func TestPlaygroundUsesKey(t *testing.T) {
	env := serve(t)

	bare := newBrowser(t)
	run(t, bare, chromedp.Navigate(env.Server.URL+"/playground"))
	waitFor(t, bare, `document.querySelector('.sign-in a[href="/console"]') !== null`)
	shot(t, bare, "playground-signed-out")

	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	run(t, ctx, chromedp.Navigate(env.Server.URL+"/playground"))
	waitFor(t, ctx, `document.querySelector('.graphiql-execute-button') !== null`)
	// The schema came with the key: the docs can be opened and the default
	// query answers with the organization.
	run(t, ctx, chromedp.Click(chromedp.CSS(`.graphiql-execute-button`)))
	waitFor(t, ctx, `document.querySelector('.graphiql-response')?.textContent.includes('`+env.Org.Name+`')`)
}
