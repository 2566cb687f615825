package graph_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

// keyFor is a key bound to the user, with scopes: it acts as them.
func keyFor(t *testing.T, e *resttest.Env, userID string, scopes ...string) string {
	t.Helper()
	data, code := gql(t, e, e.Key, `mutation($u: ID!, $s: [String!]!) { createApiKey(input: {name: "as user", scopes: $s, userId: $u}) { secret } }`,
		map[string]any{"u": userID, "s": scopes})
	if code != "" {
		t.Fatalf("a key for %s: %s", userID, code)
	}
	return data["createApiKey"].(map[string]any)["secret"].(string)
}

// gqlErr runs an operation that must fail and returns its first error's
// extensions.
func gqlErr(t *testing.T, e *resttest.Env, key, query string, vars map[string]any) map[string]any {
	t.Helper()
	r := e.Post("/graphql", key, map[string]any{"query": query, "variables": vars})
	errs, _ := r.Body["errors"].([]any)
	if r.Status != http.StatusOK || len(errs) == 0 {
		t.Fatalf("%s succeeded: %d %s", query, r.Status, r.Raw)
	}
	ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
	return ext
}

func mustGQL(t *testing.T, e *resttest.Env, key, query string, vars map[string]any) map[string]any {
	t.Helper()
	data, code := gql(t, e, key, query, vars)
	if code != "" {
		t.Fatalf("%s: %s", query, code)
	}
	return data
}

