package graph_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/lendingpipe/svc/rest/resttest"
)

// gqlError runs an operation and returns its first error's code and field.
func firstErrorCode(t *testing.T, e *resttest.Env, query string, vars map[string]any) (code, field string) {
	t.Helper()
	r := e.Post("/graphql", e.Key, map[string]any{"query": query, "variables": vars})
	if r.Status != http.StatusOK {
		t.Fatalf("status %d: %s", r.Status, r.Raw)
	}
	errs, _ := r.Body["errors"].([]any)
	if len(errs) == 0 {
		return "", ""
	}
	ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
	code, _ = ext["code"].(string)
	field, _ = ext["field"].(string)
	return code, field
}

// TestFreeFormValuesBoundedOverGraphQL: the limits on free-form values hold
// on GraphQL as on REST, since they sit below both (ent hooks and
// validators): 422's code and field, in extensions.
func TestFreeFormValuesBoundedOverGraphQL(t *testing.T) {
	e := resttest.New(t)
	agent := e.NewUser(e.Org.ID, "Al", "Agent", "agent", "Floor")
	data, code := gql(t, e, e.Key, `mutation { createLead(input: {businessName: "Bolt"}) { id } }`, nil)
	if code != "" {
		t.Fatalf("createLead: %s", code)
	}
	lead := data["createLead"].(map[string]any)["id"].(string)
	long := strings.Repeat("é", 2001)
	big := map[string]any{}
	for i := range 10 {
		big[fmt.Sprint("k", i)] = strings.Repeat("x", 1800)
	}
	call := `mutation($u: ID!, $d: Int, $m: Map) { recordCallEvent(input: {externalCallId: "g-1", userId: $u, eventType: call_ended,
		durationSeconds: $d, metadata: $m, occurredAt: "2026-11-22T09:00:00Z"}) { id } }`
	cases := []struct {
		name, query string
		vars        map[string]any
		field       string // "" when accepted
	}{
		{"CreateLeadCustomField", `mutation($cf: Map) { createLead(input: {businessName: "B", customFields: $cf}) { id } }`,
			map[string]any{"cf": map[string]any{"purpose": long}}, "customFields.purpose"},
		{"UpdateLeadCustomField", `mutation($id: ID!, $cf: Map) { updateLead(id: $id, input: {customFields: $cf}) { id } }`,
			map[string]any{"id": lead, "cf": map[string]any{"a": map[string]any{"b": map[string]any{"c": map[string]any{"d": []any{1}}}}}}, "customFields.a.b.c.d"},
		{"DurationOverADay", call, map[string]any{"u": agent.ID, "d": 86401}, "durationSeconds"},
		{"NegativeDuration", call, map[string]any{"u": agent.ID, "d": -5}, "durationSeconds"},
		{"MetadataSize", call, map[string]any{"u": agent.ID, "d": 60, "m": big}, "metadata"},
		{"PresenceMetadata", `mutation($u: ID!, $m: Map) { updatePresence(input: {userId: $u, status: online, metadata: $m}) { userId } }`,
			map[string]any{"u": agent.ID, "m": map[string]any{"note": long}}, "metadata.note"},
		{"WithinBounds", call, map[string]any{"u": agent.ID, "d": 86400, "m": map[string]any{"queue": "a"}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, field := firstErrorCode(t, e, c.query, c.vars)
			want := "VALIDATION_ERROR"
			if c.field == "" {
				want = ""
			}
			if code != want || field != c.field {
				t.Fatalf("error %q field %q, want %q field %q", code, field, want, c.field)
			}
		})
	}
}
