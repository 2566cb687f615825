package graph_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

const (
	saveView   = `mutation($in: SaveViewInput!) { saveView(input: $in) { id name screen filters shared ownerId } }`
	listViews  = `query($s: SavedViewScreen!) { views(screen: $s) { id name filters shared ownerId } }`
	deleteView = `mutation($id: ID!) { deleteView(id: $id) }`
)

// caller sends GraphQL as a person signed in (a session, with its CSRF
// token) or with a key.
type caller func(query string, vars map[string]any) *resttest.Response

func sessionCaller(e *resttest.Env, s resttest.Session) caller {
	return func(query string, vars map[string]any) *resttest.Response {
		return e.Do(resttest.Request{Method: http.MethodPost, Path: "/graphql", Header: s.Header(true),
			Body: map[string]any{"query": query, "variables": vars}})
	}
}

func keyCaller(e *resttest.Env, key string) caller {
	return func(query string, vars map[string]any) *resttest.Response {
		return e.Post("/graphql", key, map[string]any{"query": query, "variables": vars})
	}
}

// reply is a response's data and its first error's code and field.
func reply(t *testing.T, r *resttest.Response) (data map[string]any, code, field string) {
	t.Helper()
	if r.Status != http.StatusOK {
		t.Fatalf("status %d: %s", r.Status, r.Raw)
	}
	data, _ = r.Body["data"].(map[string]any)
	errs, _ := r.Body["errors"].([]any)
	if len(errs) == 0 {
		return data, "", ""
	}
	ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
	code, _ = ext["code"].(string)
	field, _ = ext["field"].(string)
	return data, code, field
}

func viewNames(t *testing.T, c caller, screen string) []string {
	t.Helper()
	data, code, _ := reply(t, c(listViews, map[string]any{"s": screen}))
	if code != "" {
		t.Fatalf("views(%s): %s", screen, code)
	}
	var out []string
	for _, v := range data["views"].([]any) {
		out = append(out, v.(map[string]any)["name"].(string))
	}
	return out
}

