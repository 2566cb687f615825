package graph_test

import (
	"slices"
	"testing"

	"github.com/lendingpipe/svc/rest/resttest"
)

const boardPage = `query($first: Int, $after: Cursor, $last: Int, $before: Cursor, $team: ID) {
	agentsBoard(first: $first, after: $after, last: $last, before: $before, teamId: $team) {
		totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
		edges { cursor node { firstName lastName } } } }`

// boardWalk is one page of the agents board connection: the agents' names
// in order, and its pageInfo.
type boardWalk struct {
	names []string
	info  map[string]any
	total any
}

func walkBoard(t *testing.T, e *resttest.Env, vars map[string]any) boardWalk {
	t.Helper()
	data, code := gql(t, e, e.Key, boardPage, vars)
	if code != "" {
		t.Fatalf("agentsBoard(%v): %s", vars, code)
	}
	conn := data["agentsBoard"].(map[string]any)
	w := boardWalk{info: conn["pageInfo"].(map[string]any), total: conn["totalCount"]}
	for _, edge := range conn["edges"].([]any) {
		node := edge.(map[string]any)["node"].(map[string]any)
		w.names = append(w.names, node["firstName"].(string)+" "+node["lastName"].(string))
	}
	return w
}

// The agents board is a Relay connection like every other list: ordered by
// last name, first name and id, paged forwards with first/after and
// backwards with last/before, counted by totalCount, and continued by
// cursor even when agents join between pages.
func TestAgentsBoardConnection(t *testing.T) {
	e := resttest.New(t)
	for _, n := range [][3]string{{"Eve", "Cole", ""}, {"Bob", "Baker", ""}, {"Dee", "Cole", "Closers"}, {"Cid", "Adams", ""}, {"Ann", "Baker", ""}} {
		e.NewUser(e.Org.ID, n[0], n[1], "agent", n[2])
	}
	e.NewUser(e.Org.ID, "Abe", "Advisor", "advisor", "") // not an agent: not on the board
	board := []string{"Cid Adams", "Ann Baker", "Bob Baker", "Dee Cole", "Eve Cole"}

	t.Run("Forwards", func(t *testing.T) {
		var got []string
		vars := map[string]any{"first": 2}
		for i, want := range []struct{ next, prev bool }{{true, false}, {true, true}, {false, true}} {
			w := walkBoard(t, e, vars)
			if w.total != 5.0 || w.info["hasNextPage"] != want.next || w.info["hasPreviousPage"] != want.prev {
				t.Fatalf("page %d: totalCount %v, pageInfo %v", i, w.total, w.info)
			}
			got = append(got, w.names...)
			vars["after"] = w.info["endCursor"]
		}
		if !slices.Equal(got, board) {
			t.Fatalf("forwards %v, want %v", got, board)
		}
	})
	t.Run("Backwards", func(t *testing.T) {
		var got []string
		vars := map[string]any{"last": 2}
		for i, want := range []struct{ next, prev bool }{{false, true}, {true, true}, {true, false}} {
			w := walkBoard(t, e, vars)
			if w.info["hasNextPage"] != want.next || w.info["hasPreviousPage"] != want.prev {
				t.Fatalf("page %d: pageInfo %v", i, w.info)
			}
			got = append(w.names, got...)
			vars["before"] = w.info["startCursor"]
		}
		if !slices.Equal(got, board) {
			t.Fatalf("backwards %v, want %v", got, board)
		}
	})
	t.Run("SameOrderAsTheOffsetPages", func(t *testing.T) {
		data, _ := gql(t, e, e.Key, `{ agentsBoardPage(limit: 10) { nodes { firstName lastName } } }`, nil)
		var got []string
		for _, n := range data["agentsBoardPage"].(map[string]any)["nodes"].([]any) {
			row := n.(map[string]any)
			got = append(got, row["firstName"].(string)+" "+row["lastName"].(string))
		}
		if !slices.Equal(got, board) {
			t.Fatalf("agentsBoardPage %v, want %v", got, board)
		}
	})
	t.Run("Team", func(t *testing.T) {
		team := e.NewUser(e.Org.ID, "Fay", "Cole", "advisor", "Closers").TeamID
		w := walkBoard(t, e, map[string]any{"team": team.String()})
		if w.total != 1.0 || !slices.Equal(w.names, []string{"Dee Cole"}) {
			t.Fatalf("team board: %v of %v", w.names, w.total)
		}
	})
	t.Run("ContinuesByCursor", func(t *testing.T) {
		first := walkBoard(t, e, map[string]any{"first": 2})
		e.NewUser(e.Org.ID, "Amy", "Baker", "agent", "") // sorts before the cursor: not on the next page
		e.NewUser(e.Org.ID, "Bea", "Baker", "agent", "") // sorts after it: next
		next := walkBoard(t, e, map[string]any{"first": 2, "after": first.info["endCursor"]})
		if !slices.Equal(next.names, []string{"Bea Baker", "Bob Baker"}) || next.total != 7.0 {
			t.Fatalf("after %v: %v of %v", first.names, next.names, next.total)
		}
	})
	t.Run("ErrForeignCursor", func(t *testing.T) {
		data, _ := gql(t, e, e.Key, `{ users(first: 1, orderBy: {field: LAST_NAME}) { edges { cursor } } }`, nil)
		cursor := data["users"].(map[string]any)["edges"].([]any)[0].(map[string]any)["cursor"]
		got := gqlFirstError(t, e, boardPage, map[string]any{"first": 1, "after": cursor})
		if got.Code != "VALIDATION_ERROR" || got.Field != "after" {
			t.Fatalf("a users cursor: %s", got.Raw)
		}
	})
	t.Run("ErrFirstAndLast", func(t *testing.T) {
		got := gqlFirstError(t, e, boardPage, map[string]any{"first": 1, "last": 1})
		if got.Code != "VALIDATION_ERROR" || got.Field != "last" {
			t.Fatalf("first and last: %s", got.Raw)
		}
	})
}
