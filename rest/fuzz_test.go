package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/lendingpipe/svc/internal/password"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/people"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
)

// fuzzCall sends one request and fails on a 500, a body that is not JSON,
// or a lost connection: bad input is the caller's error, never ours.
func fuzzCall(t *testing.T, e *resttest.Env, method, path string, header map[string]string, body []byte) int {
	status, _ := fuzzDo(t, e, method, path, header, body)
	return status
}

// fuzzDo is fuzzCall answering the body too.
func fuzzDo(tb testing.TB, e *resttest.Env, method, path string, header map[string]string, body []byte) (int, []byte) {
	tb.Helper()
	req, err := http.NewRequest(method, e.Server.URL+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil // not a request any client could send
	}
	req.Header.Set("Authorization", "Bearer "+e.Key)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = []string{v}
	}
	resp, err := e.Server.Client().Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 500 {
		tb.Fatalf("%s %s with %q: %d %s", method, path, body, resp.StatusCode, raw)
	}
	if !json.Valid(raw) {
		tb.Fatalf("%s %s: the answer is not JSON: %q", method, path, raw)
	}
	return resp.StatusCode, raw
}

// Any body for POST /v1/leads and PATCH /v1/leads/{id}: decoding and the
// lead rules answer 2xx or 4xx, never 500.
func FuzzLeadBody(f *testing.F) {
	e := resttest.New(f)
	id := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Fuzzed"}).Data()["id"].(string)
	for _, seed := range []string{`{}`, `{"businessName":"Acme <b>","email":"a@b.co","tags":["x"]}`,
		`{"monthlyRevenue":"1e9","customFields":{"a":{"b":[1]}},"externalIds":{"crm":7}}`, `[]`, `{"priority":null}`,
		`{"businessName":"\u0000"}`, `{"stageId":"not-a-uuid"}`, `{"tags":[` + `"t",` + `"u"]}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzCall(t, e, "POST", "/v1/leads", nil, body)
		fuzzCall(t, e, "PATCH", "/v1/leads/"+id, nil, body)
	})
}

// Any body sent to POST /auth/sign-in is answered in the envelope: signed
// in, refused (401, 422, 429) or malformed (400), never 500. The sign-in
// budget is lifted and passwords hashed cheaply, so the fuzzer reaches
// the checks rather than the limits.
func FuzzSignInBody(f *testing.F) {
	cheap := password.Params{Time: 1, MemoryKiB: 8, Threads: 1, SaltLen: 16, KeyLen: 32}
	e := resttest.New(f, func(c *rest.Config) {
		c.SignInsPerMinute = 1 << 30
		c.People = people.New(people.Settings{Password: cheap})
	})
	u := e.NewUser(e.Org.ID, "Fay", "Fuzz", "advisor", "")
	admin := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: e.Org.ID, Scopes: []string{viewer.ScopeAdmin}})
	accounts := people.New(people.Settings{Password: cheap})
	inv, err := accounts.InviteUser(admin, e.DB.Client, u.ID)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := accounts.AcceptInvitation(context.Background(), e.DB.Client, inv.Token, "a long enough passphrase"); err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{`{"email":"` + u.Email + `","password":"a long enough passphrase"}`, `{"email":"` + u.Email + `","password":"wrong"}`,
		`{}`, `[]`, `{"email":7}`, `{"email":"a@b.co","password":"x","extra":1}`, `{"email":"\u0000","password":""}`, `null`,
		`{"email":"` + strings.Repeat("a", 5000) + `@x.co","password":"p"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		code := fuzzCall(t, e, "POST", "/auth/sign-in", nil, body)
		switch code {
		case http.StatusOK, http.StatusBadRequest, http.StatusUnauthorized, http.StatusUnprocessableEntity, http.StatusTooManyRequests:
		default:
			t.Fatalf("sign-in with %q: %d", body, code)
		}
	})
}

// Any Idempotency-Key header: the key is taken or refused with 422, the
// request never fails with 500.
func FuzzIdempotencyKey(f *testing.F) {
	e := resttest.New(f)
	f.Add("k-1")
	f.Add("  spaced  ")
	f.Add("\x7f\x00é")
	f.Fuzz(func(t *testing.T, key string) {
		if strings.ContainsFunc(key, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }) {
			return // no HTTP client can send it; the server's parser refuses it first
		}
		code := fuzzCall(t, e, "POST", "/v1/leads", map[string]string{"Idempotency-Key": key}, []byte(`{"businessName":"Keyed"}`))
		if code != http.StatusCreated && code != http.StatusUnprocessableEntity && code != http.StatusBadRequest {
			t.Fatalf("key %q: %d", key, code)
		}
	})
}

// NUL characters, which PostgreSQL cannot store in text or jsonb, are the
// caller's error on every surface that takes text: 400, nothing written.
func TestNULCharactersRefused(t *testing.T) {
	e := resttest.New(t)
	for _, body := range []string{`{"businessName":"a\u0000b"}`, `{"customFields":{"k\u0000":"v"}}`, `{"tags":["x\u0000"]}`} {
		if r := e.Do(resttest.Request{Method: "POST", Path: "/v1/leads", Key: e.Key, Body: body}); r.Status != http.StatusBadRequest {
			t.Errorf("%s: %d %s", body, r.Status, r.Raw)
		}
	}
	r := e.Do(resttest.Request{Method: "POST", Path: "/v1/dialer/events", Key: e.Key, Body: `{"externalCallId":"c\u0000"}`})
	if r.Status != http.StatusBadRequest {
		t.Errorf("dialer event: %d %s", r.Status, r.Raw)
	}
	if n := e.Get("/v1/leads", e.Key).Meta()["total"]; n != 0.0 {
		t.Errorf("%v leads were written", n)
	}
}

// The NUL rule lives below the surfaces (the ent hook text.RefuseNUL), so
// GraphQL, inbound webhooks and connector forms refuse it too, and nothing
// is stored.
func TestNULCharactersRefusedBelowEverySurface(t *testing.T) {
	t.Run("GraphQL", func(t *testing.T) {
		e := resttest.New(t)
		r := e.Post("/graphql", e.Key, map[string]any{"query": `mutation { createLead(input: {businessName: "a\u0000b"}) { id } }`})
		if !strings.Contains(string(r.Raw), `"BAD_REQUEST"`) || strings.Contains(string(r.Raw), `"createLead":{`) {
			t.Fatalf("GraphQL: %s", r.Raw)
		}
	})
	t.Run("InboundWebhook", func(t *testing.T) {
		f := newInbound(t, map[string]any{"businessName": "$.company"})
		body := `{"company":"Acme\u0000"}`
		r := f.post(body, map[string]string{"X-svc-Signature": rawSig(f.secret, []byte(body))})
		if r.Status != http.StatusBadRequest || f.stored(t) != 0 {
			t.Fatalf("inbound: %d %s, %d stored", r.Status, r.Raw, f.stored(t))
		}
	})
	t.Run("ConnectorForm", func(t *testing.T) {
		f := newConnectorFixture(t)
		r := f.postForm(url.Values{"type": {"call_event"}, "call_id": {"c-nul"}, "agent_id": {f.agent},
			"event_type": {"call_started"}, "timestamp": {"2026-11-22T09:00:00Z"}, "vendor_note": {"x\x00y"}})
		if r.Status != http.StatusBadRequest {
			t.Fatalf("connector form: %d %s", r.Status, r.Raw)
		}
	})
}
