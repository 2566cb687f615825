package rest

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/people"
)

// Single sign-on (PRODUCT 9.6): the OpenID Connect authorization code flow
// with PKCE, a state and a nonce. The flow is kept in the database (any
// replica finishes it, once) and bound to the browser that started it by
// the svc_oidc cookie, so another site cannot finish a flow of its own in
// a victim's browser and sign it in as the attacker (login CSRF).
const (
	// FlowCookie holds the state of the single sign-on the browser started.
	FlowCookie = "svc_oidc"
	// oidcPath is where the flow's routes live, and its cookie's path.
	oidcPath = "/auth/oidc"
	// CallbackPath is the redirect URL's path, under the service's base
	// URL: the one to register with the provider.
	CallbackPath = oidcPath + "/callback"
	// signedInPath is where a browser goes once signed in, and
	// signInPagePath where it goes when refused, the message in error.
	signedInPath   = "/console/"
	signInPagePath = "/console/#/sign-in"
	// providerTimeout bounds each call to the provider: discovery, its
	// keys and the code's exchange.
	providerTimeout = 10 * time.Second
)

// OIDCConfig is the OpenID provider people sign in through; all three are
// required (SVC_OIDC_ISSUER, SVC_OIDC_CLIENT_ID, SVC_OIDC_CLIENT_SECRET).
type OIDCConfig struct {
	// Issuer is the provider's issuer URL, exactly as its discovery
	// document names it.
	Issuer       string
	ClientID     string
	ClientSecret string
}

// oidcHandlers serve /auth/oidc. Without a provider configured both
// routes answer 404.
type oidcHandlers struct {
	auth      authHandlers
	cfg       *OIDCConfig
	publicURL string
	provider  *oidcProvider
}

func newOIDCHandlers(auth authHandlers, cfg *OIDCConfig, publicURL string) oidcHandlers {
	h := oidcHandlers{auth: auth, cfg: cfg, publicURL: strings.TrimSuffix(publicURL, "/")}
	if cfg != nil {
		h.provider = &oidcProvider{cfg: *cfg, client: &http.Client{Timeout: providerTimeout}}
	}
	return h
}

// start is GET /auth/oidc/start: the browser is sent to the provider.
func (h oidcHandlers) start(w http.ResponseWriter, r *http.Request) error {
	if h.provider == nil {
		return notConfigured()
	}
	p, err := h.provider.get(r.Context())
	if err != nil {
		logger(r.Context()).WarnContext(r.Context(), "single sign-on: reaching the provider", "err", err)
		h.refuse(w, r, "single sign-on is unavailable: the identity provider did not answer; try again later")
		return nil
	}
	verifier := oauth2.GenerateVerifier()
	flow, err := people.BeginFlow(r.Context(), h.auth.client, verifier)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: FlowCookie, Value: flow.State, Path: oidcPath, HttpOnly: true, Secure: h.auth.secure,
		SameSite: http.SameSiteLaxMode, MaxAge: int(people.FlowTTL / time.Second)})
	dest := h.oauth(p, r).AuthCodeURL(flow.State, oauth2.S256ChallengeOption(verifier), oidc.Nonce(flow.Nonce))
	http.Redirect(w, r, dest, http.StatusFound)
	return nil
}

// callback is GET /auth/oidc/callback: the provider sends the browser back
// with a code and the state. Every refusal sends it to the console's
// sign-in page saying why (a browser is at the other end, not a client of
// the API) and logs the cause.
func (h oidcHandlers) callback(w http.ResponseWriter, r *http.Request) error {
	if h.provider == nil {
		return notConfigured()
	}
	// The flow cookie serves one callback, whatever its outcome.
	http.SetCookie(w, &http.Cookie{Name: FlowCookie, Path: oidcPath, HttpOnly: true, Secure: h.auth.secure,
		SameSite: http.SameSiteLaxMode, MaxAge: -1})
	email, err := h.verify(r)
	if err != nil {
		var refusal ssoRefusal
		if !errors.As(err, &refusal) {
			logger(r.Context()).ErrorContext(r.Context(), "single sign-on failed", "err", err)
			h.refuse(w, r, "single sign-on failed; try again")
			return nil
		}
		logger(r.Context()).WarnContext(r.Context(), "single sign-on refused", "reason", refusal.msg, "err", refusal.cause)
		h.refuse(w, r, refusal.msg)
		return nil
	}
	s, err := h.auth.accounts.SignInVerifiedEmail(r.Context(), h.auth.client, email, clientOf(r))
	if err != nil {
		if ae, ok := apperr.As(err); ok && ae.Code == apperr.Forbidden {
			logger(r.Context()).WarnContext(r.Context(), "single sign-on refused", "reason", ae.Message)
			h.refuse(w, r, ae.Message)
			return nil
		}
		logger(r.Context()).ErrorContext(r.Context(), "single sign-on: signing in", "err", err)
		h.refuse(w, r, "single sign-on failed; try again")
		return nil
	}
	h.auth.setCookie(w, s.Token, time.Now().Add(h.auth.accounts.Settings().Lifetime))
	http.Redirect(w, r, signedInPath, http.StatusFound)
	return nil
}

// ssoRefusal is a callback refused for what it carries, with the short
// text the person reads; anything else is a failure of the service's own.
type ssoRefusal struct {
	msg   string
	cause error
}

func (e ssoRefusal) Error() string { return e.msg }

