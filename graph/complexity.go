package graph

import (
	"context"
	"math"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// costedSchema prices every field for the complexity limit from the schema
// itself, so a connection or list added later is priced without anyone
// remembering to: a field sized by first, last or limit costs its page size
// times what it selects (maxPage when none is given, as pageBounds
// supplies); nodes(ids:) costs per id; any other list of objects costs
// listEstimate times what it selects, unless it is the nodes or edges of a
// page already priced.
type costedSchema struct {
	graphql.ExecutableSchema
	maxPage int
}

func (s costedSchema) Complexity(ctx context.Context, typeName, field string, child int, args map[string]any) (int, bool) {
	parent := s.Schema().Types[typeName]
	if parent == nil {
		return s.ExecutableSchema.Complexity(ctx, typeName, field, child, args)
	}
	def := parent.Fields.ForName(field)
	if def == nil {
		return s.ExecutableSchema.Complexity(ctx, typeName, field, child, args)
	}
	if n, ok := s.pageSize(def, args); ok {
		return saturating(1, n, child), true
	}
	if def.Type.Elem != nil && !isPage(parent) && s.isComposite(def.Type) {
		return saturating(1, listEstimate, child), true
	}
	return s.ExecutableSchema.Complexity(ctx, typeName, field, child, args)
}

// pageSize is how many items a sized field may return.
func (s costedSchema) pageSize(def *ast.FieldDefinition, args map[string]any) (int, bool) {
	if def.Arguments.ForName(argIDs) != nil {
		ids, _ := args[argIDs].([]any)
		return len(ids), true
	}
	sized := false
	for _, name := range []string{argFirst, argLast, argLimit} {
		if def.Arguments.ForName(name) == nil {
			continue
		}
		sized = true
		if n, ok := intArg(args[name]); ok {
			return int(max(0, min(n, math.MaxInt32))), true
		}
	}
	return s.maxPage, sized
}

// isPage tells a connection or offset page, whose lists its field's page
// size already prices.
func isPage(def *ast.Definition) bool {
	return def.Fields.ForName("pageInfo") != nil || def.Fields.ForName("hasMore") != nil
}

func (s costedSchema) isComposite(t *ast.Type) bool {
	d := s.Schema().Types[t.Name()]
	return d != nil && (d.Kind == ast.Object || d.Kind == ast.Interface || d.Kind == ast.Union)
}

// saturating is base + n*child without overflowing.
func saturating(base, n, child int) int {
	if n > 0 && child > (math.MaxInt32-base)/n {
		return math.MaxInt32
	}
	return base + n*child
}