// Saved views over GraphQL: a person signed in saves their own and shared
// views, a key bound to another person lists the shared ones beside its
// person's own, deletes only its person's; a key bound to no one is
// FORBIDDEN; another person's own view is not found even by node(id).
func TestSavedViewsOverGraphQL(t *testing.T) {
	e := resttest.New(t)
	ada := e.NewPerson(e.Org.ID, "Ada", "Advisor", "advisor", "a long enough passphrase")
	asAda := sessionCaller(e, e.SignIn(ada.Email, "a long enough passphrase"))
	bob := e.NewUser(e.Org.ID, "Bob", "Broker", "advisor", "")
	asBob := keyCaller(e, boundKey(t, e, bob.ID.String(), []string{viewer.ScopeLeadsRead}))
	stage := e.Stages(e.Org.ID)[1].ID.String()

	board := map[string]any{"where": map[string]any{"primaryAdvisorId": ada.ID.String(), "priority": "high"}, "search": "acme"}
	data, code, _ := reply(t, asAda(saveView, map[string]any{"in": map[string]any{"name": " Hot leads ", "screen": "BOARD", "filters": board, "shared": true}}))
	if code != "" {
		t.Fatalf("saveView: %s", code)
	}
	saved := data["saveView"].(map[string]any)
	if saved["name"] != "Hot leads" || saved["screen"] != "BOARD" || saved["shared"] != true || saved["ownerId"] != ada.ID.String() {
		t.Errorf("saved %v", saved)
	}
	if f := saved["filters"].(map[string]any); f["search"] != "acme" || f["where"].(map[string]any)["priority"] != "high" {
		t.Errorf("filters read back as %v", f)
	}
	shared := saved["id"].(string)
	data, _, _ = reply(t, asAda(saveView, map[string]any{"in": map[string]any{"name": "My stage", "screen": "BOARD",
		"filters": map[string]any{"where": map[string]any{"stageId": stage}}}}))
	own := data["saveView"].(map[string]any)["id"].(string)
	if _, code, _ := reply(t, asBob(saveView, map[string]any{"in": map[string]any{"name": "Bob's approvals", "screen": "APPLICATIONS",
		"filters": map[string]any{"status": "approved"}}})); code != "" {
		t.Fatalf("Bob's saveView: %s", code)
	}

	if got := viewNames(t, asAda, "BOARD"); !slices.Equal(got, []string{"Hot leads", "My stage"}) {
		t.Errorf("Ada's board views: %v", got)
	}
	if got := viewNames(t, asBob, "BOARD"); !slices.Equal(got, []string{"Hot leads"}) {
		t.Errorf("Bob's board views: %v", got)
	}
	if got := viewNames(t, asBob, "APPLICATIONS"); !slices.Equal(got, []string{"Bob's approvals"}) {
		t.Errorf("Bob's application views: %v", got)
	}
	if _, code, _ := reply(t, asBob(`query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": own})); code != "NOT_FOUND" {
		t.Errorf("Bob reading Ada's own view by node: %s, want NOT_FOUND", code)
	}

	// A saved view applies: its where is the leads query's own.
	data, code, _ = reply(t, asAda(`query($w: LeadWhereInput) { leads(where: $w) { totalCount } }`, map[string]any{"w": board["where"]}))
	if code != "" {
		t.Errorf("the saved where applied to leads: %s %v", code, data)
	}

	if _, code, _ := reply(t, asBob(deleteView, map[string]any{"id": shared})); code != "FORBIDDEN" {
		t.Errorf("Bob deleting Ada's shared view: %s, want FORBIDDEN", code)
	}
	if _, code, _ := reply(t, asBob(deleteView, map[string]any{"id": own})); code != "NOT_FOUND" {
		t.Errorf("Bob deleting Ada's own view: %s, want NOT_FOUND", code)
	}
	data, code, _ = reply(t, asAda(deleteView, map[string]any{"id": own}))
	if code != "" || data["deleteView"] != own {
		t.Errorf("Ada deleting her own view: %v %s", data, code)
	}
	if got := viewNames(t, asAda, "BOARD"); !slices.Equal(got, []string{"Hot leads"}) {
		t.Errorf("after deleting: %v", got)
	}

	// Another organization's person finds none of them.
	other, otherAdmin := e.NewOrg("Other Shop", viewer.AllScopes...)
	otto := e.NewUser(other.ID, "Otto", "Other", "admin", "").ID.String()
	created, code := gql(t, e, otherAdmin, `mutation($in: CreateApiKeyInput!) { createApiKey(input: $in) { secret } }`,
		map[string]any{"in": map[string]any{"name": "Otto", "scopes": viewer.AllScopes, "userId": otto}})
	if code != "" {
		t.Fatalf("the other organization's key: %s", code)
	}
	asOtto := keyCaller(e, created["createApiKey"].(map[string]any)["secret"].(string))
	if got := viewNames(t, asOtto, "BOARD"); len(got) != 0 {
		t.Errorf("another organization's person lists %v", got)
	}
	if _, code, _ := reply(t, asOtto(deleteView, map[string]any{"id": shared})); code != "NOT_FOUND" {
		t.Errorf("another organization's admin deleting Ada's shared view: %s, want NOT_FOUND", code)
	}
	if _, code, _ := reply(t, asOtto(`query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": shared})); code != "NOT_FOUND" {
		t.Errorf("another organization's admin reading Ada's shared view by node: %s, want NOT_FOUND", code)
	}

	// The environment's key acts for no one.
	for _, c := range []gqlCase{
		{saveView, map[string]any{"in": map[string]any{"name": "x", "screen": "BOARD"}}},
		{listViews, map[string]any{"s": "BOARD"}},
		{deleteView, map[string]any{"id": shared}},
	} {
		if _, code, _ := reply(t, keyCaller(e, e.Key)(c.doc, c.vars)); code != "FORBIDDEN" {
			t.Errorf("%s with a key bound to no one: %s, want FORBIDDEN", c.doc, code)
		}
	}
	// An admin signed in may delete any view.
	boss := e.NewPerson(e.Org.ID, "Bea", "Boss", "admin", "another long passphrase")
	asBoss := sessionCaller(e, e.SignIn(boss.Email, "another long passphrase"))
	if _, code, _ := reply(t, asBoss(deleteView, map[string]any{"id": shared})); code != "" {
		t.Errorf("the admin deleting Ada's shared view: %s", code)
	}
}

// saveView checks the filters as the screen's own arguments, naming the
// key that is wrong; the name's bounds are the schema's.
func TestSaveViewValidation(t *testing.T) {
	e := resttest.New(t)
	u := e.NewUser(e.Org.ID, "Val", "Idator", "advisor", "")
	as := keyCaller(e, boundKey(t, e, u.ID.String(), []string{viewer.ScopeLeadsRead}))
	for _, tc := range []struct {
		name  string
		in    map[string]any
		field string
	}{
		{"UnknownKey", map[string]any{"name": "x", "screen": "BOARD", "filters": map[string]any{"stage": "new"}}, "filters.stage"},
		{"UnknownWhereKey", map[string]any{"name": "x", "screen": "BOARD", "filters": map[string]any{"where": map[string]any{"stage": "new"}}}, "filters.where.stage"},
		{"Enum", map[string]any{"name": "x", "screen": "APPLICATIONS", "filters": map[string]any{"status": "lost"}}, "filters.status"},
		{"MalformedID", map[string]any{"name": "x", "screen": "TASKS", "filters": map[string]any{"assigneeId": "me"}}, "filters.assigneeId"},
		{"Time", map[string]any{"name": "x", "screen": "RENEWALS", "filters": map[string]any{"dueBefore": "soon"}}, "filters.dueBefore"},
		{"NotAnObject", map[string]any{"name": "x", "screen": "BOARD", "filters": []any{1}}, "filters"},
		{"TooLarge", map[string]any{"name": "x", "screen": "BOARD", "filters": map[string]any{"search": strings.Repeat("a", 150),
			"where": map[string]any{"businessNameIn": slices.Repeat([]any{strings.Repeat("b", 1000)}, 9)}}}, "filters"},
		{"NameEmpty", map[string]any{"name": "", "screen": "BOARD"}, "name"},
		{"NameTooLong", map[string]any{"name": strings.Repeat("n", 101), "screen": "BOARD"}, "name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, code, field := reply(t, as(saveView, map[string]any{"in": tc.in}))
			if code != "VALIDATION_ERROR" || field != tc.field {
				t.Errorf("code %s field %q, want VALIDATION_ERROR naming %s", code, field, tc.field)
			}
		})
	}
	if got := viewNames(t, as, "BOARD"); len(got) != 0 {
		t.Errorf("refused views were saved: %v", got)
	}
}