func TestNotesOverGraphQL(t *testing.T) {
	e := resttest.New(t)
	advisor := func(first string) (string, string) {
		u := e.NewUser(e.Org.ID, first, "Advisor", "advisor", "")
		return u.ID.String(), keyFor(t, e, u.ID.String(), viewer.RoleScopes[viewer.RoleAdvisor]...)
	}
	ada, asAda := advisor("Ada")
	_, asBob := advisor("Bob")
	lead := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Notes Bakery"}).Data()["id"].(string)
	add := `mutation($l: ID!, $b: String!) { addNote(input: {leadId: $l, body: $b}) { id leadId body authorId createdAt updatedAt } }`
	var ids []string
	for _, body := range []string{"first", "second", "third"} {
		n := mustGQL(t, e, asAda, add, map[string]any{"l": lead, "b": body})["addNote"].(map[string]any)
		if n["authorId"] != ada || n["leadId"] != lead || n["body"] != body {
			t.Errorf("added %v; want Ada's note on the lead", n)
		}
		ids = append(ids, n["id"].(string))
	}
	unsigned := mustGQL(t, e, e.Key, add, map[string]any{"l": lead, "b": "from a key"})["addNote"].(map[string]any)
	if unsigned["authorId"] != nil {
		t.Errorf("a key bound to no one wrote %v; want no author", unsigned)
	}
	ids = append(ids, unsigned["id"].(string))

	t.Run("NewestFirstInPages", func(t *testing.T) {
		read := func(page int) map[string]any {
			data := mustGQL(t, e, e.Key, `query($id: ID!, $p: Int) { lead(id: $id) { notes(page: $p, limit: 3) { total page hasMore nodes { id } } } }`,
				map[string]any{"id": lead, "p": page})
			return data["lead"].(map[string]any)["notes"].(map[string]any)
		}
		var got []string
		for p := 1; p <= 2; p++ {
			page := read(p)
			if page["total"] != 4.0 || page["hasMore"] != (p == 1) {
				t.Errorf("page %d: %v", p, page)
			}
			for _, n := range page["nodes"].([]any) {
				got = append(got, n.(map[string]any)["id"].(string))
			}
		}
		want := slices.Clone(ids)
		slices.Reverse(want)
		if !slices.Equal(got, want) {
			t.Errorf("notes %v; want newest first %v", got, want)
		}
	})
	t.Run("AuthorOrAdmin", func(t *testing.T) {
		update := `mutation($id: ID!, $b: String!) { updateNote(id: $id, body: $b) { body } }`
		if ext := gqlErr(t, e, asBob, update, map[string]any{"id": ids[0], "b": "Bob's"}); ext["code"] != "FORBIDDEN" {
			t.Errorf("Bob changed Ada's note: %v", ext)
		}
		if ext := gqlErr(t, e, asBob, `mutation($id: ID!) { deleteNote(id: $id) }`, map[string]any{"id": ids[0]}); ext["code"] != "FORBIDDEN" {
			t.Errorf("Bob deleted Ada's note: %v", ext)
		}
		if got := mustGQL(t, e, asAda, update, map[string]any{"id": ids[0], "b": "Ada's, changed"}); got["updateNote"].(map[string]any)["body"] != "Ada's, changed" {
			t.Errorf("Ada's change: %v", got)
		}
		// e.Key holds every scope, admin among them.
		if got := mustGQL(t, e, e.Key, `mutation($id: ID!) { deleteNote(id: $id) }`, map[string]any{"id": ids[1]}); got["deleteNote"] != ids[1] {
			t.Errorf("the admin's delete answered %v", got)
		}
		if ext := gqlErr(t, e, asAda, update, map[string]any{"id": ids[1], "b": "x"}); ext["code"] != "NOT_FOUND" {
			t.Errorf("a deleted note: %v", ext)
		}
	})
	t.Run("Bounds", func(t *testing.T) {
		for body, want := range map[string]string{"": "VALIDATION_ERROR", strings.Repeat("x", 10_001): "VALIDATION_ERROR"} {
			if ext := gqlErr(t, e, asAda, add, map[string]any{"l": lead, "b": body}); ext["code"] != want || ext["field"] != "body" {
				t.Errorf("a body of %d characters: %v; want %s naming body", len(body), ext, want)
			}
		}
		if _, code := gql(t, e, asAda, add, map[string]any{"l": lead, "b": strings.Repeat("x", 10_000)}); code != "" {
			t.Errorf("a body of 10,000 characters: %s", code)
		}
		if ext := gqlErr(t, e, asAda, add, map[string]any{"l": ada, "b": "x"}); ext["code"] != "VALIDATION_ERROR" || ext["field"] != "leadId" {
			t.Errorf("a note on no lead: %v; want VALIDATION_ERROR naming leadId", ext)
		}
	})
	t.Run("Scopes", func(t *testing.T) {
		reader := e.NewKey(e.Org.ID, viewer.ScopeLeadsRead)
		if ext := gqlErr(t, e, reader, add, map[string]any{"l": lead, "b": "x"}); ext["code"] != "FORBIDDEN" {
			t.Errorf("a reader added a note: %v", ext)
		}
		if _, code := gql(t, e, reader, `query($id: ID!) { lead(id: $id) { notes { total } } }`, map[string]any{"id": lead}); code != "" {
			t.Errorf("a reader read the notes: %s", code)
		}
	})
}

