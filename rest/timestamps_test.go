package rest_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

// millisUTC is every timestamp the service writes.
var millisUTC = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// Every surface writes a timestamp the same way: UTC with exactly three
// fractional digits, even when they are zeros. The lead is created at an
// instant of the server's clock; a call at an input timestamp of any
// precision is stored and shown to the millisecond.
func TestTimestampsHaveMillisecondPrecision(t *testing.T) {
	e := resttest.New(t)
	rc := webhookstest.NewReceiver(t, webhookstest.OK)
	subscribe(t, e, rc.URL, "lead.created")
	agent := e.NewUser(e.Org.ID, "Tia", "Caller", "agent", "")
	second := time.Now().UTC().Truncate(time.Second)
	tests := []struct {
		name       string
		at         time.Time // the server's clock
		calledAt   string    // a client's input
		want, call string
	}{
		{"Millis120", second.Add(120 * time.Millisecond), "2026-11-23T10:17:27.120456789+01:00",
			second.Format("2006-01-02T15:04:05") + ".120Z", "2026-11-23T09:17:27.120Z"},
		{"Millis000", second.Add(-time.Second), "2026-11-23T10:17:27Z",
			second.Add(-time.Second).Format("2006-01-02T15:04:05") + ".000Z", "2026-11-23T10:17:27.000Z"},
		{"Millis007", second.Add(-2*time.Second + 7*time.Millisecond + 999*time.Microsecond), "2026-11-23T10:17:27.5Z",
			second.Add(-2*time.Second).Format("2006-01-02T15:04:05") + ".007Z", "2026-11-23T10:17:27.500Z"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.Clock.Set(tt.at)
			defer e.Clock.Set(time.Time{})
			id := createLead(t, e, e.Key, map[string]any{"businessName": tt.name})
			mustStatus(t, e.Post("/v1/dialer/events", e.Key, map[string]any{"externalCallId": tt.name, "userId": agent.ID,
				"leadId": id, "eventType": "call_started", "occurredAt": tt.calledAt}), http.StatusCreated)

			r := e.Get("/v1/leads/"+id, e.Key)
			mustStatus(t, r, http.StatusOK)
			for field, want := range map[string]string{"createdAt": tt.want, "updatedAt": tt.want, "stageChangedAt": tt.want, "lastContactedAt": tt.call} {
				if got := r.Attr(field); got != want {
					t.Errorf("REST %s = %v, want %s", field, got, want)
				}
			}
			data, code := graphQL(t, e, `query($id: ID!) { lead(id: $id) { createdAt updatedAt stageChangedAt lastContactedAt } }`, map[string]any{"id": id})
			if code != "" {
				t.Fatalf("GraphQL error %s", code)
			}
			l := data["lead"].(map[string]any)
			for field, want := range map[string]string{"createdAt": tt.want, "updatedAt": tt.want, "stageChangedAt": tt.want, "lastContactedAt": tt.call} {
				if got := l[field]; got != want {
					t.Errorf("GraphQL %s = %v, want %s", field, got, want)
				}
			}
			// Input at any precision; the stored value equals what was shown.
			shown := tt.at.Truncate(time.Millisecond).In(time.FixedZone("", 3600)).Format(time.RFC3339Nano)
			data, code = graphQL(t, e, `query($at: Time!) { leads(first: 5, where: {createdAt: $at}) { edges { node { id } } } }`, map[string]any{"at": shown})
			if edges, _ := data["leads"].(map[string]any)["edges"].([]any); code != "" || len(edges) != 1 || edges[0].(map[string]any)["node"].(map[string]any)["id"] != id {
				t.Errorf("leads created at %s: %v %s", shown, data, code)
			}
			var env struct {
				Timestamp string         `json:"timestamp"`
				Data      map[string]any `json:"data"`
			}
			got := rc.Wait(t, i+1)[i]
			if err := json.Unmarshal(got.Body, &env); err != nil {
				t.Fatal(err)
			}
			if env.Data["leadId"] != id || env.Timestamp != tt.want {
				t.Errorf("webhook timestamp = %q for lead %v, want %s for %s", env.Timestamp, env.Data["leadId"], tt.want, id)
			}
		})
	}
}

// graphQL runs a GraphQL operation with the environment's key.
func graphQL(t *testing.T, e *resttest.Env, query string, vars map[string]any) (map[string]any, string) {
	t.Helper()
	r := e.Post("/graphql", e.Key, map[string]any{"query": query, "variables": vars})
	mustStatus(t, r, http.StatusOK)
	data, _ := r.Body["data"].(map[string]any)
	if errs, _ := r.Body["errors"].([]any); len(errs) > 0 {
		ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
		code, _ := ext["code"].(string)
		return data, code
	}
	return data, ""
}
