package graph_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/rest/resttest"
)

// pagingArg is one paging argument of one field: a connection's after or
// before, an offset list's page or limit.
type pagingArg struct {
	typ string
	f   *ast.FieldDefinition
	arg *ast.ArgumentDefinition
}

func (p pagingArg) String() string { return p.typ + "." + p.f.Name + "(" + p.arg.Name + ")" }

// pagingArgs lists every paging argument of every field of s, nested
// fields (Lead.callEvents, Lead.documents) included.
func pagingArgs(s *ast.Schema) []pagingArg {
	var out []pagingArg
	for _, d := range s.Types {
		if d.Kind != ast.Object || builtin(d) {
			continue
		}
		for _, f := range d.Fields {
			for _, a := range f.Arguments {
				switch a.Name {
				case "after", "before", "page", "limit":
					out = append(out, pagingArg{d.Name, f, a})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b pagingArg) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// malformed are the values each kind of paging argument refuses: a
// cursor that is not base64, none at all, and valid base64 msgpack of the
// wrong shape; a page or a limit below 1 or above its bound.
func malformed(p pagingArg) []string {
	switch p.arg.Type.Name() {
	case "Cursor":
		return []string{`"garbage"`, `""`, `"gqFp2SQwMWEy"`}
	case "Int":
		max := graph.MaxLimit
		if p.arg.Name == "page" {
			max = graph.MaxPage
		}
		return []string{"0", "-1", fmt.Sprint(max + 1)}
	}
	return nil
}

// pagingQuery selects p's field with arg: value below the shortest path
// that reaches its type, each list on the way cut to one item (the
// argument is decoded for each parent, so one must exist), the field's
// other required arguments taken from the fixtures by name (automationId:
// the fixture "automation").
func pagingQuery(t *testing.T, s *ast.Schema, paths map[string][]string, fixtures map[string]string, p pagingArg, value string) string {
	t.Helper()
	path, ok := paths[p.typ]
	if !ok {
		t.Fatalf("no path from Query reaches %s", p.typ)
	}
	var b strings.Builder
	b.WriteString("{ ")
	typ := s.Query
	for _, name := range path {
		f := typ.Fields.ForName(name)
		b.WriteString(name + oneItem(f) + " { ")
		typ = s.Types[f.Type.Name()]
	}
	args := []string{p.arg.Name + ": " + value}
	for _, a := range p.f.Arguments {
		if a.Type.NonNull && a.DefaultValue == nil {
			id, ok := fixtures[strings.TrimSuffix(a.Name, "Id")]
			if !ok {
				t.Fatalf("%s needs %s: add a fixture of that name to graphFixtures", p, a.Name)
			}
			args = append(args, fmt.Sprintf("%s: %q", a.Name, id))
		}
	}
	b.WriteString(p.f.Name + "(" + strings.Join(args, ", ") + ") { __typename }")
	b.WriteString(strings.Repeat(" }", len(path)) + " }")
	return b.String()
}

// oneItem is the arguments that cut f's list to one item, if it is one.
func oneItem(f *ast.FieldDefinition) string {
	for _, a := range f.Arguments {
		switch a.Name {
		case "first", "limit":
			return "(" + a.Name + ": 1)"
		}
	}
	return ""
}

// TestMalformedPagingArgumentsAreValidationErrors: for every paging
// argument in the schema (read from it, so a new list is covered), each
// malformed value, written in the document or sent as a variable, is
// VALIDATION_ERROR naming the argument, never an outage or an internal
// error.
func TestMalformedPagingArgumentsAreValidationErrors(t *testing.T) {
	e := resttest.New(t)
	fixtures := graphFixtures(t, e)
	s := servedSchema()
	paths := typePaths(s)
	for _, p := range pagingArgs(s) {
		for _, value := range malformed(p) {
			t.Run(p.String()+"="+value, func(t *testing.T) {
				for _, body := range pagingBodies(t, s, paths, fixtures, p, value) {
					r := e.Do(resttest.Request{Method: "POST", Path: "/graphql", Key: e.Key, Body: body})
					code, field := firstCodeAndField(r.Body)
					if code != "VALIDATION_ERROR" || field != p.arg.Name || r.Status >= 500 {
						t.Errorf("%v\nstatus %d, code %q, field %q; want VALIDATION_ERROR naming %s: %s", body, r.Status, code, field, p.arg.Name, r.Raw)
					}
				}
			})
		}
	}
}

// TestPagingBoundViolationsShareOneStatus: every paging argument's bound
// (a page or a limit out of range, a cursor that is not one) is refused
// with the same HTTP status, wherever the rule is checked.
func TestPagingBoundViolationsShareOneStatus(t *testing.T) {
	e := resttest.New(t)
	fixtures := graphFixtures(t, e)
	s := servedSchema()
	paths := typePaths(s)
	statuses := map[int][]string{}
	for _, p := range pagingArgs(s) {
		for _, value := range malformed(p) {
			body := pagingBodies(t, s, paths, fixtures, p, value)[0]
			r := e.Do(resttest.Request{Method: "POST", Path: "/graphql", Key: e.Key, Body: body})
			statuses[r.Status] = append(statuses[r.Status], p.String()+"="+value)
		}
	}
	if len(statuses) > 1 {
		for status, cases := range statuses {
			t.Errorf("%d of %d bound violations answer %d, such as %v", len(cases), countAll(statuses), status, cases[:min(len(cases), 6)])
		}
	}
}

func countAll(m map[int][]string) int {
	n := 0
	for _, v := range m {
		n += len(v)
	}
	return n
}

// pagingBodies are the requests giving p's argument value: written in the
// document, then as a variable.
func pagingBodies(t *testing.T, s *ast.Schema, paths map[string][]string, fixtures map[string]string, p pagingArg, value string) []map[string]any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		t.Fatal(err)
	}
	return []map[string]any{
		{"query": pagingQuery(t, s, paths, fixtures, p, value)},
		{"query": "query($v: " + p.arg.Type.Name() + ") " + pagingQuery(t, s, paths, fixtures, p, "$v"), "variables": map[string]any{"v": v}},
	}
}

// firstCodeAndField is the code and field of a GraphQL response's first
// error.
func firstCodeAndField(body map[string]any) (code, field string) {
	errs, _ := body["errors"].([]any)
	if len(errs) == 0 {
		return "", ""
	}
	ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
	code, _ = ext["code"].(string)
	field, _ = ext["field"].(string)
	return code, field
}