func TestTasksOverGraphQL(t *testing.T) {
	e := resttest.New(t)
	adaU := e.NewUser(e.Org.ID, "Ada", "Advisor", "advisor", "")
	ada, asAda := adaU.ID.String(), keyFor(t, e, adaU.ID.String(), viewer.RoleScopes[viewer.RoleAdvisor]...)
	bob := e.NewUser(e.Org.ID, "Bob", "Advisor", "advisor", "").ID.String()
	lead := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Tasks Bakery"}).Data()["id"].(string)
	create := `mutation($in: CreateTaskInput!) { createTask(input: $in) { id leadId title dueAt assigneeId status completedAt completedBy createdBy createdAt updatedAt } }`
	due := func(d time.Duration) string { return apitime.Format(time.Now().Add(d)) }
	newTask := func(key string, in map[string]any) map[string]any {
		t.Helper()
		in["leadId"] = lead
		return mustGQL(t, e, key, create, map[string]any{"in": in})["createTask"].(map[string]any)
	}
	mine := newTask(asAda, map[string]any{"title": "Call back", "dueAt": due(2 * time.Hour)})
	if mine["assigneeId"] != ada || mine["status"] != "open" || mine["createdBy"] != "user:"+ada || mine["completedAt"] != nil {
		t.Errorf("created %v; want Ada's open task", mine)
	}
	bobs := newTask(asAda, map[string]any{"title": "Send the contract", "dueAt": due(time.Hour), "assigneeId": bob})
	overdue := newTask(e.Key, map[string]any{"title": "Chase statements", "dueAt": due(-time.Hour), "assigneeId": ada})

	t.Run("Errors", func(t *testing.T) {
		for _, tc := range []struct {
			in    map[string]any
			key   string
			field string
		}{
			{map[string]any{"title": "", "dueAt": due(0)}, asAda, "title"},
			{map[string]any{"title": strings.Repeat("x", 201), "dueAt": due(0)}, asAda, "title"},
			{map[string]any{"title": "x", "dueAt": "1969-12-31T23:59:59Z"}, asAda, "dueAt"},
			{map[string]any{"title": "x", "dueAt": apitime.Format(time.Now().AddDate(5, 0, 1))}, asAda, "dueAt"},
			{map[string]any{"title": "x", "dueAt": due(0)}, e.Key, "assigneeId"}, // a key bound to no one
			{map[string]any{"title": "x", "dueAt": due(0), "assigneeId": lead}, asAda, "assigneeId"},
		} {
			tc.in["leadId"] = lead
			ext := gqlErr(t, e, tc.key, create, map[string]any{"in": tc.in})
			if ext["code"] != "VALIDATION_ERROR" || ext["field"] != tc.field {
				t.Errorf("%v: %v; want VALIDATION_ERROR naming %s", tc.in, ext, tc.field)
			}
		}
	})
	t.Run("Transitions", func(t *testing.T) {
		complete := `mutation($id: ID!) { completeTask(id: $id) { status completedAt completedBy } }`
		done := mustGQL(t, e, asAda, complete, map[string]any{"id": mine["id"]})["completeTask"].(map[string]any)
		if done["status"] != "done" || done["completedAt"] == nil || done["completedBy"] != "user:"+ada {
			t.Errorf("completed %v", done)
		}
		ext := gqlErr(t, e, asAda, complete, map[string]any{"id": mine["id"]})
		if ext["code"] != "CONFLICT" || ext["field"] != "status" || ext["from"] != "done" || ext["to"] != "done" {
			t.Errorf("completing a done task: %v; want CONFLICT {field status, from done, to done}", ext)
		}
		reopen := `mutation($id: ID!) { reopenTask(id: $id) { status completedAt completedBy } }`
		open := mustGQL(t, e, asAda, reopen, map[string]any{"id": mine["id"]})["reopenTask"].(map[string]any)
		if open["status"] != "open" || open["completedAt"] != nil || open["completedBy"] != nil {
			t.Errorf("reopened %v", open)
		}
		ext = gqlErr(t, e, asAda, reopen, map[string]any{"id": mine["id"]})
		if ext["code"] != "CONFLICT" || ext["field"] != "status" || ext["from"] != "open" || ext["to"] != "open" {
			t.Errorf("reopening an open task: %v", ext)
		}
	})
	t.Run("Update", func(t *testing.T) {
		got := mustGQL(t, e, asAda, `mutation($id: ID!, $in: UpdateTaskInput!) { updateTask(id: $id, input: $in) { title assigneeId } }`,
			map[string]any{"id": bobs["id"], "in": map[string]any{"title": "Send the signed contract", "assigneeId": ada}})["updateTask"].(map[string]any)
		if got["title"] != "Send the signed contract" || got["assigneeId"] != ada {
			t.Errorf("updated %v", got)
		}
		mustGQL(t, e, asAda, `mutation($id: ID!, $in: UpdateTaskInput!) { updateTask(id: $id, input: $in) { id } }`,
			map[string]any{"id": bobs["id"], "in": map[string]any{"assigneeId": bob}})
	})
	t.Run("ListAndLead", func(t *testing.T) {
		data := mustGQL(t, e, e.Key, `query($w: TaskWhere) { tasks(where: $w) { total nodes { id } } }`,
			map[string]any{"w": map[string]any{"assigneeId": ada, "status": "open", "leadId": lead, "dueBefore": due(24 * time.Hour)}})
		var got []string
		for _, n := range data["tasks"].(map[string]any)["nodes"].([]any) {
			got = append(got, n.(map[string]any)["id"].(string))
		}
		if want := []string{overdue["id"].(string), mine["id"].(string)}; !slices.Equal(got, want) {
			t.Errorf("Ada's open tasks %v; want %v", got, want)
		}
		data = mustGQL(t, e, e.Key, `query($id: ID!) { lead(id: $id) { openTasks { id } } }`, map[string]any{"id": lead})
		got = nil
		for _, n := range data["lead"].(map[string]any)["openTasks"].([]any) {
			got = append(got, n.(map[string]any)["id"].(string))
		}
		if want := []string{overdue["id"].(string), bobs["id"].(string), mine["id"].(string)}; !slices.Equal(got, want) {
			t.Errorf("the lead's open tasks %v; want %v by dueAt", got, want)
		}
	})
	t.Run("MyDay", func(t *testing.T) {
		day := `query($u: ID) { myDay(userId: $u) { userId timezone date overdueTasks { total nodes { id } } tasksDueToday { total nodes { id } }
			renewalsDue { total nodes { id } } waitingOnStipulations { total nodes { id } } } }`
		d := mustGQL(t, e, asAda, day, nil)["myDay"].(map[string]any)
		if d["userId"] != ada || d["timezone"] != "UTC" || d["date"] != time.Now().UTC().Format("2006-01-02") {
			t.Errorf("Ada's day %v", d)
		}
		overdueIDs := d["overdueTasks"].(map[string]any)
		if overdueIDs["total"] != 1.0 || overdueIDs["nodes"].([]any)[0].(map[string]any)["id"] != overdue["id"] {
			t.Errorf("Ada's overdue %v; want the one", overdueIDs)
		}
		for _, empty := range []string{"renewalsDue", "waitingOnStipulations"} {
			if s := d[empty].(map[string]any); s["total"] != 0.0 || len(s["nodes"].([]any)) != 0 {
				t.Errorf("%s %v; want empty", empty, s)
			}
		}
		if ext := gqlErr(t, e, asAda, day, map[string]any{"u": bob}); ext["code"] != "FORBIDDEN" {
			t.Errorf("Ada read Bob's day: %v", ext)
		}
		if got := mustGQL(t, e, e.Key, day, map[string]any{"u": bob})["myDay"].(map[string]any); got["userId"] != bob {
			t.Errorf("the admin key read %v; want Bob's day", got)
		}
		if ext := gqlErr(t, e, e.Key, day, nil); ext["code"] != "VALIDATION_ERROR" || ext["field"] != "userId" {
			t.Errorf("a key bound to no one, no user: %v; want VALIDATION_ERROR naming userId", ext)
		}
	})
	t.Run("Scopes", func(t *testing.T) {
		reader := e.NewKey(e.Org.ID, viewer.ScopeLeadsRead)
		ext := gqlErr(t, e, reader, create, map[string]any{"in": map[string]any{"leadId": lead, "title": "x", "dueAt": due(0), "assigneeId": ada}})
		if ext["code"] != "FORBIDDEN" {
			t.Errorf("a reader created a task: %v", ext)
		}
		if _, code := gql(t, e, reader, `{ tasks { total } }`, nil); code != "" {
			t.Errorf("a reader listed tasks: %s", code)
		}
		lending := e.NewKey(e.Org.ID, viewer.ScopeLendingRead)
		if _, code := gql(t, e, lending, `{ tasks { total } }`, nil); code != "FORBIDDEN" {
			t.Errorf("a key without leads:read listed tasks: %q", code)
		}
	})
}
