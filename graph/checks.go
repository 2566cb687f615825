package graph

import (
	"context"
	"fmt"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// operationCheck refuses an operation before any resolver runs: check
// sees the parsed and validated operation and returns the refusal, or nil.
type operationCheck struct {
	name  string
	check func(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = operationCheck{}

func (c operationCheck) ExtensionName() string                 { return c.name }
func (operationCheck) Validate(graphql.ExecutableSchema) error { return nil }
func (c operationCheck) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil {
		return nil
	}
	return c.check(ctx, oc)
}

// codedError is a GraphQL error whose extensions carry code, as every
// error this service answers does.
func codedError(code, format string, args ...any) *gqlerror.Error {
	return &gqlerror.Error{Message: fmt.Sprintf(format, args...), Extensions: map[string]any{"code": code}}
}
