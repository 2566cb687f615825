package graph

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/errclass"
)

// AppError translates any error from the resolvers or ent into the service's
// error type (errclass.Of). Both surfaces call it: REST maps the code to a
// status, GraphQL to extensions.code, so one failure reads the same on both.
func AppError(err error) *apperr.Error { return errclass.Of(err) }

// presentError renders a resolver error as a GraphQL error whose
// extensions carry the service's code and, for validation errors, the field.
func presentError(ctx context.Context, err error) *gqlerror.Error {
	gqlErr := graphql.DefaultErrorPresenter(ctx, err)
	var existing *gqlerror.Error
	if errors.As(err, &existing) && existing.Extensions != nil {
		return gqlErr // parser and validation errors already say what is wrong
	}
	e := AppError(err)
	if existing != nil && isArgumentPath(ctx, existing.Path) && ctx.Err() == nil {
		e = argumentError(e, inputPath(existing.Path[len(graphql.GetPath(ctx)):]))
	}
	if ctx.Err() != nil && (e.Code == apperr.Internal || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		// An unexplained failure of an operation past its deadline (or
		// abandoned by its client) is that, whatever wrapping lost the cause.
		e = AppError(stopped(ctx))
	}
	gqlErr.Message = e.Message
	gqlErr.Extensions = map[string]any{"code": e.Code}
	for k, v := range e.Detail { // a refused move's from and to, say
		gqlErr.Extensions[k] = v
	}
	if e.Field != "" {
		gqlErr.Extensions["field"] = e.Field
	}
	return gqlErr
}

// argumentError is e, raised while gqlgen decoded the argument or input
// field named field, before any resolver ran: whatever the decoder's
// error looks like (a cursor's decoder ends in io.EOF, which reads as a
// dropped connection), the caller sent a value of the wrong form, so it
// is VALIDATION_ERROR naming the input, as REST names the parameter.
func argumentError(e *apperr.Error, field string) *apperr.Error {
	switch {
	case e.Code == apperr.Validation && e.Field != "":
		return e // the input's own rule already named it
	case e.Code == apperr.Validation:
		// A scalar (an ID, a Time) refused its value with its reason.
		return apperr.Invalid(field, "%s", e.Message)
	case e.Code == apperr.Internal, e.Code == apperr.Unavailable:
		return apperr.Invalid(field, "is not a valid value")
	}
	return e // a refusal with its own code (FORBIDDEN, say) stays one
}

// isArgumentPath reports whether path points below the field being
// resolved, at one of its arguments: gqlgen puts every resolver error on
// the field's own path, and an argument it could not decode one further.
func isArgumentPath(ctx context.Context, path ast.Path) bool {
	return len(path) > len(graphql.GetPath(ctx))
}

// inputPath names an input as REST names a body's member. path runs from
// an argument (or a variable) down: an input object's members are named
// below it (trigger.event, not input.trigger.event; stageId, not
// where.stageId), an item of a list by its index when a member of it
// follows (actions[0].tags), and a list of values by the list's name (tags).
func inputPath(path ast.Path) string {
	if len(path) == 0 {
		return ""
	}
	top, _ := path[0].(ast.PathName)
	var b strings.Builder
	below := path[1:]
	if len(below) > 0 {
		if _, list := below[0].(ast.PathIndex); list { // a list argument keeps its name: actions[0].tags
			b.WriteString(string(top))
		}
	}
	for i, el := range below {
		switch el := el.(type) {
		case ast.PathName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(el))
		case ast.PathIndex:
			if i < len(below)-1 && b.Len() > 0 {
				fmt.Fprintf(&b, "[%d]", int(el))
			}
		}
	}
	if b.Len() == 0 {
		return string(top)
	}
	return b.String()
}
