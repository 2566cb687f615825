package graph

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/store"
)

// mutationTx runs each mutation operation in one transaction, opened by
// store.WithTx as every other surface's are: the ent hooks and outbox writes
// join it, events.AfterCommit runs only once it has committed, and the operation
// is kept whole or, when its response carries an error, not at all.
// Queries and subscriptions run outside any transaction.
type mutationTx struct {
	client *ent.Client
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
	graphql.ResponseInterceptor
} = mutationTx{}

func (mutationTx) ExtensionName() string { return "MutationTransaction" }

func (t mutationTx) Validate(graphql.ExecutableSchema) error {
	if t.client == nil {
		return errors.New("the mutation transaction has no client")
	}
	return nil
}

// MutateOperationContext serialises a mutation's field resolvers: they
// share the transaction, whose one connection is not safe for concurrent
// use.
func (mutationTx) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if !isMutation(oc.Operation) {
		return nil
	}
	previous := oc.ResolverMiddleware
	var mu sync.Mutex
	oc.ResolverMiddleware = func(ctx context.Context, next graphql.Resolver) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		return previous(ctx, next)
	}
	return nil
}

// errOperationFailed rolls back the transaction of a response with errors.
var errOperationFailed = errors.New("the operation answered with errors")

// InterceptResponse runs a mutation in its transaction.
func (t mutationTx) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	oc := graphql.GetOperationContext(ctx)
	if !isMutation(oc.Operation) {
		return next(ctx)
	}
	if ownTx, err := takesFiles(oc.Operation); ownTx || err != nil {
		if err != nil {
			return &graphql.Response{Errors: gqlerror.List{err}}
		}
		return next(ctx)
	}
	var resp *graphql.Response
	err := store.WithTx(ctx, t.client, func(ctx context.Context, _ *ent.Client) error {
		resp = next(ctx)
		if len(resp.Errors) > 0 {
			return errOperationFailed
		}
		return nil
	})
	switch {
	case errors.Is(err, errOperationFailed):
		// Nothing of a rolled-back operation is answered, its data included.
		return &graphql.Response{Errors: resp.Errors}
	case err != nil:
		// The transaction could not start or commit: codeEveryError logs
		// the cause and answers an internal error (or the deadline's).
		return graphql.ErrorResponse(ctx, "%s", err.Error())
	}
	return resp
}

// fileFields are the mutations that take files. Each writes its file to
// the file store first and then commits its record in a transaction of
// its own, so no transaction (and on SQLite, not the one writer) waits on
// a file being stored. An operation holding one holds only that field.
var fileFields = []string{"uploadDocument", "importLeads"}

// takesFiles reports whether op is a mutation of fileFields, which runs
// outside mutationTx; it refuses one that holds other fields beside it.
// Fragments are looked into, so a file field cannot ride in one beside
// others.
func takesFiles(op *ast.OperationDefinition) (bool, *gqlerror.Error) {
	var fields []string
	collectFields(op.SelectionSet, &fields, 0)
	files := slices.ContainsFunc(fields, func(f string) bool { return slices.Contains(fileFields, f) })
	if files && len(fields) != 1 {
		return true, codedError(apperr.BadRequest, "an operation with uploadDocument or importLeads holds that one field only")
	}
	return files, nil
}

// collectFields appends the names of the root fields of set, those of its
// fragments included. The validated document has no fragment cycles; depth
// bounds the walk all the same.
func collectFields(set ast.SelectionSet, out *[]string, depth int) {
	if depth > 10 {
		return
	}
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			*out = append(*out, s.Name)
		case *ast.InlineFragment:
			collectFields(s.SelectionSet, out, depth+1)
		case *ast.FragmentSpread:
			if s.Definition != nil {
				collectFields(s.Definition.SelectionSet, out, depth+1)
			}
		}
	}
}

func isMutation(op *ast.OperationDefinition) bool {
	return op != nil && op.Operation == ast.Mutation
}
