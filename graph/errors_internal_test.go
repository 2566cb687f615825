package graph

import (
	"context"
	"errors"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// A resolver's own failure stays INTERNAL_ERROR (and is logged as such);
// only an argument gqlgen could not decode is the caller's VALIDATION_ERROR.
func TestPresentErrorTellsArgumentsFromResolvers(t *testing.T) {
	ctx := graphql.WithFieldContext(context.Background(), &graphql.FieldContext{
		Field: graphql.CollectedField{Field: &ast.Field{Alias: "createLead", Name: "createLead"}},
	})
	arg := graphql.WithPathContext(ctx, graphql.NewPathWithField("after"))
	for _, tc := range []struct {
		name        string
		err         error
		code, field string
	}{
		{"ResolverError", graphql.ErrorOnPath(ctx, errors.New("disk I/O error")), "INTERNAL_ERROR", ""},
		{"UndecodableArgument", graphql.ErrorOnPath(arg, errors.New("not a cursor")), "VALIDATION_ERROR", "after"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := presentError(ctx, tc.err)
			if got.Extensions["code"] != tc.code || (tc.field != "" && got.Extensions["field"] != tc.field) {
				t.Fatalf("extensions %v, want code %s field %q", got.Extensions, tc.code, tc.field)
			}
		})
	}
}
