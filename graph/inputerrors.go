package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/lendingpipe/svc/internal/apperr"
)

// A variable's value refused before the operation runs is answered as the
// document's own errors are (422), though coded as every surface codes a
// malformed input.
func init() { errcode.RegisterErrorType(apperr.Validation, errcode.KindProtocol) }

// inputErrors is an executor whose refusals of input values, given as
// variables (a page that is not an Int, an enum outside its values) or
// written in the document (limit: "ten"), are VALIDATION_ERROR naming the
// input as REST names a body's member (inputPath), rather than GraphQL's
// GRAPHQL_VALIDATION_FAILED. That code is left to mistakes in the
// document's shape: a selected field the type lacks, a missing argument, a
// syntax error. An input object's member the type lacks, or a required one
// missing, is a malformed input, as an unknown or missing member of a REST
// body is.
type inputErrors struct{ graphql.GraphExecutor }

func (e inputErrors) CreateOperationContext(ctx context.Context, params *graphql.RawParams) (*graphql.OperationContext, gqlerror.List) {
	oc, errs := e.GraphExecutor.CreateOperationContext(ctx, params)
	if len(errs) == 0 && oc != nil && oc.Operation != nil {
		for _, v := range oc.Operation.VariableDefinitions {
			if err := numbersAsText(ast.Path{ast.PathName(v.Variable)}, v.Type, params.Variables[v.Variable]); err != nil {
				return oc, gqlerror.List{err}
			}
		}
	}
	var doc *ast.QueryDocument // parsed again only when a literal was refused
	for _, err := range errs {
		switch {
		case len(err.Path) >= 2 && err.Path[0] == ast.PathName("variable"):
			err.Extensions = map[string]any{"code": apperr.Validation, "field": inputPath(err.Path[1:])}
			if notAnInt.MatchString(err.Message) {
				if doc == nil {
					doc, _ = parser.ParseQuery(&ast.Source{Input: params.Query})
				}
				err.Message = wholeNumberMessage(doc, err.Path[1:], params.Variables)
			}
		case strings.HasPrefix(err.Rule, "ValuesOfCorrectType") && len(err.Locations) > 0:
			if doc == nil {
				doc, _ = parser.ParseQuery(&ast.Source{Input: params.Query})
			}
			path := literalPath(doc, err.Locations[0])
			if path == nil {
				continue // not found: left as the validator coded it
			}
			if m := missingMember.FindStringSubmatch(err.Message); m != nil {
				path = append(path, ast.PathName(m[1]))
			}
			err.Extensions = map[string]any{"code": apperr.Validation, "field": inputPath(path)}
		}
	}
	return oc, errs
}

// numbersAsText refuses a number sent in a variable where a String is
// expected, as REST refuses one for a string member and as GraphQL's input
// coercion asks. The validator lets it through: variables are decoded with
// UseNumber (so that large integers keep their digits), and a json.Number
// is a string to it.
func numbersAsText(path ast.Path, typ *ast.Type, v any) *gqlerror.Error {
	if v == nil || typ == nil {
		return nil
	}
	if typ.Elem != nil {
		items, ok := v.([]any)
		if !ok {
			return numbersAsText(path, typ.Elem, v) // a single value stands for a list of one
		}
		for i, item := range items {
			if err := numbersAsText(append(path[:len(path):len(path)], ast.PathIndex(i)), typ.Elem, item); err != nil {
				return err
			}
		}
		return nil
	}
	def := parsedSchema.Types[typ.NamedType]
	switch {
	case def == nil:
	case def.Kind == ast.Scalar && def.Name == "String":
		if _, isNumber := v.(json.Number); isNumber {
			return &gqlerror.Error{Message: "must be a string, not a number", Path: append(ast.Path{ast.PathName("variable")}, path...),
				Extensions: map[string]any{"code": apperr.Validation, "field": inputPath(path)}}
		}
	case def.Kind == ast.InputObject:
		members, _ := v.(map[string]any)
		for _, f := range def.Fields {
			if err := numbersAsText(append(path[:len(path):len(path)], ast.PathName(f.Name)), f.Type, members[f.Name]); err != nil {
				return err
			}
		}
	}
	return nil
}

// notAnInt is the validator's refusal of a variable's number as an Int,
// which names the value it failed to make of it (0 for 1.5, the largest
// Int for 1e20) rather than the one sent.
var notAnInt = regexp.MustCompile(`^cannot use value -?\d+ as Int$`)

