package rest

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/people"
)

// People sign in at /auth (PRODUCT 9.2): a session cookie for the console,
// beside the API keys integrators send as Bearer.
const (
	// SessionCookie holds a signed-in person's session token.
	SessionCookie = "svc_session"
	// CSRFHeader carries the session's CSRF token on every cookie request
	// that can change anything.
	CSRFHeader = "X-CSRF-Token"
	// DefaultSignInsPerMinute is how many sign-ins one client address may
	// try a minute, through the API's limiter (shared through Redis when
	// set).
	DefaultSignInsPerMinute = 20
)

// authHandlers serve /auth.
type authHandlers struct {
	accounts *people.Accounts
	client   *ent.Client
	// secure sets the cookie's Secure attribute: off only when
	// SVC_INSECURE_COOKIES=true, for plain-HTTP development.
	secure  bool
	limiter *rateLimiter
}

// signInBody is the body of POST /auth/sign-in.
type signInBody struct {
	Email    string `json:"email" doc:"The email the person was invited with."`
	Password string `json:"password" doc:"Their password."`
}

// sessionView is what POST /auth/sign-in and GET /auth/session answer.
type sessionView struct {
	User      sessionUser `json:"user" doc:"The person signed in."`
	CSRFToken string      `json:"csrfToken" doc:"Send it as X-CSRF-Token with every cookie request that can change anything."`
	ExpiresAt time.Time   `json:"expiresAt" doc:"When the session ends if unused: 12 hours after its last use, at most 7 days after the sign-in."`
}

// sessionUser is the signed-in person.
type sessionUser struct {
	ID        string `json:"id" doc:"The user's id."`
	OrgID     string `json:"orgId" doc:"Their organization's id."`
	FirstName string `json:"firstName" doc:"First name."`
	LastName  string `json:"lastName" doc:"Last name."`
	Email     string `json:"email" doc:"Email, which they sign in with."`
	Role      string `json:"role" doc:"Their role, which gives their scopes." enum:"UserRole"`
}

func viewSession(s *people.Session) sessionView {
	u := s.User
	return sessionView{CSRFToken: s.CSRFToken, ExpiresAt: s.ExpiresAt.UTC(), User: sessionUser{
		ID: u.ID.String(), OrgID: u.OrgID.String(), FirstName: u.FirstName, LastName: u.LastName, Email: u.Email, Role: u.Role.String(),
	}}
}

// signIn is POST /auth/sign-in: a new session, whatever cookie the browser
// held (a new token at every sign-in: no fixation).
func (h authHandlers) signIn(w http.ResponseWriter, r *http.Request) error {
	// Login CSRF: another site's form must not sign a browser in to an
	// account of the attacker's choosing.
	if err := fromOwnOrigin(r); err != nil {
		return err
	}
	if h.limiter.signIns.OnLimit(w, r, "signin:"+clientAddress(r)) {
		return apperr.New(apperr.RateLimited, "at most %d sign-ins a minute from one address; retry after %s seconds",
			h.limiter.signInLimit, w.Header().Get("Retry-After"))
	}
	var body signInBody
	if err := decodeBody(r, &body, nil); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(body.Email) == "":
		return apperr.Invalid("email", "is required")
	case body.Password == "":
		return apperr.Invalid("password", "is required")
	}
	s, err := h.accounts.SignIn(r.Context(), h.client, body.Email, body.Password, clientOf(r))
	if err != nil {
		return err
	}
	h.setCookie(w, s.Token, time.Now().Add(h.accounts.Settings().Lifetime))
	writeJSON(w, http.StatusOK, viewSession(&s.Session))
	return nil
}

// session is GET /auth/session: who is signed in, and the CSRF token the
// page needs, which it cannot read from the cookie.
func (h authHandlers) session(w http.ResponseWriter, r *http.Request) error {
	cur := sessionOf(r.Context())
	if cur == nil {
		return noSession(r)
	}
	writeJSON(w, http.StatusOK, viewSession(cur))
	return nil
}

// signOut is POST /auth/sign-out: the session ends on every replica, and
// the cookie is cleared. With no live session it only clears the cookie.
func (h authHandlers) signOut(w http.ResponseWriter, r *http.Request) error {
	if res, ok := r.Context().Value(authKey{}).(authResult); ok && res.session != nil && res.err != nil {
		return res.err // a live session, without its CSRF token
	}
	if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
		if err := h.accounts.SignOut(r.Context(), h.client, c.Value, clientOf(r)); err != nil {
			return err
		}
	}
	h.setCookie(w, "", time.Time{})
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// setCookie sets the session cookie to token until expires, or clears it
// when token is "".
func (h authHandlers) setCookie(w http.ResponseWriter, token string, expires time.Time) {
	c := &http.Cookie{Name: SessionCookie, Value: token, Path: "/", HttpOnly: true, Secure: h.secure,
		SameSite: http.SameSiteLaxMode, Expires: expires}
	if token == "" {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}

// noSession is the 401 of a request that needs a session and holds none.
func noSession(r *http.Request) error {
	if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
		return apperr.New(apperr.Unauthorized, "the session has ended; sign in again")
	}
	return apperr.New(apperr.Unauthorized, "not signed in")
}

// sessionAuth authenticates a request by its session cookie, holding a
// cookie request to the rules a browser's ambient credential needs
// (PRODUCT 9.3): anything that can change something carries the CSRF
// token, and a websocket comes from this service's own origin.
func sessionAuth(r *http.Request, accounts *people.Accounts, client *ent.Client, token string) authResult {
	v, cur, err := accounts.Authenticate(r.Context(), client, token)
	switch {
	case errors.Is(err, people.ErrNoSession):
		return authResult{err: apperr.New(apperr.Unauthorized, "the session has ended; sign in again")}
	case err != nil:
		return authResult{err: err}
	}
	res := authResult{viewer: v, session: cur, sessionToken: token}
	switch {
	case isWebsocket(r):
		if err := fromOwnOrigin(r); err != nil {
			res.err = apperr.New(apperr.Forbidden, "a websocket opened with the session cookie must come from this service's own origin")
		}
	case changes(r) && !cur.ValidCSRF(r.Header.Get(CSRFHeader)):
		res.err = apperr.New(apperr.Forbidden, "CSRF check failed: a request signed in with the session cookie that can change anything must carry the session's %s", CSRFHeader)
	}
	return res
}

// changes reports whether r may change anything: any method but GET, HEAD
// and OPTIONS. Every GraphQL request over HTTP POST counts, mutations and
// multipart uploads included.
func changes(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

func isWebsocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// fromOwnOrigin refuses a request a browser sent from another origin: its
// Origin header, when present, must name this service's host. A request
// without one is not a browser's cross-site request.
func fromOwnOrigin(r *http.Request) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !strings.EqualFold(u.Host, r.Host) {
		return apperr.New(apperr.Forbidden, "the request comes from another origin (%s)", apperr.Quote(origin))
	}
	return nil
}

// sessionOf is the live session the request's cookie names, nil for none.
func sessionOf(ctx context.Context) *people.Session {
	res, _ := ctx.Value(authKey{}).(authResult)
	return res.session
}

// clientOf is what a sign-in records of where it came from.
func clientOf(r *http.Request) people.Client {
	return people.Client{IP: clientAddress(r), UserAgent: r.UserAgent()}
}
