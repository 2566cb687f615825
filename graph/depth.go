package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// MaxDepth bounds how deeply one operation may nest selections. The
// complexity limit bounds the breadth; a cyclic path (lead → stage → leads
// → stage ...) costs little per level but makes the database walk far.
const MaxDepth = 10

// depthLimit refuses operations nested deeper than MaxDepth before any
// resolver runs.
var depthLimit = operationCheck{"DepthLimit", func(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if d := depth(oc.Operation.SelectionSet, oc.Doc.Fragments, 0); d > MaxDepth {
		return codedError("DEPTH_LIMIT_EXCEEDED", "the operation nests %d levels deep; at most %d are allowed", d, MaxDepth)
	}
	return introspectionLimit(oc.Operation.SelectionSet, oc.Doc.Fragments)
}}

// isIntrospection tells __schema and __type, whose selections describe the
// schema (a finite tree) rather than walk the data, and are bounded apart.
func isIntrospection(f *ast.Field) bool { return f.Name == "__schema" || f.Name == "__type" }

// introspectionLimit bounds the selections under __schema and __type: at
// most MaxIntrospectionDepth deep and MaxIntrospectionFields in all,
// fragments expanded. (gqlparser's MaxIntrospectionDepth rule already
// refuses lists of types nested three deep.)
func introspectionLimit(set ast.SelectionSet, fragments ast.FragmentDefinitionList) *gqlerror.Error {
	w := introspectionWalker{fragments: fragments}
	for _, f := range rootFields(set, fragments, 0) {
		if isIntrospection(f) {
			w.walk(f.SelectionSet, 1)
		}
	}
	switch {
	case w.deepest > MaxIntrospectionDepth:
		return codedError("DEPTH_LIMIT_EXCEEDED", "the introspection nests more than %d levels deep", MaxIntrospectionDepth)
	case w.fields > MaxIntrospectionFields:
		return codedError("COMPLEXITY_LIMIT_EXCEEDED", "the introspection selects more than %d fields", MaxIntrospectionFields)
	}
	return nil
}

// rootFields lists the operation's top-level fields, fragments expanded
// (bounded: fragments cannot cycle once validated, and nesting is cut off).
func rootFields(set ast.SelectionSet, fragments ast.FragmentDefinitionList, nested int) []*ast.Field {
	var out []*ast.Field
	if nested > MaxDepth {
		return nil
	}
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			out = append(out, s)
		case *ast.InlineFragment:
			out = append(out, rootFields(s.SelectionSet, fragments, nested+1)...)
		case *ast.FragmentSpread:
			if f := fragments.ForName(s.Name); f != nil {
				out = append(out, rootFields(f.SelectionSet, fragments, nested+1)...)
			}
		}
	}
	return out
}

// introspectionWalker counts fields and depth, and stops as soon as either
// is over its limit, so a query built to expand exponentially costs little.
type introspectionWalker struct {
	fragments       ast.FragmentDefinitionList
	fields, deepest int
}

func (w *introspectionWalker) over() bool {
	return w.fields > MaxIntrospectionFields || w.deepest > MaxIntrospectionDepth
}

func (w *introspectionWalker) walk(set ast.SelectionSet, level int) {
	w.deepest = max(w.deepest, level)
	for _, sel := range set {
		if w.over() {
			return
		}
		switch s := sel.(type) {
		case *ast.Field:
			w.fields++
			if len(s.SelectionSet) > 0 {
				w.walk(s.SelectionSet, level+1)
			}
		case *ast.InlineFragment:
			w.walk(s.SelectionSet, level)
		case *ast.FragmentSpread:
			if f := w.fragments.ForName(s.Name); f != nil {
				w.walk(f.SelectionSet, level)
			}
		}
	}
}

func depth(set ast.SelectionSet, fragments ast.FragmentDefinitionList, seen int) int {
	if seen > MaxDepth { // deep enough to refuse; stop before a fragment cycle costs more
		return seen
	}
	deepest := seen
	for _, sel := range set {
		var d int
		switch s := sel.(type) {
		case *ast.Field:
			if isIntrospection(s) {
				continue // bounded by introspectionLimit instead
			}
			if len(s.SelectionSet) == 0 {
				d = seen + 1
			} else {
				d = depth(s.SelectionSet, fragments, seen+1)
			}
		case *ast.InlineFragment:
			d = depth(s.SelectionSet, fragments, seen)
		case *ast.FragmentSpread:
			if f := fragments.ForName(s.Name); f != nil {
				d = depth(f.SelectionSet, fragments, seen)
			}
		}
		deepest = max(deepest, d)
	}
	return deepest
}
