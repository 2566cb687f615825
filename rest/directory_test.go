package rest_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

// attrsOf is the attribute name of each item of a collection.
func attrsOf(r *resttest.Response, name string) []any {
	var out []any
	for _, it := range r.Items() {
		out = append(out, it["attributes"].(map[string]any)[name])
	}
	return out
}

func idsOf(r *resttest.Response) []string {
	var out []string
	for _, it := range r.Items() {
		out = append(out, it["id"].(string))
	}
	return out
}

func mustPage(t *testing.T, r *resttest.Response, total, page, limit int, hasMore bool) {
	t.Helper()
	mustStatus(t, r, http.StatusOK)
	meta := r.Meta()
	if meta["total"] != float64(total) || meta["page"] != float64(page) || meta["limit"] != float64(limit) || meta["hasMore"] != hasMore {
		t.Fatalf("meta = %v, want total %d page %d limit %d hasMore %v", meta, total, page, limit, hasMore)
	}
}

// GET /v1/stages lists the pipeline in order, in pages, and its ids are the
// ones POST /v1/leads and the stage move take.
func TestListStages(t *testing.T) {
	e := resttest.New(t)
	r := e.Get("/v1/stages", e.Key)
	mustPage(t, r, 7, 1, 20, false)
	want := []any{"new", "contacted", "qualified", "application", "approved", "funded", "lost"}
	if got := attrsOf(r, "stageKey"); !slices.Equal(got, want) {
		t.Fatalf("stageKey = %v, want %v", got, want)
	}
	first := r.Items()[0]
	if first["type"] != "stage" || r.Items()[5]["attributes"].(map[string]any)["semanticSlot"] != "won" {
		t.Fatalf("items = %v", r.Items())
	}
	positions := attrsOf(r, "position")
	if !slices.IsSortedFunc(positions, func(a, b any) int { return int(a.(float64) - b.(float64)) }) {
		t.Fatalf("positions = %v, want pipeline order", positions)
	}
	for i, s := range e.Stages(e.Org.ID) {
		if idsOf(r)[i] != s.ID.String() {
			t.Fatalf("stage %d is %s, want %s", i, idsOf(r)[i], s.ID)
		}
	}

	mustPage(t, e.Get("/v1/stages?page=2&limit=3", e.Key), 7, 2, 3, true)
	last := e.Get("/v1/stages?page=3&limit=3", e.Key)
	mustPage(t, last, 7, 3, 3, false)
	if got := attrsOf(last, "stageKey"); !slices.Equal(got, []any{"lost"}) {
		t.Fatalf("page 3 = %v", got)
	}

	// The discovered id is the one the writes take.
	qualified := idsOf(r)[2]
	lead := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Discovered", "stageId": qualified})
	mustStatus(t, lead, http.StatusCreated)
	if lead.Attr("stage").(map[string]any)["id"] != qualified {
		t.Fatalf("lead stage = %v, want %s", lead.Attr("stage"), qualified)
	}
	moved := e.Post("/v1/leads/"+lead.Data()["id"].(string)+"/stage", e.Key, map[string]any{"stageId": idsOf(r)[5]})
	mustStatus(t, moved, http.StatusOK)
}

