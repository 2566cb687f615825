package rest_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks"
)

type inboundFixture struct {
	e            *resttest.Env
	id, path     string
	secret       string
	requestsPath string
}

func newInbound(t *testing.T, mapping map[string]any) inboundFixture {
	e := resttest.New(t)
	r := e.Post("/v1/inbound-endpoints", e.Key, map[string]any{"name": "Partner CRM", "mapping": mapping})
	mustStatus(t, r, http.StatusCreated)
	id := r.Data()["id"].(string)
	return inboundFixture{e: e, id: id, path: r.Attr("path").(string), secret: r.Attr("secret").(string),
		requestsPath: "/v1/inbound-endpoints/" + id + "/requests"}
}

func rawSig(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

func (f inboundFixture) post(body string, header map[string]string) *resttest.Response {
	return f.e.Do(resttest.Request{Method: "POST", Path: f.path, Body: body, Header: header})
}

func (f inboundFixture) stored(t *testing.T) int {
	t.Helper()
	r := f.e.Get(f.requestsPath, f.e.Key)
	mustStatus(t, r, http.StatusOK)
	return int(r.Meta()["total"].(float64))
}

func TestInboundSignatures(t *testing.T) {
	f := newInbound(t, nil)
	body := `{"lead":{"name":"Acme"}}`
	now := time.Now()
	ts := fmt.Sprint(now.Unix())
	good := map[string]map[string]string{
		"SvcHeaderBare":         {"X-svc-Signature": rawSig(f.secret, []byte(body))},
		"SvcHeaderPrefixed":     {"X-svc-Signature": "sha256=" + rawSig(f.secret, []byte(body))},
		"WebhookHeaderBare":     {"X-Webhook-Signature": rawSig(f.secret, []byte(body))},
		"WebhookHeaderOutbound": {"X-Webhook-Signature": webhooks.Sign(f.secret, now, []byte(body)), "X-Webhook-Timestamp": ts},
		"TimestampBare":         {"X-svc-Signature": strings.TrimPrefix(webhooks.Sign(f.secret, now, []byte(body)), "sha256="), "X-Webhook-Timestamp": ts},
	}
	for name, h := range good {
		t.Run(name, func(t *testing.T) {
			r := f.post(body, h)
			mustStatus(t, r, http.StatusOK)
			if r.Data()["received"] != true || r.Meta()["requestId"] != r.Header.Get("X-Request-Id") {
				t.Errorf("got %s", r.Raw)
			}
		})
	}
	n := f.stored(t)
	stale := fmt.Sprint(now.Add(-301 * time.Second).Unix())
	bad := map[string]map[string]string{
		"Missing":        {},
		"WrongSecret":    {"X-svc-Signature": rawSig("whsec_other", []byte(body))},
		"Tampered":       {"X-svc-Signature": rawSig(f.secret, []byte(`{"lead":{"name":"Evil"}}`))},
		"StaleTimestamp": {"X-Webhook-Signature": webhooks.Sign(f.secret, now.Add(-301*time.Second), []byte(body)), "X-Webhook-Timestamp": stale},
		"NotHex":         {"X-svc-Signature": "zzzz"},
		"BodyOnlyWithTS": {"X-svc-Signature": rawSig(f.secret, []byte(body)), "X-Webhook-Timestamp": ts},
	}
	for name, h := range bad {
		t.Run(name, func(t *testing.T) {
			mustError(t, f.post(body, h), http.StatusUnauthorized, "UNAUTHORIZED", "")
		})
	}
	t.Run("NotJSON", func(t *testing.T) {
		mustError(t, f.post("not json", map[string]string{"X-svc-Signature": rawSig(f.secret, []byte("not json"))}), http.StatusBadRequest, "BAD_REQUEST", "")
	})
	t.Run("TooLarge", func(t *testing.T) {
		big := `{"x":"` + strings.Repeat("a", 1<<20) + `"}`
		mustError(t, f.post(big, map[string]string{"X-svc-Signature": rawSig(f.secret, []byte(big))}), http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", "")
	})
	t.Run("UnknownKey", func(t *testing.T) {
		mustError(t, f.e.Do(resttest.Request{Method: "POST", Path: "/v1/webhooks/inbound/ibk_nope", Body: body,
			Header: map[string]string{"X-svc-Signature": rawSig(f.secret, []byte(body))}}), http.StatusNotFound, "NOT_FOUND", "")
	})
	t.Run("Inactive", func(t *testing.T) {
		mustStatus(t, f.e.Patch("/v1/inbound-endpoints/"+f.id, f.e.Key, map[string]any{"isActive": false}), http.StatusOK)
		mustError(t, f.post(body, good["SvcHeaderBare"]), http.StatusNotFound, "NOT_FOUND", "")
		mustStatus(t, f.e.Patch("/v1/inbound-endpoints/"+f.id, f.e.Key, map[string]any{"isActive": true}), http.StatusOK)
	})
	if got := f.stored(t); got != n {
		t.Errorf("failed requests stored %d rows", got-n)
	}
}

func TestInboundMappingAndDedup(t *testing.T) {
	f := newInbound(t, map[string]any{
		"businessName": "$.company.name",
		"email":        "$.contacts[?@.primary == true].email",
		"phones":       "$.contacts[*].phone",
		"revenue":      "$.company.financials.monthly",
		"missing":      "$.nowhere.at.all",
	})
	body := `{"company":{"name":"Nested LLC","financials":{"monthly":"42000"}},
		"contacts":[{"email":"a@nested.example","phone":"+1555001","primary":false},{"email":"b@nested.example","phone":"+1555002","primary":true}]}`
	h := map[string]string{"X-svc-Signature": rawSig(f.secret, []byte(body)), "X-Webhook-Id": "partner-42"}
	mustStatus(t, f.post(body, h), http.StatusOK)
	mustStatus(t, f.post(body, h), http.StatusOK) // a retry by the partner
	r := f.e.Get(f.requestsPath, f.e.Key)
	mustStatus(t, r, http.StatusOK)
	if len(r.Items()) != 1 {
		t.Fatalf("stored %d requests, want 1 (deduplicated by X-Webhook-Id)", len(r.Items()))
	}
	a := r.Items()[0]["attributes"].(map[string]any)
	mapped := a["mapped"].(map[string]any)
	if mapped["businessName"] != "Nested LLC" || mapped["email"] != "b@nested.example" || mapped["revenue"] != "42000" {
		t.Errorf("mapped = %v", mapped)
	}
	if phones, _ := mapped["phones"].([]any); len(phones) != 2 {
		t.Errorf("phones = %v", mapped["phones"])
	}
	if _, ok := mapped["missing"]; ok {
		t.Errorf("a missing path was set: %v", mapped["missing"])
	}
	if a["webhookId"] != "partner-42" || a["signatureValid"] != true || a["status"] != "processed" {
		t.Errorf("log = %v", a)
	}
	// After the window the same id is a new request.
	f.e.Clock.Advance(25 * time.Hour)
	h["X-svc-Signature"] = rawSig(f.secret, []byte(body))
	mustStatus(t, f.post(body, h), http.StatusOK)
	if got := f.stored(t); got != 2 {
		t.Errorf("after 25 h: %d stored, want 2", got)
	}
}

func TestInboundManagement(t *testing.T) {
	f := newInbound(t, map[string]any{"businessName": "$.name"})
	e := f.e
	list := e.Get("/v1/inbound-endpoints", e.Key)
	mustStatus(t, list, http.StatusOK)
	if list.Meta()["total"] != 1.0 || strings.Contains(string(list.Raw), f.secret) {
		t.Errorf("list = %s", list.Raw)
	}
	mustError(t, e.Post("/v1/inbound-endpoints", e.Key, map[string]any{"name": "Bad", "mapping": map[string]any{"email": "$.contacts[?"}}),
		http.StatusUnprocessableEntity, "VALIDATION_ERROR", "mapping.email")
	mustError(t, e.Patch("/v1/inbound-endpoints/"+f.id, e.Key, map[string]any{"mapping": map[string]any{"x": 5}}),
		http.StatusUnprocessableEntity, "VALIDATION_ERROR", "mapping.x")
	mustError(t, e.Post("/v1/inbound-endpoints", e.Key, map[string]any{"mapping": map[string]any{}}), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "name")
	notAdmin := e.NewKey(e.Org.ID, viewer.ScopeLeadsWrite, viewer.ScopeWebhooksManage)
	mustError(t, e.Get("/v1/inbound-endpoints", notAdmin), http.StatusForbidden, "FORBIDDEN", "")
	mustError(t, e.Post("/v1/inbound-endpoints", notAdmin, map[string]any{"name": "X"}), http.StatusForbidden, "FORBIDDEN", "")
	_, otherKey := e.NewOrg("Other", viewer.AllScopes...)
	mustError(t, e.Get(f.requestsPath, otherKey), http.StatusNotFound, "NOT_FOUND", "")
	mustError(t, e.Patch("/v1/inbound-endpoints/"+f.id, otherKey, map[string]any{"isActive": false}), http.StatusNotFound, "NOT_FOUND", "")
	r := e.Do(resttest.Request{Method: "DELETE", Path: "/v1/inbound-endpoints/" + f.id, Key: e.Key})
	if r.Status != http.StatusNoContent {
		t.Fatalf("delete = %d %s", r.Status, r.Raw)
	}
	body := `{"name":"gone"}`
	mustError(t, f.post(body, map[string]string{"X-svc-Signature": rawSig(f.secret, []byte(body))}), http.StatusNotFound, "NOT_FOUND", "")
}

// TestInboundReplayIsAcknowledgedNotRerun: a signature seen within the
// dedup window is a replay of the same signed bytes, acknowledged 200
// without running the endpoint's automations again, whatever X-Webhook-Id
// or spelling of the signature it comes with. A new timestamp is a new
// signature, and the window ends.
func TestInboundReplayIsAcknowledgedNotRerun(t *testing.T) {
	e := resttest.New(t)
	body := []byte(`{"name":"Replay Bakery"}`)
	bare := func(secret string) map[string]string {
		return map[string]string{"X-svc-Signature": rawSig(secret, body)}
	}
	// Each case signs against one instant, so two sends of a case never
	// straddle a second boundary and differ in their timestamp.
	var base time.Time
	stamped := func(ago time.Duration) func(string) map[string]string {
		return func(secret string) map[string]string {
			at := base.Add(-ago)
			return map[string]string{"X-Webhook-Signature": webhooks.Sign(secret, at, body), "X-Webhook-Timestamp": fmt.Sprint(at.Unix())}
		}
	}
	withID := func(id string, sign func(string) map[string]string) func(string) map[string]string {
		return func(secret string) map[string]string {
			h := sign(secret)
			h["X-Webhook-Id"] = id
			return h
		}
	}
	respelt := func(secret string) map[string]string {
		return map[string]string{"X-Webhook-Signature": "sha256=" + strings.ToUpper(rawSig(secret, body)), "X-Webhook-Id": "b"}
	}
	cases := []struct {
		name    string
		sends   []func(secret string) map[string]string
		advance time.Duration // before the last send
		runs    int
	}{
		{"BodyOnlyTwice", []func(string) map[string]string{bare, bare}, 0, 1},
		{"BodyOnlyNewIDAndSpelling", []func(string) map[string]string{withID("a", bare), respelt}, 0, 1},
		{"TimestampedReplay", []func(string) map[string]string{stamped(0), stamped(0)}, 0, 1},
		{"NewTimestamp", []func(string) map[string]string{stamped(0), stamped(10 * time.Second)}, 0, 2},
		{"AfterTheWindow", []func(string) map[string]string{bare, bare}, 25 * time.Hour, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base = e.Clock.Now()
			ep := e.Post("/v1/inbound-endpoints", e.Key, map[string]any{"name": c.name, "mapping": map[string]any{"businessName": "$.name"}})
			mustStatus(t, ep, http.StatusCreated)
			id := ep.Data()["id"].(string)
			f := inboundFixture{e: e, id: id, path: ep.Attr("path").(string), secret: ep.Attr("secret").(string),
				requestsPath: "/v1/inbound-endpoints/" + id + "/requests"}
			auto := automate(t, e, map[string]any{"name": c.name, "trigger": map[string]any{"endpointId": id},
				"actions": []map[string]any{{"type": "create_lead"}}})
			for i, sign := range c.sends {
				if i == len(c.sends)-1 {
					e.Clock.Advance(c.advance)
				}
				mustStatus(t, f.post(string(body), sign(f.secret)), http.StatusOK)
			}
			settle(t, e, auto, c.runs)
			if got := f.stored(t); got != c.runs {
				t.Errorf("stored %d requests, want %d", got, c.runs)
			}
		})
	}
}

// Replays racing in on separate connections store one request between them
// (a unique index decides), and every one is acknowledged.
func TestInboundConcurrentReplays(t *testing.T) {
	f := newInbound(t, nil)
	body := `{"name":"Racing Bakery"}`
	sig := rawSig(f.secret, []byte(body))
	var wg sync.WaitGroup
	statuses := make([]int, 8)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", f.e.Server.URL+f.path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-svc-Signature", sig)
			req.Header.Set("X-Webhook-Id", fmt.Sprint("race-", i)) // a replayer may change the unsigned id
			resp, err := f.e.Server.Client().Do(req)
			if err != nil {
				return
			}
			resp.Body.Close()
			statuses[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	for i, s := range statuses {
		if s != http.StatusOK {
			t.Errorf("request %d: status %d, want 200", i, s)
		}
	}
	if got := f.stored(t); got != 1 {
		t.Errorf("stored %d requests, want 1", got)
	}
}
