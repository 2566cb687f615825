// Package resttest runs the whole HTTP surface on a real listener over a real
// database for tests, with helpers to make organizations, keys and calls.
//
// It is imported by tests only, and may import every package it starts.
package resttest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/people"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/root"
	"github.com/lendingpipe/svc/webhooks/autorun"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

// Env is a running server and its database.
type Env struct {
	T      testing.TB
	DB     *store.DB
	Server *httptest.Server
	Clock  *Clock
	// Org is an organization with Key, a key holding every scope.
	Org *ent.Organization
	Key string
}

// Option adjusts the server's configuration.
type Option func(*rest.Config)

// New starts a server over a fresh database.
func New(tb testing.TB, opts ...Option) *Env {
	tb.Helper()
	return start(tb, storetest.Open(tb), opts)
}

// NewWithFiles is New with the file store filesURL names (an S3 bucket,
// say) instead of a temporary directory.
func NewWithFiles(tb testing.TB, filesURL string, opts ...Option) *Env {
	tb.Helper()
	return start(tb, storetest.OpenWithFiles(tb, filesURL), opts)
}

func start(tb testing.TB, db *store.DB, opts []Option) *Env {
	tb.Helper()
	clock := &Clock{}
	hooks := webhookstest.Config()
	cfg := rest.Config{RateLimit: 100000, RateWindow: time.Minute, MaxBodyBytes: 1 << 20, Version: "test", Now: clock.Now, Webhooks: hooks}
	for _, o := range opts {
		o(&cfg)
	}
	// Warnings and errors (500s with their cause) go to the test's log.
	var logOut io.Writer = testLog{tb}
	if _, fuzz := tb.(*testing.F); fuzz {
		logOut = os.Stderr // F may not log from inside the fuzz target
	}
	logger := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := httptest.NewServer(checked(tb, root.Handler(cfg, db, logger)))
	tb.Cleanup(srv.Close)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		autorun.Background(ctx, db, cfg.Webhooks, clock.Now, logger)
		close(done)
	}()
	tb.Cleanup(func() { stop(); <-done })
	e := &Env{T: tb, DB: db, Server: srv, Clock: clock}
	e.Org, e.Key = e.NewOrg("Acme Brokers", viewer.AllScopes...)
	return e
}

// checked wraps the server in the OpenAPI conformance check, so that every
// exchange of every REST test is held to the served document. Benchmarks
// measure the server alone.
func checked(tb testing.TB, h http.Handler) http.Handler {
	switch tb.(type) {
	case *testing.B, *testing.F:
		// Fuzz targets check their own exchanges: F may not report from
		// inside the target.
		return h
	}
	conf, err := StrictConformance()
	if err != nil {
		tb.Fatalf("loading the OpenAPI document: %v", err)
	}
	return conf.Wrap(h, func(err error) { tb.Errorf("OpenAPI conformance: %v", err) })
}

// NewOrg creates an organization and a key for it with scopes.
func (e *Env) NewOrg(name string, scopes ...string) (*ent.Organization, string) {
	e.T.Helper()
	return OrgWithKey(e.T, e.DB, name, scopes...)
}

// OrgWithKey creates an organization in db and a key for it with scopes,
// for tests and benchmarks that run their own servers over db.
func OrgWithKey(tb testing.TB, db *store.DB, name string, scopes ...string) (*ent.Organization, string) {
	tb.Helper()
	org, _, err := store.CreateOrganization(context.Background(), db.Client, name)
	if err != nil {
		tb.Fatalf("creating org: %v", err)
	}
	key, _, err := store.CreateAPIKey(context.Background(), db.Client, org.ID, "live", "test", scopes)
	if err != nil {
		tb.Fatalf("creating key: %v", err)
	}
	return org, key
}

// NewKey creates a key for orgID with scopes.
func (e *Env) NewKey(orgID uuid.UUID, scopes ...string) string {
	e.T.Helper()
	key, _, err := store.CreateAPIKey(context.Background(), e.DB.Client, orgID, "live", "test", scopes)
	if err != nil {
		e.T.Fatalf("creating key: %v", err)
	}
	return key
}

// NewUser creates a user of orgID.
func (e *Env) NewUser(orgID uuid.UUID, first, last, role, team string) *ent.User {
	e.T.Helper()
	u, err := store.CreateUser(context.Background(), e.DB.Client, store.UserSpec{
		OrgID: orgID, First: first, Last: last, Email: strings.ToLower(first + "." + last + "@example.com"), Role: role, Team: team,
	})
	if err != nil {
		e.T.Fatalf("creating user: %v", err)
	}
	return u
}

// Stages returns orgID's pipeline stages in order.
func (e *Env) Stages(orgID uuid.UUID) []*ent.PipelineStage {
	e.T.Helper()
	stages, err := e.DB.Client.PipelineStage.Query().
		Where(pipelinestage.OrgID(orgID)).Order(pipelinestage.ByPosition()).
		All(rule.SystemContext(context.Background()))
	if err != nil {
		e.T.Fatalf("listing stages: %v", err)
	}
	return stages
}

// Response is a decoded response.
type Response struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any
}

// Request describes a call.
type Request struct {
	Method, Path, Key string
	Body              any // marshalled to JSON unless a string or []byte
	// Header is set on the request: a body is sent with Content-Type
	// application/json unless Header says otherwise, or Omit names it.
	Header map[string]string
	Omit   []string // headers to leave out
}

