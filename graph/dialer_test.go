package graph_test

import (
	"testing"

	"github.com/lendingpipe/svc/rest/resttest"
)

func TestDialerOverGraphQL(t *testing.T) {
	e := resttest.New(t)
	agent := e.NewUser(e.Org.ID, "Gil", "Graph", "agent", "")
	lead := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Graph Co"}).Data()["id"].(string)
	vars := map[string]any{"u": agent.ID, "l": lead}
	_, code := gql(t, e, e.Key, `mutation($u: ID!, $l: ID!) {
		recordCallEvent(input: {externalCallId: "g1", userId: $u, leadId: $l, eventType: call_started, occurredAt: "2026-11-22T10:00:00Z"}) { id }
		recordDisposition(input: {externalCallId: "g1", userId: $u, leadId: $l, disposition: "interested", occurredAt: "2026-11-22T10:03:00Z"}) { id eventType }
		updatePresence(input: {userId: $u, status: online}) { status firstName }
	}`, vars)
	if code != "" {
		t.Fatalf("mutations: %s", code)
	}
	data, code := gql(t, e, e.Key, `query($l: ID!) {
		lead(id: $l) { lastContactedAt callEvents(first: 10, orderBy: {field: OCCURRED_AT, direction: ASC}) { totalCount edges { node { eventType disposition } } } }
		callEvents(first: 10) { totalCount }
		agentsBoard { totalCount edges { cursor node { firstName status } } }
		agentsBoardPage { total nodes { firstName status } }
	}`, vars)
	if code != "" {
		t.Fatalf("queries: %s", code)
	}
	l := data["lead"].(map[string]any)
	events := l["callEvents"].(map[string]any)
	if events["totalCount"] != 2.0 || l["lastContactedAt"] != "2026-11-22T10:03:00.000Z" {
		t.Errorf("lead = %v", l)
	}
	last := events["edges"].([]any)[1].(map[string]any)["node"].(map[string]any)
	if last["eventType"] != "disposition" || last["disposition"] != "interested" {
		t.Errorf("events = %v", events)
	}
	board := data["agentsBoard"].(map[string]any)
	if board["totalCount"] != 1.0 || board["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["status"] != "online" {
		t.Errorf("board = %v", board)
	}
	page := data["agentsBoardPage"].(map[string]any)
	if page["total"] != 1.0 || page["nodes"].([]any)[0].(map[string]any)["status"] != "online" {
		t.Errorf("board page = %v", page)
	}
	ro := e.NewKey(e.Org.ID, "leads:read")
	if _, code := gql(t, e, ro, `mutation($u: ID!) { updatePresence(input: {userId: $u, status: online}) { status } }`, map[string]any{"u": agent.ID}); code != "FORBIDDEN" {
		t.Errorf("presence without dialer:write: code %q, want FORBIDDEN", code)
	}
}
