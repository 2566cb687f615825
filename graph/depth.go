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
type depthLimit struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = depthLimit{}

func (depthLimit) ExtensionName() string                   { return "DepthLimit" }
func (depthLimit) Validate(graphql.ExecutableSchema) error { return nil }
func (depthLimit) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil {
		return nil
	}
	if d := depth(oc.Operation.SelectionSet, oc.Doc.Fragments, 0); d > MaxDepth {
		err := gqlerror.Errorf("the operation nests %d levels deep; at most %d are allowed", d, MaxDepth)
		err.Extensions = map[string]any{"code": "DEPTH_LIMIT_EXCEEDED"}
		return err
	}
	return nil
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