// wholeNumberMessage says what an Int takes, quoting the value sent at
// path of vars, and naming the argument the variable stands for, if it
// stands for one.
func wholeNumberMessage(doc *ast.QueryDocument, path ast.Path, vars map[string]any) string {
	var v any = vars
	for _, step := range path {
		switch step := step.(type) {
		case ast.PathName:
			m, _ := v.(map[string]any)
			v = m[string(step)]
		case ast.PathIndex:
			if l, ok := v.([]any); ok && int(step) < len(l) {
				v = l[step]
			}
		}
	}
	msg := "must be a whole number within Int's 64-bit range, not " + apperr.Quote(fmt.Sprint(v))
	if name, ok := path[0].(ast.PathName); ok && len(path) == 1 {
		if arg := argumentOf(doc, string(name)); arg != "" {
			msg = arg + " " + msg
		}
	}
	return msg
}

// argumentOf is the name of the argument the variable name stands for
// in doc, "" when it stands for none or for several.
func argumentOf(doc *ast.QueryDocument, name string) string {
	if doc == nil {
		return ""
	}
	found := ""
	var walk func(ast.SelectionSet) bool
	walk = func(set ast.SelectionSet) bool {
		for _, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				for _, a := range sel.Arguments {
					if a.Value != nil && a.Value.Kind == ast.Variable && a.Value.Raw == name {
						if found != "" && found != a.Name {
							return false
						}
						found = a.Name
					}
				}
				if !walk(sel.SelectionSet) {
					return false
				}
			case *ast.InlineFragment:
				if !walk(sel.SelectionSet) {
					return false
				}
			}
		}
		return true
	}
	for _, op := range doc.Operations {
		if !walk(op.SelectionSet) {
			return ""
		}
	}
	for _, f := range doc.Fragments {
		if !walk(f.SelectionSet) {
			return ""
		}
	}
	return found
}

// missingMember reads the member named by the validator's message for an
// input object that lacks a required one (its location is the object's).
var missingMember = regexp.MustCompile(`^Field "\w+\.(\w+)" of required type .* was not provided`)

// literalPath is the path, from its argument or variable down, of the
// literal at loc in doc (an argument's value, a member or item within it,
// a variable's default value); nil when none is there.
func literalPath(doc *ast.QueryDocument, loc gqlerror.Location) ast.Path {
	if doc == nil {
		return nil
	}
	var sets []ast.SelectionSet
	var directives []ast.DirectiveList
	for _, op := range doc.Operations {
		for _, v := range op.VariableDefinitions {
			if p := valuePath(ast.Path{ast.PathName(v.Variable)}, v.DefaultValue, loc); p != nil {
				return p
			}
		}
		sets, directives = append(sets, op.SelectionSet), append(directives, op.Directives)
	}
	for _, f := range doc.Fragments {
		sets, directives = append(sets, f.SelectionSet), append(directives, f.Directives)
	}
	for len(sets) > 0 {
		set := sets[len(sets)-1]
		sets = sets[:len(sets)-1]
		for _, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				if p := argumentsPath(sel.Arguments, loc); p != nil {
					return p
				}
				sets, directives = append(sets, sel.SelectionSet), append(directives, sel.Directives)
			case *ast.InlineFragment:
				sets, directives = append(sets, sel.SelectionSet), append(directives, sel.Directives)
			case *ast.FragmentSpread:
				directives = append(directives, sel.Directives)
			}
		}
	}
	for _, list := range directives {
		for _, d := range list {
			if p := argumentsPath(d.Arguments, loc); p != nil {
				return p
			}
		}
	}
	return nil
}

func argumentsPath(args ast.ArgumentList, loc gqlerror.Location) ast.Path {
	for _, arg := range args {
		if p := valuePath(ast.Path{ast.PathName(arg.Name)}, arg.Value, loc); p != nil {
			return p
		}
	}
	return nil
}

// valuePath looks for the literal at loc within v, found at path, and
// answers the path to it.
func valuePath(path ast.Path, v *ast.Value, loc gqlerror.Location) ast.Path {
	if v == nil {
		return nil
	}
	if at(v.Position, loc) {
		return path
	}
	for i, child := range v.Children {
		var step ast.PathElement = ast.PathIndex(i)
		if v.Kind == ast.ObjectValue {
			step = ast.PathName(child.Name)
		}
		inner := append(path[:len(path):len(path)], step)
		if at(child.Position, loc) { // a member the input type does not have
			return inner
		}
		if p := valuePath(inner, child.Value, loc); p != nil {
			return p
		}
	}
	return nil
}

func at(pos *ast.Position, loc gqlerror.Location) bool {
	return pos != nil && pos.Line == loc.Line && pos.Column == loc.Column
}