// Do makes a call and decodes its JSON body.
func (e *Env) Do(req Request) *Response {
	e.T.Helper()
	out := e.DoRaw(req)
	if len(out.Raw) > 0 {
		if err := json.Unmarshal(out.Raw, &out.Body); err != nil {
			e.T.Fatalf("%s %s: response is not a JSON object: %v\n%s", req.Method, req.Path, err, out.Raw)
		}
	}
	return out
}

// DoRaw makes a call and keeps its body as it came (a download's bytes).
func (e *Env) DoRaw(req Request) *Response {
	e.T.Helper()
	var body io.Reader
	switch b := req.Body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			e.T.Fatalf("encoding body: %v", err)
		}
		body = bytes.NewReader(raw)
	}
	r, err := http.NewRequest(req.Method, e.Server.URL+req.Path, body)
	if err != nil {
		e.T.Fatalf("building request: %v", err)
	}
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	if req.Key != "" {
		r.Header.Set("Authorization", "Bearer "+req.Key)
	}
	for k, v := range req.Header {
		r.Header.Set(k, v)
	}
	for _, k := range req.Omit {
		r.Header.Del(k)
	}
	resp, err := e.Server.Client().Do(r)
	if err != nil {
		e.T.Fatalf("%s %s: %v", req.Method, req.Path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		e.T.Fatalf("reading response: %v", err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
}

// Get, Post and Patch are shorthands for Do.
func (e *Env) Get(path, key string) *Response {
	return e.Do(Request{Method: "GET", Path: path, Key: key})
}

func (e *Env) Post(path, key string, body any) *Response {
	return e.Do(Request{Method: "POST", Path: path, Key: key, Body: body})
}

func (e *Env) Patch(path, key string, body any) *Response {
	return e.Do(Request{Method: "PATCH", Path: path, Key: key, Body: body})
}

// Data is the response's data object.
func (r *Response) Data() map[string]any {
	d, _ := r.Body["data"].(map[string]any)
	return d
}

// Attr is one attribute of a single-resource response.
func (r *Response) Attr(name string) any {
	a, _ := r.Data()["attributes"].(map[string]any)
	return a[name]
}

// Items is the data array of a collection response.
func (r *Response) Items() []map[string]any {
	list, _ := r.Body["data"].([]any)
	out := make([]map[string]any, len(list))
	for i, it := range list {
		out[i], _ = it.(map[string]any)
	}
	return out
}

// Meta is the response's meta object.
func (r *Response) Meta() map[string]any {
	m, _ := r.Body["meta"].(map[string]any)
	return m
}

// Error returns the code and field of the first error: code and
// detail.field in the REST envelope, extensions.code and extensions.field
// in a GraphQL answer.
func (r *Response) Error() (code, field string) {
	errs, _ := r.Body["errors"].([]any)
	if len(errs) == 0 {
		return "", ""
	}
	e, _ := errs[0].(map[string]any)
	if ext, ok := e["extensions"].(map[string]any); ok {
		code, _ = ext["code"].(string)
		field, _ = ext["field"].(string)
		return code, field
	}
	code, _ = e["code"].(string)
	detail, _ := e["detail"].(map[string]any)
	field, _ = detail["field"].(string)
	return code, field
}

// Clock is a settable clock for the server.
type Clock struct {
	mu    sync.Mutex
	off   time.Duration
	fixed time.Time // when set, the clock stands still there
}

// Now is the real time, or the time set by Set, plus the offset set by Advance.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.fixed.IsZero() {
		return c.fixed.Add(c.off)
	}
	return time.Now().Add(c.off)
}

// Set stops the clock at t (until Advance moves it on); the zero time
// starts it again.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fixed, c.off = t, 0
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off += d
}

// testLog writes server logs into the test's output.
type testLog struct{ tb testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.tb.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// NewPerson creates a user of orgID who signs in with password: invited
// and accepted through the sign-in flows, as an admin and the person would.
func (e *Env) NewPerson(orgID uuid.UUID, first, last, role, password string) *ent.User {
	e.T.Helper()
	u := e.NewUser(orgID, first, last, role, "")
	accounts := people.New(people.Settings{})
	admin := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: orgID, Scopes: []string{viewer.ScopeAdmin}})
	inv, err := accounts.InviteUser(admin, e.DB.Client, u.ID)
	if err != nil {
		e.T.Fatalf("inviting %s: %v", u.Email, err)
	}
	if u, err = accounts.AcceptInvitation(context.Background(), e.DB.Client, inv.Token, password); err != nil {
		e.T.Fatalf("accepting %s's invitation: %v", u.Email, err)
	}
	return u
}

// Session is a person signed in through POST /auth/sign-in: the cookie
// header that carries it, and its CSRF token.
type Session struct {
	Cookie, CSRF string
}

// SignIn signs email in with password and returns the session.
func (e *Env) SignIn(email, password string) Session {
	e.T.Helper()
	res := e.Post("/auth/sign-in", "", map[string]string{"email": email, "password": password})
	if res.Status != http.StatusOK {
		e.T.Fatalf("signing in %s: %d %s", email, res.Status, res.Raw)
	}
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		if c.Name == rest.SessionCookie {
			csrf, _ := res.Body["csrfToken"].(string)
			return Session{Cookie: c.Name + "=" + c.Value, CSRF: csrf}
		}
	}
	e.T.Fatalf("signing in %s: no session cookie set", email)
	return Session{}
}

// Header is what a request made with the session sends: the cookie, and
// the CSRF token when withCSRF.
func (s Session) Header(withCSRF bool) map[string]string {
	h := map[string]string{"Cookie": s.Cookie}
	if withCSRF {
		h[rest.CSRFHeader] = s.CSRF
	}
	return h
}