// GET /v1/users lists users by last name with their team, filters by role
// and team, and its ids are the ones assignment and the dialer take.
func TestListUsers(t *testing.T) {
	e := resttest.New(t)
	advisor := e.NewUser(e.Org.ID, "Maya", "Chen", "advisor", "Closers")
	agent := e.NewUser(e.Org.ID, "Riley", "Brooks", "agent", "Closers")
	floor := e.NewUser(e.Org.ID, "Jordan", "Kim", "agent", "Floor")
	admin := e.NewUser(e.Org.ID, "Ada", "Zed", "admin", "")

	r := e.Get("/v1/users", e.Key)
	mustPage(t, r, 4, 1, 20, false)
	if got, want := idsOf(r), []string{agent.ID.String(), advisor.ID.String(), floor.ID.String(), admin.ID.String()}; !slices.Equal(got, want) {
		t.Fatalf("users = %v, want by last name %v", got, want)
	}
	first := r.Items()[0]["attributes"].(map[string]any)
	if first["firstName"] != "Riley" || first["email"] != "riley.brooks@example.com" || first["role"] != "agent" ||
		first["teamId"] != agent.TeamID.String() || first["teamName"] != "Closers" || r.Items()[0]["type"] != "user" {
		t.Fatalf("first user = %v", first)
	}
	if z := r.Items()[3]["attributes"].(map[string]any); z["teamId"] != nil || z["teamName"] != nil {
		t.Fatalf("a user without a team = %v", z)
	}

	agents := e.Get("/v1/users?role=agent", e.Key)
	mustPage(t, agents, 2, 1, 20, false)
	if got := idsOf(agents); !slices.Equal(got, []string{agent.ID.String(), floor.ID.String()}) {
		t.Fatalf("agents = %v", got)
	}
	closers := e.Get("/v1/users?teamId="+agent.TeamID.String(), e.Key)
	if got := idsOf(closers); !slices.Equal(got, []string{agent.ID.String(), advisor.ID.String()}) {
		t.Fatalf("team Closers = %v", got)
	}
	both := e.Get("/v1/users?role=agent&teamId="+floor.TeamID.String()+"&limit=1", e.Key)
	mustPage(t, both, 1, 1, 1, false)
	mustPage(t, e.Get("/v1/users?limit=3&page=2", e.Key), 4, 2, 3, false)

	for _, c := range []struct{ query, field string }{
		{"role=boss", "role"}, {"role=Agent", "role"}, {"teamId=floor", "teamId"},
		{"page=0", "page"}, {"limit=101", "limit"}, {"limit=ten", "limit"},
	} {
		mustError(t, e.Get("/v1/users?"+c.query, e.Key), http.StatusUnprocessableEntity, "VALIDATION_ERROR", c.field)
	}

	// The discovered ids are the ones the writes take.
	lead := createLead(t, e, e.Key, map[string]any{"businessName": "Assigned"})
	assigned := e.Post("/v1/leads/"+lead+"/assign", e.Key, map[string]any{"advisorId": idsOf(r)[1]})
	mustStatus(t, assigned, http.StatusOK)
	if assigned.Attr("primaryAdvisorName") != "Maya Chen" {
		t.Fatalf("assigned to %v", assigned.Attr("primaryAdvisorName"))
	}
	call := e.Post("/v1/dialer/events", e.Key, map[string]any{"externalCallId": "c-1", "userId": idsOf(agents)[0],
		"eventType": "call_started", "occurredAt": "2026-11-22T09:00:00Z"})
	mustStatus(t, call, http.StatusCreated)
}

// GET /v1/teams lists teams by name; its ids filter users and the board.
func TestListTeams(t *testing.T) {
	e := resttest.New(t)
	mustPage(t, e.Get("/v1/teams", e.Key), 0, 1, 20, false)
	floor := e.NewUser(e.Org.ID, "Jordan", "Kim", "agent", "Floor")
	closer := e.NewUser(e.Org.ID, "Riley", "Brooks", "agent", "Closers")
	r := e.Get("/v1/teams", e.Key)
	mustPage(t, r, 2, 1, 20, false)
	if got := attrsOf(r, "name"); !slices.Equal(got, []any{"Closers", "Floor"}) {
		t.Fatalf("teams = %v", got)
	}
	if got := idsOf(r); !slices.Equal(got, []string{closer.TeamID.String(), floor.TeamID.String()}) || r.Items()[0]["type"] != "team" {
		t.Fatalf("teams = %v", r.Items())
	}
	board := e.Get("/v1/dialer/agents?teamId="+idsOf(r)[1], e.Key)
	mustPage(t, board, 1, 1, 20, false)
	if board.Items()[0]["attributes"].(map[string]any)["userId"] != floor.ID.String() {
		t.Fatalf("board of Floor = %v", board.Items())
	}
	mustError(t, e.Get("/v1/teams?page=1000001", e.Key), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "page")
}

