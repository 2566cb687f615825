package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/lendingpipe/svc/ent/apperr"
)

// A variable's value refused before the operation runs is answered as the
// document's own errors are (422), though coded as every surface codes a
// malformed input.
func init() { errcode.RegisterErrorType(apperr.Validation, errcode.KindProtocol) }

// inputErrors is an executor whose refusals of variable values (a page
// that is not an Int, an enum outside its values) are VALIDATION_ERROR
// naming the variable, as REST answers a malformed parameter (PRODUCT 8.3),
// rather than GraphQL's GRAPHQL_VALIDATION_FAILED, which is left to
// mistakes in the document itself.
type inputErrors struct{ graphql.GraphExecutor }

func (e inputErrors) CreateOperationContext(ctx context.Context, params *graphql.RawParams) (*graphql.OperationContext, gqlerror.List) {
	oc, errs := e.GraphExecutor.CreateOperationContext(ctx, params)
	for _, err := range errs {
		if len(err.Path) >= 2 && err.Path[0] == ast.PathName("variable") {
			err.Extensions = map[string]any{"code": apperr.Validation, "field": lastName(err.Path)}
		}
	}
	return oc, errs
}
