package console_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/lendingpipe/svc/rest/resttest"
)

// The browser tests drive Debian's Chromium, headless, through chromedp.
// One browser serves the whole test binary; each test gets a tab in a
// browser context of its own, so storage never leaks between tests.
//
// SVC_TEST_CHROMIUM names another browser binary. Without a browser the
// tests skip, unless SVC_TEST_BROWSER=required (as in CI), when they fail.

var (
	browserOnce   sync.Once
	browserCtx    context.Context
	browserErr    error
	browserCancel = func() {}
)

func TestMain(m *testing.M) {
	code := m.Run()
	browserCancel()
	os.Exit(code)
}

// chromiumPath is the browser binary to drive, or "" when there is none.
func chromiumPath() string {
	if p := os.Getenv("SVC_TEST_CHROMIUM"); p != "" {
		return p
	}
	for _, p := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	return ""
}

// startBrowser starts the shared browser once.
func startBrowser(path string) (context.Context, error) {
	browserOnce.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(path),
			chromedp.Headless,
			chromedp.WindowSize(1280, 800),
		)
		if os.Geteuid() == 0 {
			opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root with its sandbox
		}
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(alloc)
		browserCancel = func() { cancelCtx(); cancelAlloc() }
		if err := chromedp.Do(ctx); err != nil {
			browserErr = err
			return
		}
		browserCtx = ctx
	})
	return browserCtx, browserErr
}

// newBrowser opens a tab (1280x800) in a fresh browser context and
// returns its chromedp context. Every console error, failed load, CSP
// violation and uncaught exception of the page fails the test, except the
// messages containing one of the allowed substrings (a test that provokes
// a refused request allows its "status of 401", say). A test that passes
// and ends on a console screen has that screen checked by checkA11y.
func newBrowser(t *testing.T, allowed ...string) context.Context {
	t.Helper()
	// Opened signed out, the console asks whether the browser holds a
	// person's session: no is a 401.
	allowed = append(allowed, "/auth/session")
	path := chromiumPath()
	if path == "" {
		if os.Getenv("SVC_TEST_BROWSER") == "required" {
			t.Fatal("no Chromium to run the browser tests (install chromium or set SVC_TEST_CHROMIUM)")
		}
		t.Skip("no Chromium: install chromium or set SVC_TEST_CHROMIUM; SVC_TEST_BROWSER=required makes this a failure")
	}
	parent, err := startBrowser(path)
	if err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	tab, cancelTab := chromedp.NewContext(parent, chromedp.WithNewBrowserContext())
	ctx, cancel := context.WithTimeout(tab, time.Minute)
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelTab()
		t.Fatalf("opening a tab: %v", err)
	}
	var (
		mu       sync.Mutex
		problems []string
	)
	messages := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type != chromedp.ConsoleError && !m.IsException() {
				continue
			}
			text := m.String() + " " + m.URL
			if m.Exception != nil && m.Exception.Exception != nil {
				text += " " + m.Exception.Exception.Description
			}
			if allowedMessage(text, allowed) {
				continue
			}
			mu.Lock()
			problems = append(problems, text)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		if !t.Failed() && !t.Skipped() {
			checkFinalScreen(t, tab)
		}
		cancel()
		cancelTab()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, p := range problems {
			t.Errorf("the page logged: %s", p)
		}
	})
	return ctx
}

func allowedMessage(text string, allowed []string) bool {
	for _, a := range allowed {
		if strings.Contains(text, a) {
			return true
		}
	}
	return false
}

// serve starts the whole server over a fresh database; env.Server.URL is
// its address, env.Key a key of env.Org holding every scope.
func serve(t *testing.T) *resttest.Env {
	t.Helper()
	return resttest.New(t)
}

// signIn opens the console and signs in with key, waiting until the
// organization's name shows and the board is the screen.
func signIn(t *testing.T, ctx context.Context, env *resttest.Env, key string) {
	t.Helper()
	run(t, ctx,
		chromedp.Navigate(env.Server.URL+"/console"),
		chromedp.WaitVisible(chromedp.CSS(`form.sign-in button.use-key`)),
		chromedp.Click(chromedp.CSS(`form.sign-in button.use-key`)),
		chromedp.WaitVisible(chromedp.CSS(`form.sign-in input[name="api-key"]`)),
		chromedp.SendKeys(chromedp.CSS(`form.sign-in input[name="api-key"]`), key),
		chromedp.Click(chromedp.CSS(`form.sign-in button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#nav a`)),
	)
	waitFor(t, ctx, `document.getElementById('org-name').textContent !== '' && document.querySelector('main h1') !== null`)
}

