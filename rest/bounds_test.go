package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/lendingpipe/svc/rest/resttest"
)

// TestDuplicateMembersRefused sends bodies that repeat a member name, at
// the top or nested, to every kind of JSON body the API decodes: each is
// 400 naming the member, and nothing is written.
func TestDuplicateMembersRefused(t *testing.T) {
	f := newDialerFixture(t)
	e := f.e
	in := newInboundOn(t, e)
	event := `"externalCallId":"dup-1","userId":"` + f.agent + `","eventType":"call_started","occurredAt":"2026-11-22T10:00:00Z"`
	cases := []struct {
		name, method, path, key, body, field string
	}{
		{"LeadTop", "POST", "/v1/leads", e.Key, `{"businessName":"A","businessName":"B"}`, "businessName"},
		{"LeadNested", "POST", "/v1/leads", e.Key, `{"businessName":"A","customFields":{"x":1,"y":{"z":1,"z":2}}}`, "customFields.y.z"},
		{"LeadPatch", "PATCH", "/v1/leads/" + f.leadID, e.Key, `{"industry":"A","industry":"B"}`, "industry"},
		{"LeadStage", "POST", "/v1/leads/" + f.leadID + "/stage", e.Key, `{"stageId":"x","stageId":"y"}`, "stageId"},
		{"DialerEvent", "POST", "/v1/dialer/events", f.dialer, `{` + event + `,"metadata":{"q":1,"q":1}}`, "metadata.q"},
		{"Presence", "POST", "/v1/dialer/presence", f.dialer, `{"userId":"` + f.agent + `","status":"online","status":"offline"}`, "status"},
		{"Subscription", "POST", "/v1/app-webhooks", e.Key, `{"url":"https://a.example/h","events":["*"],"url":"https://b.example/h"}`, "url"},
		{"Endpoint", "POST", "/v1/inbound-endpoints", e.Key, `{"name":"P","mapping":{"email":"$.a","email":"$.b"}}`, "mapping.email"},
		{"Automation", "POST", "/v1/automations", e.Key, `{"name":"A","trigger":{"event":"lead.created"},"actions":[{"type":"add_tags","tags":["x"],"type":"create_lead"}]}`, "actions[0].type"},
		{"InboundPayload", "POST", in.path, "", `{"lead":{"name":"A","name":"B"}}`, "lead.name"},
	}
	before := leadTotal(t, e, e.Key)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := map[string]string{}
			if c.key == "" {
				h["X-svc-Signature"] = rawSig(in.secret, []byte(c.body))
			}
			r := e.Do(resttest.Request{Method: c.method, Path: c.path, Key: c.key, Body: c.body, Header: h})
			mustError(t, r, http.StatusBadRequest, "BAD_REQUEST", c.field)
		})
	}
	if n := leadTotal(t, e, e.Key); n != before {
		t.Errorf("refused bodies created %v leads", n-before)
	}
	if n := in.stored(t); n != 0 {
		t.Errorf("a refused inbound payload was stored (%d)", n)
	}
}

// newInboundOn creates an inbound endpoint in e's organization.
func newInboundOn(t *testing.T, e *resttest.Env) inboundFixture {
	t.Helper()
	r := e.Post("/v1/inbound-endpoints", e.Key, map[string]any{"name": "Partner CRM"})
	mustStatus(t, r, http.StatusCreated)
	id := r.Data()["id"].(string)
	return inboundFixture{e: e, id: id, path: r.Attr("path").(string), secret: r.Attr("secret").(string),
		requestsPath: "/v1/inbound-endpoints/" + id + "/requests"}
}

