package graph_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/callevent"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

const boardSubscription = "subscription { agentPresenceChanged { userId status callsToday dispositionCount currentLeadName } }"

// boardRow waits for a row of agentID whose field is want (an agent's
// earlier rows, such as the one its creation publishes, may come first).
func boardRow(t *testing.T, c *wsClient, agentID, field string, want any) map[string]any {
	t.Helper()
	for {
		m, err := c.read(5 * time.Second)
		if err != nil {
			t.Fatalf("no board row of %s with %s = %v: %v", agentID, field, want, err)
		}
		data, _ := m.Payload["data"].(map[string]any)
		row, _ := data["agentPresenceChanged"].(map[string]any)
		if m.Type != "next" || row == nil {
			t.Fatalf("got %+v, want a board row", m)
		}
		if row["userId"] == agentID && row[field] == want {
			return row
		}
	}
}

// TestBoardRowsPublished: every surface that changes an agent's board row
// (call events, dispositions, the dialer connector, GraphQL mutations,
// presence, renaming the current lead) publishes the row to subscribers.
func TestBoardRowsPublished(t *testing.T) {
	e := resttest.New(t)
	org, token, err := store.CreateOrganization(context.Background(), e.DB.Client, "Live Board")
	must(t, err)
	key := e.NewKey(org.ID, viewer.AllScopes...)
	c := dialWS(t, e, "graphql-transport-ws", nil)
	c.mustInit(key)
	c.start("1", boardSubscription)
	time.Sleep(50 * time.Millisecond) // let the subscription register before publishing
	now := time.Now().UTC().Format(time.RFC3339)

	cases := []struct {
		name   string
		change func(agent string) *resttest.Response
		field  string
		want   any
	}{
		{"REST call event", func(agent string) *resttest.Response {
			return e.Post("/v1/dialer/events", key, map[string]any{"call_id": "c-" + agent, "agent_id": agent, "event_type": "call_started", "timestamp": now})
		}, "callsToday", float64(1)},
		{"REST disposition", func(agent string) *resttest.Response {
			return e.Post("/v1/dialer/disposition", key, map[string]any{"externalCallId": "c-" + agent, "userId": agent, "disposition": "interested", "occurredAt": now})
		}, "dispositionCount", float64(1)},
		{"dialer connector", func(agent string) *resttest.Response {
			return e.Post("/v1/dialer/connect/"+token, "", map[string]any{"type": "call_event", "call_id": "c-" + agent, "agent_id": agent, "event_type": "call_started", "timestamp": now})
		}, "callsToday", float64(1)},
		{"GraphQL mutation", func(agent string) *resttest.Response {
			return e.Post("/graphql", key, map[string]any{"query": fmt.Sprintf(
				`mutation { recordCallEvent(input: {externalCallId: "g-%s", userId: %q, eventType: call_started, occurredAt: %q}) { id } }`, agent, agent, now)})
		}, "callsToday", float64(1)},
		{"presence", func(agent string) *resttest.Response {
			return e.Post("/v1/dialer/presence", key, map[string]any{"userId": agent, "status": "on_call"})
		}, "status", "on_call"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			agent := e.NewUser(org.ID, "Agent", fmt.Sprint("No", i), "agent", "").ID.String()
			if r := tc.change(agent); r.Status >= 300 || r.Body["errors"] != nil {
				t.Fatalf("change: %d %s", r.Status, r.Raw)
			}
			boardRow(t, c, agent, tc.field, tc.want)
		})
	}

	t.Run("current lead renamed", func(t *testing.T) {
		agent := e.NewUser(org.ID, "Agent", "Renamer", "agent", "").ID.String()
		r := e.Post("/v1/leads", key, map[string]any{"businessName": "Old Name", "phone": "+15550100"})
		if r.Status != http.StatusCreated {
			t.Fatalf("creating the lead: %d %s", r.Status, r.Raw)
		}
		leadID := r.Body["data"].(map[string]any)["id"].(string)
		e.Post("/v1/dialer/presence", key, map[string]any{"userId": agent, "status": "on_call", "currentCallId": "c-9", "currentLeadId": leadID})
		boardRow(t, c, agent, "currentLeadName", "Old Name")
		if r := e.Patch("/v1/leads/"+leadID, key, map[string]any{"businessName": "New Name"}); r.Status != http.StatusOK {
			t.Fatalf("renaming: %d %s", r.Status, r.Raw)
		}
		boardRow(t, c, agent, "currentLeadName", "New Name")
	})
}

// TestBoardRolledBackPublishesNothing: a call event whose transaction rolls
// back reaches no subscriber; the next committed change is the first row
// they receive, and it does not count the rolled-back call.
func TestBoardRolledBackPublishesNothing(t *testing.T) {
	e := resttest.New(t)
	agent := e.NewUser(e.Org.ID, "Rolf", "Back", "agent", "")
	c := dialWS(t, e, "graphql-transport-ws", nil)
	c.mustInit(e.Key)
	c.start("1", boardSubscription)
	time.Sleep(50 * time.Millisecond)

	ctx := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: e.Org.ID, Scopes: []string{viewer.ScopeDialerWrite}})
	errRollBack := errors.New("roll back")
	err := store.WithTx(ctx, e.DB.Client, func(ctx context.Context, tx *ent.Client) error {
		_, err := tx.CallEvent.Create().SetExternalCallID("c-rolled").SetUserID(agent.ID).
			SetEventType(callevent.EventTypeCallStarted).SetOccurredAt(time.Now()).Save(ctx)
		if err != nil {
			return err
		}
		return errRollBack
	})
	if !errors.Is(err, errRollBack) {
		t.Fatalf("the transaction: %v", err)
	}
	time.Sleep(100 * time.Millisecond) // a row published now would arrive first

	if r := e.Post("/v1/dialer/presence", e.Key, map[string]any{"userId": agent.ID, "status": "on_call"}); r.Status != http.StatusOK {
		t.Fatalf("presence: %d %s", r.Status, r.Raw)
	}
	m, err := c.read(5 * time.Second)
	if err != nil {
		t.Fatalf("no board row: %v", err)
	}
	data, _ := m.Payload["data"].(map[string]any)
	row, _ := data["agentPresenceChanged"].(map[string]any)
	if row["status"] != "on_call" || row["callsToday"] != float64(0) {
		t.Errorf("first row received: %v, want the committed presence change with no calls", m)
	}
}