// shot saves the viewport as $SVC_CONSOLE_SCREENSHOTS/<name>.png when that
// variable names a folder (the pictures in docs/console are made so), and
// does nothing otherwise.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("SVC_CONSOLE_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// phone makes the tab a 390x844 phone screen (a mobile viewport).
func phone(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 390, Height: 844, DeviceScaleFactor: 1, Mobile: true}); err != nil {
		t.Fatalf("emulating a phone: %v", err)
	}
}

// run runs the actions in the tab, failing the test on an error.
func run(t *testing.T, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JavaScript expression in the page (awaiting it if it
// is a promise) and returns its value.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		var zero T
		t.Fatalf("evaluating %s: %v", expr, err)
		return zero
	}
	return v
}

// waitFor waits up to 10 seconds for a JavaScript expression to be truthy.
// A poll lives in one document: when the page navigates or reloads under
// it (a sign-out reloads the console), polling starts again in the new one.
func waitFor(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var err error
	for {
		_, err = chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(time.Until(deadline))))
		if err == nil || !strings.Contains(err.Error(), "navigated or closed") || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timeout") {
			body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
			t.Fatalf("waiting for %s: %v; the page reads:\n%s", expr, err, body)
		}
		t.Fatalf("waiting for %s: %v", expr, err)
	}
}

// watchCSP records the page's CSP violations in window.cspViolations from
// the start of every document the tab loads.
func watchCSP(t *testing.T, ctx context.Context) {
	t.Helper()
	_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `window.cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));`,
	})
	if err != nil {
		t.Fatal(err)
	}
}

// evalVoid is an action that evaluates a JavaScript expression for its
// effect, awaiting it if it is a promise.
func evalVoid(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](expr, chromedp.EvalAwaitPromise)
}

// axePath is axe-core's browser build, test data injected into the page.
const axePath = "testdata/axe-core-4.10.3/axe.min.js"

var axeSource = sync.OnceValues(func() ([]byte, error) { return os.ReadFile(axePath) })

// axeViolation is one failed axe-core rule: the elements failing it are
// named by their CSS selectors.
type axeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}

func (v axeViolation) String() string {
	return fmt.Sprintf("%s (%s): %s: %s", v.ID, v.Impact, v.Help, strings.Join(v.Targets, ", "))
}

// a11yViolations runs axe-core over the page in the tab with the colour
// scheme ("light" or "dark") the page is shown in, and returns what fails.
func a11yViolations(ctx context.Context, scheme string) ([]axeViolation, error) {
	src, err := axeSource()
	if err != nil {
		return nil, err
	}
	media := emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, media); err != nil {
		return nil, fmt.Errorf("emulating the %s scheme: %w", scheme, err)
	}
	// The page's own policy forbids eval; the protocol's evaluation does not
	// go through it, so axe-core is injected as text, once per document.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void]("if (!window.axe) {\n"+string(src)+"\n}")); err != nil {
		return nil, fmt.Errorf("injecting axe-core: %w", err)
	}
	return chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](`axe.run(document, {resultTypes: ['violations']}).then((r) => r.violations.map((v) => ({
		id: v.id, impact: v.impact || '', help: v.help, targets: v.nodes.map((n) => n.target.flat().join(' ')),
	})))`, chromedp.EvalAwaitPromise))
}

// checkA11y fails the test on every axe-core violation of the screen in
// the tab, in light then dark mode; the tab is left in the default mode.
func checkA11y(t *testing.T, ctx context.Context) {
	t.Helper()
	defer chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
	where, _ := chromedp.Run(ctx, chromedp.Location())
	for _, scheme := range []string{"light", "dark"} {
		found, err := a11yViolations(ctx, scheme)
		if err != nil {
			t.Errorf("checking %s in %s mode: %v", where, scheme, err)
			return
		}
		for _, v := range found {
			t.Errorf("accessibility, %s in %s mode: %s", where, scheme, v)
		}
	}
}

// checkFinalScreen runs checkA11y on the screen a test ended on, if the
// tab still shows a console page (not the playground or a blank tab).
func checkFinalScreen(t *testing.T, tab context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	where, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		return // the tab is gone
	}
	if u, err := url.Parse(where); err != nil || u.Path != "/console" {
		return
	}
	checkA11y(t, ctx)
}

// TestA11yCheckReportsUnlabelledInput proves the check can fail: an input
// without a label must be reported under axe-core's "label" rule.
func TestA11yCheckReportsUnlabelledInput(t *testing.T) {
	env := serve(t)
	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	run(t, ctx, evalVoid(`document.querySelector('main').append(Object.assign(document.createElement('input'), {id: 'unlabelled'}))`))
	found, err := a11yViolations(ctx, "light")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range found {
		if v.ID == "label" && strings.Contains(strings.Join(v.Targets, " "), "#unlabelled") {
			run(t, ctx, evalVoid(`document.getElementById('unlabelled').remove()`))
			return
		}
	}
	t.Fatalf("no label violation reported for an unlabelled input: %v", found)
}
