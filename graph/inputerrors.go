package graph

import (
	"context"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/lendingpipe/svc/ent/apperr"
)

// A variable's value refused before the operation runs is answered as the
// document's own errors are (422), though coded as every surface codes a
// malformed input.
func init() { errcode.RegisterErrorType(apperr.Validation, errcode.KindProtocol) }

// inputErrors is an executor whose refusals of input values, given as
// variables (a page that is not an Int, an enum outside its values) or
// written in the document (limit: "ten"), are VALIDATION_ERROR naming the
// variable, argument or input field, as REST answers a malformed parameter
// (PRODUCT 8.3), rather than GraphQL's GRAPHQL_VALIDATION_FAILED, which is
// left to mistakes in the document's shape (an unknown field, a missing
// argument).
type inputErrors struct{ graphql.GraphExecutor }

func (e inputErrors) CreateOperationContext(ctx context.Context, params *graphql.RawParams) (*graphql.OperationContext, gqlerror.List) {
	oc, errs := e.GraphExecutor.CreateOperationContext(ctx, params)
	var doc *ast.QueryDocument // parsed again only when a literal was refused
	for _, err := range errs {
		switch {
		case len(err.Path) >= 2 && err.Path[0] == ast.PathName("variable"):
			err.Extensions = map[string]any{"code": apperr.Validation, "field": lastName(err.Path)}
		case strings.HasPrefix(err.Rule, "ValuesOfCorrectType") && len(err.Locations) > 0:
			if doc == nil {
				doc, _ = parser.ParseQuery(&ast.Source{Input: params.Query})
			}
			err.Extensions = map[string]any{"code": apperr.Validation}
			if name := literalName(doc, err.Locations[0]); name != "" {
				err.Extensions["field"] = name
			}
		}
	}
	return oc, errs
}

// literalName is the name a literal at loc is given for in doc: the input
// field it is the value of, else the argument; "" when none is found.
func literalName(doc *ast.QueryDocument, loc gqlerror.Location) string {
	if doc == nil {
		return ""
	}
	var sets []ast.SelectionSet
	for _, op := range doc.Operations {
		sets = append(sets, op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		sets = append(sets, f.SelectionSet)
	}
	for len(sets) > 0 {
		set := sets[len(sets)-1]
		sets = sets[:len(sets)-1]
		for _, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				for _, arg := range sel.Arguments {
					if name := valueName(arg.Name, arg.Value, loc); name != "" {
						return name
					}
				}
				sets = append(sets, sel.SelectionSet)
			case *ast.InlineFragment:
				sets = append(sets, sel.SelectionSet)
			}
		}
	}
	return ""
}

// valueName looks for the literal at loc within v, given for name, and
// answers the innermost name it is given for.
func valueName(name string, v *ast.Value, loc gqlerror.Location) string {
	if v == nil {
		return ""
	}
	if at(v.Position, loc) {
		return name
	}
	for _, child := range v.Children {
		if at(child.Position, loc) { // a member the input type does not have
			return child.Name
		}
		inner := name
		if child.Name != "" { // a member of an object; a list's items keep the list's name
			inner = child.Name
		}
		if found := valueName(inner, child.Value, loc); found != "" {
			return found
		}
	}
	return ""
}

func at(pos *ast.Position, loc gqlerror.Location) bool {
	return pos != nil && pos.Line == loc.Line && pos.Column == loc.Column
}
