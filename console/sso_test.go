package console_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/oauth2-proxy/mockoidc"

	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
)

// serveSSO starts a mock OpenID provider and a server whose single
// sign-on goes to it over real HTTP.
func serveSSO(t *testing.T) (*resttest.Env, *mockoidc.MockOIDC) {
	t.Helper()
	m, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatalf("making the provider: %v", err)
	}
	m.AccessTTL = 10 * time.Minute
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ln, nil); err != nil {
		t.Fatalf("starting the provider: %v", err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	env := resttest.New(t, func(c *rest.Config) {
		c.OIDC = &rest.OIDCConfig{Issuer: m.Issuer(), ClientID: m.ClientID, ClientSecret: m.ClientSecret}
	})
	return env, m
}

// waitAfterLeaving is waitFor across the page loads an action set off (the
// provider's redirects, a reload): an evaluation that finds its document
// gone is tried again on the next one.
func waitAfterLeaving(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		switch {
		case err == nil && ok:
			return
		case err != nil && !strings.Contains(err.Error(), "context") && !strings.Contains(err.Error(), "navigated"):
			t.Fatalf("waiting for %s: %v", expr, err)
		case time.Now().After(deadline):
			body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
			t.Fatalf("waiting for %s: timed out (last error %v); the page reads:\n%s", expr, err, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Without a provider configured, the sign-in form offers no single
// sign-on.
func TestNoSingleSignOnOffered(t *testing.T) {
	env := serve(t)
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(env.Server.URL+"/console"),
		chromedp.WaitVisible(chromedp.CSS(`form.sign-in input[name="email"]`)))
	if n := eval[int](t, ctx, `document.querySelectorAll('a.sso').length`); n != 0 {
		t.Errorf("the sign-in form offers single sign-on %d times with no provider", n)
	}
}

// "Sign in with SSO" goes through the provider and back to the console
// signed in as the invited person whose email the provider verified; an
// email with no sign-in here comes back to the form with the refusal.
func TestSingleSignOnFromTheSignInForm(t *testing.T) {
	env, provider := serveSSO(t)
	u := env.NewPerson(env.Org.ID, "Sam", "Single", "advisor", personPassword)
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(env.Server.URL+"/console"),
		chromedp.WaitVisible(chromedp.CSS(`form.sign-in a.sso`)))
	if href := eval[string](t, ctx, `document.querySelector('form.sign-in a.sso').getAttribute('href')`); href != "/auth/oidc/start" {
		t.Errorf("Sign in with SSO links to %q", href)
	}
	shot(t, ctx, "sign-in-sso")

	provider.QueueUser(&mockoidc.MockUser{Subject: "sam", Email: u.Email, EmailVerified: true})
	run(t, ctx, chromedp.Click(chromedp.CSS(`form.sign-in a.sso`)))
	waitAfterLeaving(t, ctx, `document.getElementById('who')?.textContent === 'Sam Single' && document.querySelector('main h1')?.textContent === 'My day'`)

	run(t, ctx, chromedp.Click(chromedp.CSS(`#sign-out`)))
	waitFor(t, ctx, `document.querySelector('form.sign-in a.sso') !== null && document.getElementById('who').textContent === ''`)
	provider.QueueUser(&mockoidc.MockUser{Subject: "stranger", Email: "stranger@example.com", EmailVerified: true})
	run(t, ctx, chromedp.Click(chromedp.CSS(`form.sign-in a.sso`)))
	waitAfterLeaving(t, ctx, `location.hash.startsWith('#/sign-in?error=') && document.querySelector('#errors .error') !== null && document.querySelector('form.sign-in input[name="email"]') !== null`)
	if msg := eval[string](t, ctx, `document.querySelector('#errors .error').textContent`); !strings.Contains(msg, "has no sign-in here") {
		t.Errorf("the refused single sign-on reads %q", msg)
	}
	if who := eval[string](t, ctx, `document.getElementById('who').textContent`); who != "" {
		t.Errorf("after a refused single sign-on the header names %q", who)
	}
}