// TestFreeFormValuesBounded: free-form values past their documented limits
// are 422 naming the value, on create and on update; values at the limits
// are accepted.
func TestFreeFormValuesBounded(t *testing.T) {
	f := newDialerFixture(t)
	e := f.e
	long := func(n int) string { return strings.Repeat("é", n) }
	manyKeys := func(n int, v any) map[string]any {
		m := map[string]any{}
		for i := range n {
			m[fmt.Sprintf("k%03d", i)] = v
		}
		return m
	}
	deep := map[string]any{"a": map[string]any{"b": map[string]any{"c": map[string]any{"d": []any{1}}}}}
	event := func(extra map[string]any) map[string]any {
		extra["externalCallId"] = fmt.Sprint("bounded-", len(extra), "-", extra["durationSeconds"])
		return f.event(extra)
	}
	cases := []struct {
		name, method, path, key string
		body                    any
		status                  int
		field                   string
	}{
		{"CustomFieldValue", "POST", "/v1/leads", e.Key, map[string]any{"businessName": "A", "customFields": map[string]any{"notes": long(2001)}}, 422, "customFields.notes"},
		{"CustomFieldHuge", "POST", "/v1/leads", e.Key, map[string]any{"businessName": "A", "customFields": map[string]any{"blob": strings.Repeat("x", 900<<10)}}, 422, "customFields.blob"},
		{"CustomFieldNested", "PATCH", "/v1/leads/" + f.leadID, e.Key, map[string]any{"customFields": map[string]any{"list": []any{long(2001)}}}, 422, "customFields.list[0]"},
		{"CustomFieldsDeep", "PATCH", "/v1/leads/" + f.leadID, e.Key, map[string]any{"customFields": deep}, 422, "customFields.a.b.c.d"},
		{"CustomFieldsTotal", "PATCH", "/v1/leads/" + f.leadID, e.Key, map[string]any{"customFields": manyKeys(40, long(1800))}, 422, "customFields"},
		{"CustomFieldsTooMany", "POST", "/v1/leads", e.Key, map[string]any{"businessName": "A", "customFields": manyKeys(51, 1)}, 422, "customFields"},
		{"CustomFieldsAtLimits", "POST", "/v1/leads", e.Key, map[string]any{"businessName": "A", "customFields": manyKeys(50, long(600))}, 201, ""},
		{"Tags", "POST", "/v1/leads", e.Key, map[string]any{"businessName": "A", "tags": []string{long(51)}}, 422, "tags"},
		{"MetadataSize", "POST", "/v1/dialer/events", f.dialer, event(map[string]any{"metadata": manyKeys(10, long(1800))}), 422, "metadata"},
		{"MetadataValue", "POST", "/v1/dialer/events", f.dialer, event(map[string]any{"metadata": map[string]any{"q": long(2001)}}), 422, "metadata.q"},
		{"PresenceMetadata", "POST", "/v1/dialer/presence", f.dialer, map[string]any{"userId": f.agent, "status": "online", "metadata": manyKeys(51, 1)}, 422, "metadata"},
		{"Notes", "POST", "/v1/dialer/events", f.dialer, event(map[string]any{"notes": long(5001)}), 422, "notes"},
		{"NegativeDuration", "POST", "/v1/dialer/events", f.dialer, event(map[string]any{"durationSeconds": -1}), 422, "durationSeconds"},
		{"DurationOverADay", "POST", "/v1/dialer/events", f.dialer, event(map[string]any{"durationSeconds": 86401}), 422, "durationSeconds"},
		{"DurationOfADay", "POST", "/v1/dialer/events", f.dialer, event(map[string]any{"durationSeconds": 86400}), 201, ""},
		{"AutomationTags", "POST", "/v1/automations", e.Key, map[string]any{"name": "A", "trigger": map[string]any{"event": "lead.created"},
			"actions": []map[string]any{{"type": "add_tags", "tags": []string{long(51)}}}}, 422, "actions[0].tags"},
		{"ConditionValue", "POST", "/v1/automations", e.Key, map[string]any{"name": "A", "trigger": map[string]any{"event": "lead.created"},
			"conditions": []map[string]any{{"path": "$.x", "op": "eq", "value": long(2001)}},
			"actions":    []map[string]any{{"type": "add_tags", "tags": []string{"x"}}}}, 422, "conditions[0].value"},
		{"MappingExpression", "POST", "/v1/inbound-endpoints", e.Key, map[string]any{"name": "P", "mapping": map[string]any{"email": "$." + strings.Repeat("a", 500)}}, 422, "mapping.email"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw, _ := json.Marshal(c.body)
			r := e.Do(resttest.Request{Method: c.method, Path: c.path, Key: c.key, Body: raw})
			if c.field == "" {
				mustStatus(t, r, c.status)
				return
			}
			mustError(t, r, c.status, "VALIDATION_ERROR", c.field)
		})
	}
}
