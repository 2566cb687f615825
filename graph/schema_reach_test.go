package graph_test

import (
	"slices"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// unreachable lists the types of s that no path from the Query, Mutation
// or Subscription roots reaches: through a field's type, an argument's or
// an input field's type, or a union's members. An interface's
// implementations are not followed: a type that implements Node but that
// no field returns is one no client can list, so a leftover too (node(id:)
// needs an id read from somewhere). A client cannot send or receive such a
// type; it only makes the schema longer to read.
func unreachable(s *ast.Schema) []string {
	seen := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		d := s.Types[name]
		if d == nil || seen[name] {
			return
		}
		seen[name] = true
		for _, f := range d.Fields {
			visit(f.Type.Name())
			for _, a := range f.Arguments {
				visit(a.Type.Name())
			}
		}
		for _, i := range d.Interfaces {
			visit(i)
		}
		for _, t := range d.Types { // a union's members
			visit(t)
		}
	}
	for _, root := range []*ast.Definition{s.Query, s.Mutation, s.Subscription} {
		if root != nil {
			visit(root.Name)
		}
	}
	for _, dir := range s.Directives {
		for _, a := range dir.Arguments {
			visit(a.Type.Name())
		}
	}
	var out []string
	for name, d := range s.Types {
		if !seen[name] && !builtin(d) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func TestSchemaHasNoUnreachableTypes(t *testing.T) {
	if got := unreachable(servedSchema()); len(got) > 0 {
		t.Errorf("types no query, mutation or subscription reaches (skip them in the ent schema's entgql annotations, or remove them): %v", got)
	}
}

// TestUnreachableFindsLeftovers: the walk finds a type left behind (one
// that implements Node, with what only it uses), an input nothing takes,
// and not what a field, an argument, an input or a union reaches.
func TestUnreachableFindsLeftovers(t *testing.T) {
	s := gqlparser.MustLoadSchema(&ast.Source{Input: `
		interface Node { id: ID! }
		type Query { node(id: ID!): Node  list(where: Filter): [Item!]!  either: Either }
		input Filter { and: [Filter!]  kind: Kind }
		enum Kind { a b }
		type Item implements Node { id: ID! }
		union Either = Item | Member
		type Member { id: ID! }
		type Leftover implements Node { id: ID!  items(order: LeftoverOrder): [Item!] }
		input LeftoverOrder { field: LeftoverField }
		enum LeftoverField { X }
		input Unused { x: Int }
	`})
	got := unreachable(s)
	want := []string{"Leftover", "LeftoverField", "LeftoverOrder", "Unused"}
	if !slices.Equal(got, want) {
		t.Errorf("unreachable = %v, want %v", got, want)
	}
}
