package rest_test

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
)

// ssoEnv is a server whose single sign-on goes to a mock OpenID provider
// over real HTTP.
type ssoEnv struct {
	*resttest.Env
	provider *mockoidc.MockOIDC
	// browser follows no redirect: each hop is checked.
	browser *http.Client
}

// newSSOEnv starts a provider issuing ID tokens valid for tokenTTL
// (negative: expired when issued) and a server signing in through it.
func newSSOEnv(t *testing.T, tokenTTL time.Duration) *ssoEnv {
	t.Helper()
	m, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatalf("making the provider: %v", err)
	}
	m.AccessTTL = tokenTTL
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ln, nil); err != nil {
		t.Fatalf("starting the provider: %v", err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	e := resttest.New(t, func(c *rest.Config) {
		c.OIDC = &rest.OIDCConfig{Issuer: m.Issuer(), ClientID: m.ClientID, ClientSecret: m.ClientSecret}
	})
	browser := &http.Client{Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &ssoEnv{Env: e, provider: m, browser: browser}
}

// get is one browser request to url, with cookies (name=value).
func (s *ssoEnv) get(t *testing.T, url string, cookies ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cookies) > 0 {
		req.Header.Set("Cookie", strings.Join(cookies, "; "))
	}
	res, err := s.browser.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	res.Body.Close()
	return res
}

func cookieOf(res *http.Response, name string) *http.Cookie {
	for _, c := range res.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// flow is a single sign-on started in a browser and approved at the
// provider: the flow cookie the server set and the callback URL the
// provider sent the browser to.
type flow struct {
	cookie   string // svc_oidc=<state>
	callback string
	state    string
}

// begin starts single sign-on and has the provider sign user in.
func (s *ssoEnv) begin(t *testing.T, user *mockoidc.MockUser) flow {
	t.Helper()
	return s.beginTampered(t, user, nil)
}

// beginTampered is begin with the authorization request changed by tamper
// on its way to the provider.
func (s *ssoEnv) beginTampered(t *testing.T, user *mockoidc.MockUser, tamper func(url.Values)) flow {
	t.Helper()
	res := s.get(t, s.Server.URL+"/auth/oidc/start")
	if res.StatusCode != http.StatusFound {
		t.Fatalf("start: %d, want 302", res.StatusCode)
	}
	c := cookieOf(res, rest.FlowCookie)
	if c == nil || c.Value == "" || !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteLaxMode || c.Path != "/auth/oidc" || c.MaxAge <= 0 || c.MaxAge > 600 {
		t.Fatalf("flow cookie %+v: want HttpOnly, Secure, SameSite=Lax, Path=/auth/oidc, at most 10 minutes", c)
	}
	to, err := url.Parse(res.Header.Get("Location"))
	if err != nil || !strings.HasPrefix(to.String(), s.provider.AuthorizationEndpoint()+"?") {
		t.Fatalf("start redirects to %q, want the provider's authorization endpoint", res.Header.Get("Location"))
	}
	q := to.Query()
	for name, want := range map[string]string{
		"response_type": "code", "client_id": s.provider.ClientID, "state": c.Value, "code_challenge_method": "S256",
		"redirect_uri": s.Server.URL + "/auth/oidc/callback", "scope": "openid email",
	} {
		if q.Get(name) != want {
			t.Errorf("authorization request %s = %q, want %q", name, q.Get(name), want)
		}
	}
	if len(q.Get("nonce")) < 40 || len(q.Get("code_challenge")) < 40 || len(c.Value) < 40 {
		t.Errorf("authorization request %v: want a random nonce, state and code challenge", q)
	}
	if tamper != nil {
		tamper(q)
		to.RawQuery = q.Encode()
	}
	s.provider.QueueUser(user)
	res = s.get(t, to.String())
	if res.StatusCode != http.StatusFound {
		t.Fatalf("the provider's authorization: %d, want 302", res.StatusCode)
	}
	back := res.Header.Get("Location")
	if !strings.HasPrefix(back, s.Server.URL+"/auth/oidc/callback?") {
		t.Fatalf("the provider sends the browser to %q", back)
	}
	return flow{cookie: rest.FlowCookie + "=" + c.Value, callback: back, state: c.Value}
}

// refusedWith checks that res sends the browser to the console's sign-in
// page with an error containing want, and signs no one in.
func refusedWith(t *testing.T, what string, res *http.Response, want string) {
	t.Helper()
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusFound || !strings.HasPrefix(loc, "/console/#/sign-in?error=") {
		t.Fatalf("%s: %d to %q, want 302 to the sign-in page with an error", what, res.StatusCode, loc)
	}
	msg, err := url.QueryUnescape(strings.TrimPrefix(loc, "/console/#/sign-in?error="))
	if err != nil || !strings.Contains(msg, want) {
		t.Fatalf("%s: error %q, want it to say %q", what, msg, want)
	}
	if c := cookieOf(res, rest.SessionCookie); c != nil && c.Value != "" {
		t.Fatalf("%s: a session cookie was set", what)
	}
}

// A person invited with the provider's verified email signs in through it:
// the callback sets the session cookie as a password sign-in does and
// sends the browser to the console; the same callback again is refused.
func TestSingleSignOnSignsInTheInvitedPerson(t *testing.T) {
	s := newSSOEnv(t, 10*time.Minute)
	u := s.NewPerson(s.Org.ID, "Sam", "Single", "advisor", testPassword)
	f := s.begin(t, &mockoidc.MockUser{Subject: "sam", Email: strings.ToUpper(u.Email), EmailVerified: true})

	// Providers add parameters of their own (RFC 9207's iss, scope): the
	// callback takes them.
	res := s.get(t, f.callback+"&iss="+url.QueryEscape(s.provider.Issuer())+"&scope=openid+email", f.cookie)
	if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "/console/" {
		t.Fatalf("callback: %d to %q, want 302 to /console/", res.StatusCode, res.Header.Get("Location"))
	}
	c := cookieOf(res, rest.SessionCookie)
	if c == nil || !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || len(c.Value) < 43 {
		t.Fatalf("session cookie %+v: want it as POST /auth/sign-in sets it", c)
	}
	if fc := cookieOf(res, rest.FlowCookie); fc == nil || fc.MaxAge >= 0 {
		t.Errorf("flow cookie %+v: want it cleared", fc)
	}
	got := s.Do(resttest.Request{Method: "GET", Path: "/auth/session", Header: map[string]string{"Cookie": rest.SessionCookie + "=" + c.Value}})
	user, _ := got.Body["user"].(map[string]any)
	if got.Status != http.StatusOK || user["id"] != u.ID.String() {
		t.Fatalf("session after single sign-on: %d %s", got.Status, got.Raw)
	}

	// A replay of the callback, cookie and all: the flow is finished.
	refusedWith(t, "replayed callback", s.get(t, f.callback, f.cookie), "expired or was used already")
}

// The provider's verified email must be an invited person's.
func TestSingleSignOnRefusesAnEmailWithNoSignIn(t *testing.T) {
	s := newSSOEnv(t, 10*time.Minute)
	f := s.begin(t, &mockoidc.MockUser{Subject: "stranger", Email: "stranger@example.com", EmailVerified: true})
	refusedWith(t, "an email nobody was invited with", s.get(t, f.callback, f.cookie), "has no sign-in here")

	// Nor is an email the provider has not verified good enough, even an
	// invited person's.
	u := s.NewPerson(s.Org.ID, "Una", "Verified", "agent", testPassword)
	f = s.begin(t, &mockoidc.MockUser{Subject: "una", Email: u.Email, EmailVerified: false})
	refusedWith(t, "an unverified email", s.get(t, f.callback, f.cookie), "has not verified the email")
}

// The callback must come to the browser that started the flow, with the
// state of a flow in progress.
func TestSingleSignOnRefusesAnotherBrowsersState(t *testing.T) {
	s := newSSOEnv(t, 10*time.Minute)
	u := s.NewPerson(s.Org.ID, "Bo", "Browser", "advisor", testPassword)
	f := s.begin(t, &mockoidc.MockUser{Subject: "bo", Email: u.Email, EmailVerified: true})

	// Login CSRF: a victim's browser, sent to the attacker's callback URL,
	// holds no flow cookie, or another flow's.
	refusedWith(t, "no flow cookie", s.get(t, f.callback), "not started in this browser")
	refusedWith(t, "another flow's cookie", s.get(t, f.callback, rest.FlowCookie+"=someone-elses-state"), "not started in this browser")

	// A state no flow has, cookie and query agreeing.
	forged := strings.Replace(f.callback, "state="+f.state, "state=forged-state", 1)
	refusedWith(t, "an unknown state", s.get(t, forged, rest.FlowCookie+"=forged-state"), "expired or was used already")

	// The person declined at the provider.
	declined := s.Server.URL + "/auth/oidc/callback?error=access_denied&error_description=" + url.QueryEscape("The user declined") + "&state=" + f.state
	refusedWith(t, "declined at the provider", s.get(t, declined, f.cookie), "the identity provider refused: The user declined")

	// The refusals did not finish the real flow.
	if res := s.get(t, f.callback, f.cookie); res.StatusCode != http.StatusFound || res.Header.Get("Location") != "/console/" {
		t.Fatalf("the flow's own callback: %d to %q, want 302 to /console/", res.StatusCode, res.Header.Get("Location"))
	}
}

// A flow lasts ten minutes; an ID token past its expiry is refused.
func TestSingleSignOnRefusesWhatExpired(t *testing.T) {
	s := newSSOEnv(t, 10*time.Minute)
	u := s.NewPerson(s.Org.ID, "Eve", "Late", "advisor", testPassword)
	f := s.begin(t, &mockoidc.MockUser{Subject: "eve", Email: u.Email, EmailVerified: true})
	s.Clock.Advance(10*time.Minute + time.Second)
	refusedWith(t, "a flow older than ten minutes", s.get(t, f.callback, f.cookie), "expired")

	expired := newSSOEnv(t, -time.Minute)
	u = expired.NewPerson(expired.Org.ID, "Eve", "Late", "advisor", testPassword)
	f = expired.begin(t, &mockoidc.MockUser{Subject: "eve", Email: u.Email, EmailVerified: true})
	refusedWith(t, "an expired ID token", expired.get(t, f.callback, f.cookie), "ID token is not valid")
}

// The ID token must be of this flow (its nonce), and the code is
// exchanged with the flow's PKCE verifier: an authorization request
// changed on its way to the provider signs no one in.
func TestSingleSignOnRefusesAnotherFlowsToken(t *testing.T) {
	s := newSSOEnv(t, 10*time.Minute)
	u := s.NewPerson(s.Org.ID, "Nat", "Nonce", "advisor", testPassword)
	who := &mockoidc.MockUser{Subject: "nat", Email: u.Email, EmailVerified: true}
	f := s.beginTampered(t, who, func(q url.Values) { q.Set("nonce", "an-attackers-nonce") })
	refusedWith(t, "another nonce", s.get(t, f.callback, f.cookie), "not of this sign-in")

	// An attacker's code challenge: the provider refuses the flow's verifier.
	f = s.beginTampered(t, who, func(q url.Values) {
		q.Set("code_challenge", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
	})
	refusedWith(t, "another code challenge", s.get(t, f.callback, f.cookie), "did not accept the code")
}

// The console offers single sign-on exactly when it is configured.
func TestConsoleOffersSingleSignOn(t *testing.T) {
	for _, c := range []struct {
		e    *resttest.Env
		want string
	}{{newSSOEnv(t, time.Minute).Env, `data-sso="true"`}, {resttest.New(t), `data-sso="false"`}} {
		res, err := http.Get(c.e.Server.URL + "/console")
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || !strings.Contains(string(page), c.want) {
			t.Errorf("the console page: %d, want it to carry %s", res.StatusCode, c.want)
		}
	}
}

// Without a provider configured, both routes are 404 in the error
// envelope.
func TestSingleSignOnNotConfigured(t *testing.T) {
	e := resttest.New(t)
	for _, path := range []string{"/auth/oidc/start", "/auth/oidc/callback?code=c&state=s"} {
		r := e.Get(path, "")
		if code, _ := r.Error(); r.Status != http.StatusNotFound || code != apperr.NotFound {
			t.Fatalf("GET %s: %d %s, want 404 NOT_FOUND", path, r.Status, r.Raw)
		}
	}
}
