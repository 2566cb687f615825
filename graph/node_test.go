package graph_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/lendingpipe/svc/rest/resttest"
)

// nodeTypes are the schema's types that implement Node.
func nodeTypes(s *ast.Schema) []string {
	var out []string
	for _, d := range s.GetPossibleTypes(s.Types["Node"]) {
		out = append(out, d.Name)
	}
	slices.Sort(out)
	return out
}

// takesNoArguments reports whether f can be selected without arguments.
func takesNoArguments(f *ast.FieldDefinition) bool {
	for _, a := range f.Arguments {
		if a.Type.NonNull && a.DefaultValue == nil {
			return false
		}
	}
	return true
}

// listPaths finds, for each Node type, the shortest path of fields from
// Query that lists it (leads.edges.node, commissionsPage.nodes.payments),
// through fields that need no argument: where a client reads the ids it
// may then pass to node(id:).
func listPaths(s *ast.Schema) map[string][]string {
	found := map[string][]string{}
	for typ, path := range typePaths(s) {
		if slices.Contains(s.Types[typ].Interfaces, "Node") {
			found[typ] = path
		}
	}
	return found
}

// typePaths finds, for each object type, the shortest path of fields from
// Query that reaches it through fields that need no argument, node(id:)
// and nodes(ids:) aside.
func typePaths(s *ast.Schema) map[string][]string {
	found := map[string][]string{s.Query.Name: nil}
	queue := []string{s.Query.Name}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, f := range s.Types[cur].Fields {
			byID := cur == s.Query.Name && (f.Name == "node" || f.Name == "nodes") // what node_test tests
			if strings.HasPrefix(f.Name, "__") || byID || !takesNoArguments(f) {
				continue
			}
			d := s.Types[f.Type.Name()]
			if d == nil || d.Kind != ast.Object {
				continue
			}
			if _, ok := found[d.Name]; !ok {
				found[d.Name] = append(slices.Clone(found[cur]), f.Name)
				queue = append(queue, d.Name)
			}
		}
	}
	return found
}

// selection is the query selecting id at the end of path.
func selection(path []string) string {
	return "{ " + strings.Join(path, " { ") + " { id }" + strings.Repeat(" }", len(path)-1) + " }"
}

// idsAt collects the ids at the end of path in data, through lists.
func idsAt(v any, path []string) []string {
	switch v := v.(type) {
	case []any:
		var out []string
		for _, item := range v {
			out = append(out, idsAt(item, path)...)
		}
		return out
	case map[string]any:
		if len(path) == 0 {
			id, _ := v["id"].(string)
			return []string{id}
		}
		return idsAt(v[path[0]], path[1:])
	}
	return nil
}

// TestEveryNodeTypeRoundTrips: for every type that implements Node (read
// from the schema, so a new one is covered), an id read from its list
// answers node(id:) and nodes(ids:) with that record, and another
// organization's key finds nothing under it.
func TestEveryNodeTypeRoundTrips(t *testing.T) {
	e := resttest.New(t)
	a := graphFixtures(t, e)
	_, otherKey := e.NewOrg("Other Org")
	s := servedSchema()
	paths := listPaths(s)
	for _, typ := range nodeTypes(s) {
		t.Run(typ, func(t *testing.T) {
			path := paths[typ]
			if path == nil {
				t.Fatalf("no Query field lists %s without arguments: a client cannot read an id to pass to node(id:)", typ)
			}
			// A person's records (notifications) are read with a key
			// bound to the person.
			key := e.Key
			data, code := gql(t, e, key, selection(path), nil)
			if code == "FORBIDDEN" {
				key = a["personKey"]
				data, code = gql(t, e, key, selection(path), nil)
			}
			ids := idsAt(data, path)
			if code != "" || len(ids) == 0 || ids[0] == "" {
				t.Fatalf("%s listed no %s (code %q): seed one in graphFixtures", strings.Join(path, "."), typ, code)
			}
			id := ids[0]
			doc := `query($id: ID!) { node(id: $id) { __typename id } nodes(ids: [$id]) { __typename id } }`
			data, code = gql(t, e, key, doc, map[string]any{"id": id})
			if code != "" {
				t.Fatalf("node(id: %s) of a %s: %s", id, typ, code)
			}
			for _, got := range []any{data["node"], data["nodes"].([]any)[0]} {
				n, _ := got.(map[string]any)
				if n["__typename"] != typ || n["id"] != id {
					t.Errorf("got %v, want the %s %s", got, typ, id)
				}
			}
			data, code = gql(t, e, otherKey, doc, map[string]any{"id": id})
			if code != "NOT_FOUND" || data["node"] != nil {
				t.Errorf("another organization's key: code %q, data %v; want NOT_FOUND and no node", code, data)
			}
		})
	}
}

// TestListPathsFindNestedLists: the walk reaches a type listed only
// within another's list, and a selection reads its ids.
func TestListPathsFindNestedLists(t *testing.T) {
	path := listPaths(servedSchema())["CommissionPayment"]
	if len(path) < 2 || path[len(path)-1] != "payments" {
		t.Errorf("CommissionPayment listed at %q, want within a commission's payments", path)
	}
	if got, want := selection([]string{"a", "b", "c"}), "{ a { b { c { id } } } }"; got != want {
		t.Errorf("selection = %q, want %q", got, want)
	}
	data := map[string]any{"a": []any{map[string]any{"b": []any{map[string]any{"id": "x"}, map[string]any{"id": "y"}}}}}
	if got := idsAt(data, []string{"a", "b"}); !slices.Equal(got, []string{"x", "y"}) {
		t.Errorf("idsAt = %v", got)
	}
}

// A table that cannot be read (here: gone from under the server) is a
// failure of the server, not an id that names nothing: node and nodes
// answer INTERNAL_ERROR, not NOT_FOUND.
func TestNodeLookupFailureIsNotNotFound(t *testing.T) {
	e := resttest.New(t)
	if _, err := e.DB.SQL.Exec("ALTER TABLE teams RENAME TO teams_gone"); err != nil {
		t.Fatal(err)
	}
	ids := []any{uuid.NewString(), uuid.NewString()}
	for doc, vars := range map[string]map[string]any{
		`query($id: ID!) { node(id: $id) { id } }`:        {"id": ids[0]},
		`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`: {"ids": ids},
	} {
		if status, code := gqlCode(e, e.Key, doc, vars); code != "INTERNAL_ERROR" {
			t.Errorf("%s: %d %q, want INTERNAL_ERROR", doc, status, code)
		}
	}
}