func refused(cause error, format string, args ...any) error {
	return ssoRefusal{msg: "single sign-on failed: " + fmt.Sprintf(format, args...), cause: cause}
}

// verify checks the callback, in order: the browser started this flow, the
// flow is in progress (and is now finished), the provider gives tokens for
// the code and the verifier, and the ID token is the provider's, for this
// client, unexpired, of this flow (nonce), with a verified email, which it
// answers.
func (h oidcHandlers) verify(r *http.Request) (string, error) {
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		if d := q.Get("error_description"); d != "" {
			e = d
		}
		return "", refused(nil, "the identity provider refused: %s", apperr.Cut(e))
	}
	state, code := q.Get("state"), q.Get("code")
	if state == "" || code == "" {
		return "", refused(nil, "the identity provider's answer lacks the code or the state; try again")
	}
	c, err := r.Cookie(FlowCookie)
	if err != nil || subtle.ConstantTimeCompare([]byte(c.Value), []byte(state)) != 1 {
		return "", refused(err, "it was not started in this browser, or took too long; try again")
	}
	flow, err := people.TakeFlow(r.Context(), h.auth.client, state)
	switch {
	case errors.Is(err, people.ErrNoFlow):
		return "", refused(err, "the sign-in link expired or was used already; try again")
	case err != nil:
		return "", err
	}
	p, err := h.provider.get(r.Context())
	if err != nil {
		return "", refused(err, "the identity provider did not answer; try again later")
	}
	ctx, cancel := context.WithTimeout(r.Context(), providerTimeout)
	defer cancel()
	tok, err := h.oauth(p, r).Exchange(context.WithValue(ctx, oauth2.HTTPClient, h.provider.client), code, oauth2.VerifierOption(flow.Verifier))
	if err != nil {
		return "", refused(err, "the identity provider did not accept the code; try again")
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok || raw == "" {
		return "", refused(nil, "the identity provider sent no ID token")
	}
	idToken, err := p.verifier.Verify(ctx, raw)
	if err != nil {
		return "", refused(err, "the identity provider's ID token is not valid (expired, or not for this service); try again")
	}
	if subtle.ConstantTimeCompare([]byte(idToken.Nonce), []byte(flow.Nonce)) != 1 {
		return "", refused(nil, "the ID token is not of this sign-in; try again")
	}
	var claims struct {
		Email         string `json:"email"`
		EmailVerified any    `json:"email_verified"`
	}
	if err := idToken.Claims(&claims); err != nil {
		return "", refused(err, "the ID token's claims are unreadable")
	}
	if claims.Email == "" {
		return "", refused(nil, "the identity provider gave no email; it must grant the email scope")
	}
	// A few providers send the flag as a string.
	if v := claims.EmailVerified; v != true && v != "true" {
		return "", refused(nil, "the identity provider has not verified the email %s", apperr.Quote(claims.Email))
	}
	return claims.Email, nil
}

// oauth is the OAuth 2 client of the flow, its redirect URL on this
// service's base URL.
func (h oidcHandlers) oauth(p *discovered, r *http.Request) *oauth2.Config {
	return &oauth2.Config{ClientID: h.cfg.ClientID, ClientSecret: h.cfg.ClientSecret, Endpoint: p.endpoint,
		RedirectURL: h.baseURL(r) + CallbackPath, Scopes: []string{oidc.ScopeOpenID, "email"}}
}

// baseURL is SVC_PUBLIC_URL, or else the request's own scheme and host:
// right for a server reached directly, wrong behind a proxy that ends TLS
// or rewrites the host, which is why production sets SVC_PUBLIC_URL.
func (h oidcHandlers) baseURL(r *http.Request) string {
	if h.publicURL != "" {
		return h.publicURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// refuse sends the browser to the console's sign-in page with msg.
func (h oidcHandlers) refuse(w http.ResponseWriter, r *http.Request, msg string) {
	http.Redirect(w, r, signInPagePath+"?error="+url.QueryEscape(msg), http.StatusFound)
}

func notConfigured() error {
	return apperr.New(apperr.NotFound, "single sign-on is not configured (SVC_OIDC_ISSUER)")
}

// oidcProvider discovers the provider at its first use and keeps it, with
// the verifier that caches its signing keys. A failed discovery is tried
// again at the next sign-in: the provider may be down at the server's
// start.
type oidcProvider struct {
	cfg    OIDCConfig
	client *http.Client

	mu   sync.Mutex
	done *discovered
}

// discovered is the provider's endpoints and the ID token verifier.
type discovered struct {
	endpoint oauth2.Endpoint
	verifier *oidc.IDTokenVerifier
}

func (p *oidcProvider) get(ctx context.Context) (*discovered, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done != nil {
		return p.done, nil
	}
	pctx := oidc.ClientContext(ctx, p.client)
	pctx, cancel := context.WithTimeout(pctx, providerTimeout)
	defer cancel()
	provider, err := oidc.NewProvider(pctx, p.cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("discovering the OpenID provider %s: %w", p.cfg.Issuer, err)
	}
	// The verifier checks the signature with the provider's keys (fetched
	// through p.client, cached, fetched again when a token names a key it
	// lacks), the issuer, the audience (this client) and the expiry.
	p.done = &discovered{endpoint: provider.Endpoint(), verifier: provider.Verifier(&oidc.Config{ClientID: p.cfg.ClientID})}
	return p.done, nil
}
