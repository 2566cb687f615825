package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

// entryOf is an activity entry as this test compares it: its kind, its
// actor's type and the attributes it changed.
func entryOf(node map[string]any) string {
	var fields []string
	for _, ch := range node["changes"].([]any) {
		fields = append(fields, ch.(map[string]any)["field"].(string))
	}
	actor := node["actor"].(map[string]any)["type"].(string)
	if len(fields) == 0 {
		return node["kind"].(string) + " by " + actor
	}
	return fmt.Sprintf("%s by %s %v", node["kind"], actor, fields)
}

// historyOf is the lead's stored history, oldest first, as entryOf reads
// each entry.
func historyOf(t *testing.T, e *resttest.Env, key, lead string) []string {
	t.Helper()
	data := gql(t, e, key, `query($id: ID!) { lead(id: $id) { activity(first: 40) { edges { node {
		kind actor { type id name } changes { field from to } } } } } }`, map[string]any{"id": lead})
	var out []string
	for _, edge := range field(data, "lead")["activity"].(map[string]any)["edges"].([]any) {
		out = append(out, entryOf(edge.(map[string]any)["node"].(map[string]any)))
	}
	slices.Reverse(out)
	return out
}

// A lead driven through every kind of change, by every kind of writer
// (REST, GraphQL, the dialer's connector, an inbound endpoint's
// automation, an import, a bulk change, the lending flows, an upload),
// has exactly the history each change writes: no writer skips it.
func TestEveryWriterRecordsTheLeadsHistory(t *testing.T) {
	e := resttest.New(t, fastRetries(0, 30*time.Millisecond, 30*time.Millisecond, time.Second))
	org, token, err := store.CreateOrganization(context.Background(), e.DB.Client, "Every Writer Brokers")
	if err != nil {
		t.Fatal(err)
	}
	e.Key = e.NewKey(org.ID, viewer.AllScopes...)
	agent := e.NewUser(org.ID, "Cora", "Connector", "agent", "")
	advisor := e.NewUser(org.ID, "Ada", "Advisor", "advisor", "")
	stages := e.Stages(org.ID)

	// REST creates it, with an id a partner's system knows it by.
	lead := createLead(t, e, e.Key, map[string]any{"businessName": "Every Writer Bakery", "phone": "+15550142",
		"externalIds": map[string]any{"bureau": "EW-1"}})
	// REST changes an attribute.
	mustStatus(t, e.Patch("/v1/leads/"+lead, e.Key, map[string]any{"industry": "Bakery"}), http.StatusOK)
	// GraphQL moves it.
	gql(t, e, e.Key, `mutation($id: ID!, $s: ID!) { moveLeadToStage(id: $id, stageId: $s) { id } }`,
		map[string]any{"id": lead, "s": stages[1].ID.String()})
	// The connector reports two events of one call: one entry.
	for _, ev := range []string{"call_started", "call_ended"} {
		mustStatus(t, e.Post("/v1/dialer/connect/"+token, "", map[string]any{"type": "call_event", "call_id": "ew-1",
			"agent_id": agent.ID.String(), "lead_id": lead, "event_type": ev, "timestamp": "2026-11-22T09:00:00Z"}), http.StatusOK)
	}
	// An inbound endpoint's automation updates it.
	r := e.Post("/v1/inbound-endpoints", e.Key, map[string]any{"name": "Bureau", "mapping": map[string]any{
		"ref": "$.ref", "requestedAmount": "$.amount"}})
	mustStatus(t, r, http.StatusCreated)
	f := inboundFixture{e: e, id: r.Data()["id"].(string), path: r.Attr("path").(string), secret: r.Attr("secret").(string)}
	auto := automate(t, e, map[string]any{"name": "Bureau updates", "trigger": map[string]any{"endpointId": f.id},
		"actions": []map[string]any{{"type": "update_lead", "matchBy": "externalIds.bureau", "matchField": "ref"}}})
	f.send(t, `{"ref":"EW-1","amount":"75000"}`)
	if runs := settle(t, e, auto, 1); attr(runs[0], "status") != "succeeded" {
		t.Fatalf("the automation's run: %v", runs[0])
	}
	// A bulk change assigns it and raises its priority.
	gql(t, e, e.Key, `mutation($ids: [ID!]!, $a: ID!) { bulkUpdateLeads(ids: $ids, input: {primaryAdvisorId: $a, priority: high}) { id } }`,
		map[string]any{"ids": []string{lead}, "a": advisor.ID.String()})
	// The lending flows and an upload.
	lender := field(gql(t, e, e.Key, `mutation { createLender(input: {name: "Writer Capital"}) { id } }`, nil), "createLender")["id"]
	app := field(gql(t, e, e.Key, `mutation($l: ID!, $r: ID!) { submitApplication(input: {leadId: $l, lenderId: $r}) { id } }`,
		map[string]any{"l": lead, "r": lender}), "submitApplication")["id"]
	gql(t, e, e.Key, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: DECLINED, reason: "thin file"}) { id } }`,
		map[string]any{"id": app})
	up := e.Upload(e.Key, `mutation($r: ID!, $file: Upload!) { uploadDocument(recordId: $r, file: $file) { id } }`,
		map[string]any{"r": lead}, resttest.File{Var: "file", Name: "statement.txt", Content: []byte("March statement\n")})
	if up.Status != http.StatusOK || up.Body["errors"] != nil {
		t.Fatalf("upload: %d %s", up.Status, up.Raw)
	}

	want := []string{
		"lead.created by api_key",
		"lead.updated by api_key [industry]",
		"lead.stage_changed by api_key [stageId]",
		"call by connector",
		"lead.updated by system [requestedAmount]",
		"lead.updated by api_key [primaryAdvisorId]",
		"lead.updated by api_key [priority]",
		"application.submitted by api_key",
		// Submitting moves the lead to the application slot's stage.
		"lead.stage_changed by api_key [stageId]",
		"application.declined by api_key",
		"document.uploaded by api_key",
	}
	if got := historyOf(t, e, e.Key, lead); !slices.Equal(got, want) {
		t.Errorf("the lead's history:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}

	// An import creates a lead: its history begins as any other's.
	job := e.Upload(e.Key, `mutation($file: Upload!) { importLeads(file: $file) { id } }`, nil,
		resttest.File{Var: "file", Name: "leads.csv", Content: []byte("businessName,phone\nImported Deli,+15550143\n")})
	if job.Status != http.StatusOK || job.Body["errors"] != nil {
		t.Fatalf("import: %d %s", job.Status, job.Raw)
	}
	var imported string
	for deadline := time.Now().Add(20 * time.Second); imported == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if items := e.Get("/v1/leads?search=Imported%20Deli", e.Key).Items(); len(items) == 1 {
			imported = items[0]["id"].(string)
		}
	}
	if imported == "" {
		t.Fatal("the import created no lead")
	}
	if got := historyOf(t, e, e.Key, imported); !slices.Equal(got, []string{"lead.created by api_key"}) {
		t.Errorf("the imported lead's history: %v", got)
	}
}