// The directory is readable by any key of the organization (the ent
// policy asks no scope of stages, users and teams), only with a key, only
// with GET, and only within the organization.
func TestDirectoryAccess(t *testing.T) {
	e := resttest.New(t)
	agent := e.NewUser(e.Org.ID, "Riley", "Brooks", "agent", "Closers")
	noScopes := e.NewKey(e.Org.ID)
	dialerOnly := e.NewKey(e.Org.ID, viewer.ScopeDialerWrite)
	other, otherKey := e.NewOrg("Other Shop", viewer.AllScopes...)
	for _, path := range []string{"/v1/stages", "/v1/users", "/v1/teams"} {
		t.Run(path, func(t *testing.T) {
			for _, key := range []string{noScopes, dialerOnly} {
				if r := e.Get(path, key); r.Status != http.StatusOK || r.Meta()["total"] == float64(0) {
					t.Fatalf("a key of the organization: %d %s", r.Status, r.Raw)
				}
			}
			mustError(t, e.Get(path, ""), http.StatusUnauthorized, "UNAUTHORIZED", "")
			for _, method := range []string{"POST", "PUT", "PATCH", "DELETE"} {
				mustError(t, e.Do(resttest.Request{Method: method, Path: path, Key: e.Key, Body: map[string]any{}}),
					http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "")
			}
		})
	}
	// Another organization sees its own pipeline, and nothing of this one's
	// users, even when it filters by this one's team.
	theirs := e.Get("/v1/stages", otherKey)
	if got, want := idsOf(theirs)[0], e.Stages(other.ID)[0].ID.String(); got != want {
		t.Fatalf("another organization's first stage = %s, want %s", got, want)
	}
	mustPage(t, e.Get("/v1/users?teamId="+agent.TeamID.String(), otherKey), 0, 1, 20, false)
	mustPage(t, e.Get("/v1/users", otherKey), 0, 1, 20, false)
	mustPage(t, e.Get("/v1/teams", otherKey), 0, 1, 20, false)
}

// REST and GraphQL read the directory through the same resolvers: the
// same users in the same order with the same teams.
func TestDirectoryMatchesGraphQL(t *testing.T) {
	e := resttest.New(t)
	e.NewUser(e.Org.ID, "Maya", "Chen", "advisor", "Closers")
	e.NewUser(e.Org.ID, "Riley", "Brooks", "agent", "Floor")
	rest := e.Get("/v1/users?role=agent", e.Key)
	gql := e.Post("/graphql", e.Key, map[string]any{"query": `{ usersPage(role: agent) { total nodes { id team { name } } } }`})
	mustStatus(t, gql, http.StatusOK)
	page := gql.Body["data"].(map[string]any)["usersPage"].(map[string]any)
	nodes := page["nodes"].([]any)
	if page["total"] != rest.Meta()["total"] || len(nodes) != 1 || nodes[0].(map[string]any)["id"] != idsOf(rest)[0] ||
		nodes[0].(map[string]any)["team"].(map[string]any)["name"] != rest.Items()[0]["attributes"].(map[string]any)["teamName"] {
		t.Fatalf("GraphQL %v, REST %s", page, rest.Raw)
	}
	// The same bounds: a page over 100 is refused, naming the argument.
	for _, field := range []string{"stagesPage", "usersPage", "teamsPage"} {
		r := e.Post("/graphql", e.Key, map[string]any{"query": `{ ` + field + `(limit: 101) { total } }`})
		if !strings.Contains(string(r.Raw), `"VALIDATION_ERROR"`) || !strings.Contains(string(r.Raw), `"limit"`) {
			t.Errorf("%s(limit: 101): %s", field, r.Raw)
		}
	}
}
