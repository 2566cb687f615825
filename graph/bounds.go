package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/leads"
)

// Arguments that size what a field returns: Relay connections take first
// and last, offset pages take limit, nodes takes ids.
const (
	argFirst = "first"
	argLast  = "last"
	argLimit = "limit"
	argPage  = "page"
	argIDs   = "ids"
)

// A connection's position: after and before take a Cursor.
const (
	argAfter   = "after"
	argBefore  = "before"
	cursorType = "Cursor"
)

// pageBounds refuses, before any resolver runs, an operation that asks any
// field for more than maxPage items or gives a connection a cursor that is
// not one, so no connection can be forgotten; and it gives every
// connection asked for with neither first nor last a first of maxPage, so
// none answers everything.
func pageBounds(maxPage int) operationCheck {
	return operationCheck{"PageBounds", func(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
		w := pageWalker{maxPage: maxPage, vars: oc.Variables, seen: map[string]bool{}}
		return w.selections(oc.Operation.SelectionSet)
	}}
}

// pageWalker visits every field of an operation once; a fragment's fields
// are the same wherever it is spread, so each fragment is visited once.
type pageWalker struct {
	maxPage int
	vars    map[string]any
	seen    map[string]bool
}

func (w pageWalker) selections(set ast.SelectionSet) *gqlerror.Error {
	for _, sel := range set {
		var err *gqlerror.Error
		switch s := sel.(type) {
		case *ast.Field:
			if err = w.field(s); err == nil {
				err = w.selections(s.SelectionSet)
			}
		case *ast.InlineFragment:
			err = w.selections(s.SelectionSet)
		case *ast.FragmentSpread:
			if s.Definition != nil && !w.seen[s.Name] {
				w.seen[s.Name] = true
				err = w.selections(s.Definition.SelectionSet)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// field checks one field's sizing arguments and supplies a missing first.
func (w pageWalker) field(f *ast.Field) *gqlerror.Error {
	if f.Definition == nil || len(f.Definition.Arguments) == 0 {
		return nil
	}
	args := f.ArgumentMap(w.vars)
	for _, b := range w.bounds() {
		if f.Definition.Arguments.ForName(b.arg) == nil {
			continue
		}
		if n, ok := intArg(args[b.arg]); ok && !b.Contains(n) {
			return pageError(f, b.arg, "must be between %d and %d", b.Min, b.Max)
		}
	}
	if err := cursorArgs(f, args); err != nil {
		return err
	}
	if ids, ok := args[argIDs].([]any); ok && f.Definition.Arguments.ForName(argIDs) != nil && len(ids) > w.maxIDs(f) {
		return pageError(f, argIDs, "must list at most %d ids", w.maxIDs(f))
	}
	if def := f.Definition.Arguments.ForName(argFirst); def != nil && args[argFirst] == nil && args[argLast] == nil {
		setArgument(f, def, strconv.Itoa(w.maxPage))
	}
	return nil
}

// ownMaxIDs are the fields whose ids argument has a bound of its own, not
// the page's: a bulk change names up to leads.MaxBulk leads (PRODUCT 10.7).
var ownMaxIDs = map[string]int{"bulkUpdateLeads": leads.MaxBulk}

// maxIDs is the most ids field f's ids argument may list.
func (w pageWalker) maxIDs(f *ast.Field) int {
	if n, ok := ownMaxIDs[f.Definition.Name]; ok {
		return n
	}
	return w.maxPage
}

// cursorArgs refuses an after or before that is not a cursor, before any
// resolver runs: decoded later, a malformed one failed inside a resolver
// (a cursor's decoder ends in io.EOF, which read as a dropped database
// connection) or inside ent's eager loading of a nested connection.
func cursorArgs(f *ast.Field, args map[string]any) *gqlerror.Error {
	for _, name := range []string{argAfter, argBefore} {
		def := f.Definition.Arguments.ForName(name)
		if def == nil || def.Type.Name() != cursorType || args[name] == nil {
			continue
		}
		var c ent.Cursor
		if err := c.UnmarshalGQL(args[name]); err != nil {
			return pageError(f, name, "is not a cursor of this list: pass a pageInfo or edge cursor as it was given")
		}
	}
	return nil
}

// bound is the range of one sizing argument.
type bound struct {
	arg string
	bounds.Range
}

// bounds are the ranges of the sizing arguments, checked here for every
// field before any resolver runs, so each out-of-range value answers the
// same code and status (VALIDATION_ERROR, HTTP 422): a connection's
// first and last may be 0; an offset page's limit and page start at 1,
// as the resolvers' pageArgs (REST's path) says.
func (w pageWalker) bounds() []bound {
	return []bound{{argFirst, bounds.Count(w.maxPage)}, {argLast, bounds.Count(w.maxPage)},
		{argLimit, bounds.Limit(w.maxPage)}, {argPage, bounds.Page}}
}

// setArgument replaces or adds a literal argument of f.
func setArgument(f *ast.Field, def *ast.ArgumentDefinition, raw string) {
	v := &ast.Value{Kind: ast.IntValue, Raw: raw, ExpectedType: def.Type, Position: f.Position}
	if a := f.Arguments.ForName(def.Name); a != nil {
		a.Value = v
		return
	}
	f.Arguments = append(f.Arguments, &ast.Argument{Name: def.Name, Value: v, Position: f.Position})
}

func pageError(f *ast.Field, arg, format string, args ...any) *gqlerror.Error {
	err := gqlerror.ErrorPosf(f.Position, "%s.%s: %s %s", f.ObjectDefinition.Name, f.Name, arg, fmt.Sprintf(format, args...))
	err.Extensions = map[string]any{"code": apperr.Validation, "field": arg}
	return err
}

// intArg reads an Int argument, whether literal (int64) or a variable.
func intArg(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case *int:
		if n != nil {
			return int64(*n), true
		}
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case string: // a variable of type Int may arrive as a JSON string
		i, err := strconv.ParseInt(n, 10, 64)
		return i, err == nil
	case float64:
		if n >= math.MinInt64 && n <= math.MaxInt64 {
			return int64(n), true
		}
	}
	return 0, false
}
