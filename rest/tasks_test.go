package rest_test

import (
	"net/http"
	"testing"

	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

// GET /v1/tasks lists the tasks GraphQL creates, by dueAt then id, with
// the filters of tasks(where:).
func TestListTasks(t *testing.T) {
	e := resttest.New(t)
	ada := e.NewUser(e.Org.ID, "Ada", "Advisor", "advisor", "").ID.String()
	bob := e.NewUser(e.Org.ID, "Bob", "Advisor", "advisor", "").ID.String()
	leadA := createLead(t, e, e.Key, map[string]any{"businessName": "Task Bakery"})
	leadB := createLead(t, e, e.Key, map[string]any{"businessName": "Other Bakery"})
	create := func(lead, assignee, due string) string {
		t.Helper()
		return field(gql(t, e, e.Key, `mutation($in: CreateTaskInput!) { createTask(input: $in) { id } }`,
			map[string]any{"in": map[string]any{"leadId": lead, "title": "Call back", "dueAt": due, "assigneeId": assignee}}),
			"createTask")["id"].(string)
	}
	t1 := create(leadA, ada, "2026-03-10T12:00:00Z")
	t2 := create(leadB, ada, "2026-03-09T12:00:00Z")
	t3 := create(leadA, bob, "2026-03-11T09:00:00Z")
	gql(t, e, e.Key, `mutation($id: ID!) { completeTask(id: $id) { id } }`, map[string]any{"id": t2})

	t.Run("OK", func(t *testing.T) {
		r := e.Get("/v1/tasks", e.Key)
		mustIDs(t, r, t2, t1, t3)
		got := r.Items()[0]
		attrs := got["attributes"].(map[string]any)
		if got["type"] != "task" || attrs["status"] != "done" || attrs["completedAt"] == nil || attrs["leadId"] != leadB ||
			attrs["assigneeId"] != ada || attrs["dueAt"] != "2026-03-09T12:00:00.000Z" || attrs["title"] != "Call back" {
			t.Errorf("the first task: %v", got)
		}
	})
	t.Run("Filters", func(t *testing.T) {
		mustIDs(t, e.Get("/v1/tasks?assigneeId="+ada, e.Key), t2, t1)
		mustIDs(t, e.Get("/v1/tasks?status=open", e.Key), t1, t3)
		mustIDs(t, e.Get("/v1/tasks?status=done", e.Key), t2)
		mustIDs(t, e.Get("/v1/tasks?leadId="+leadA, e.Key), t1, t3)
		mustIDs(t, e.Get("/v1/tasks?dueBefore=2026-03-10T12:00:00Z", e.Key), t2)
		mustIDs(t, e.Get("/v1/tasks?dueBefore=2026-03-10", e.Key), t2, t1) // a date includes its whole day
		mustIDs(t, e.Get("/v1/tasks?assigneeId="+ada+"&status=open&leadId="+leadA+"&dueBefore=2026-03-11", e.Key), t1)
	})
	t.Run("Pages", func(t *testing.T) {
		p := e.Get("/v1/tasks?limit=2&page=2", e.Key)
		mustPage(t, p, 3, 2, 2, false)
		mustIDs2(t, p, t3)
	})
	for _, tc := range []struct{ query, field string }{
		{"assigneeId=nope", "assigneeId"}, {"status=closed", "status"}, {"leadId=1", "leadId"},
		{"dueBefore=2026-02-30", "dueBefore"}, {"limit=101", "limit"}, {"color=red", "color"},
	} {
		t.Run("Err "+tc.query, func(t *testing.T) {
			mustError(t, e.Get("/v1/tasks?"+tc.query, e.Key), http.StatusUnprocessableEntity, "VALIDATION_ERROR", tc.field)
		})
	}
	t.Run("ErrScope", func(t *testing.T) {
		r := e.Get("/v1/tasks", e.NewKey(e.Org.ID, viewer.ScopeLendingRead))
		mustStatus(t, r, http.StatusForbidden)
	})
	t.Run("ReaderMayList", func(t *testing.T) {
		mustIDs(t, e.Get("/v1/tasks?leadId="+leadB, e.NewKey(e.Org.ID, viewer.ScopeLeadsRead)), t2)
	})
}

// mustIDs2 checks the ids of a page's items, whatever the total.
func mustIDs2(t *testing.T, r *resttest.Response, want ...string) {
	t.Helper()
	got := idsOf(r)
	if len(got) != len(want) {
		t.Fatalf("ids = %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("ids = %v, want %v", got, want)
		}
	}
}
