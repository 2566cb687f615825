// Package errclass classifies any error of the flows, ent or the store as
// the service's error type, so that one failure reads the same wherever it
// surfaces: GraphQL's extensions.code, REST's status, an automation run's
// or a lead import's record. It imports ent and the store, and is imported
// by the surfaces and the domain flows that record failures.
package errclass

import (
	"context"
	"errors"
	"strings"

	"entgo.io/ent/privacy"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/store"
)

// Of translates err into the service's error type.
func Of(err error) *apperr.Error {
	if e, ok := apperr.As(err); ok {
		return e
	}
	var ve *ent.ValidationError
	var nf *ent.NotFoundError
	switch {
	case errors.As(err, &ve):
		return apperr.Invalid(apperr.FieldName(ve.Name), "%s", validatorReason(ve))
	case errors.As(err, &nf):
		return apperr.New(apperr.NotFound, "%s", strings.TrimPrefix(nf.Error(), "ent: "))
	case errors.Is(err, privacy.Deny):
		return apperr.New(apperr.Forbidden, "%s", denyMessage(err))
	case ent.IsConstraintError(err):
		return apperr.New(apperr.Conflict, "the change conflicts with existing data")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return apperr.New(apperr.Unavailable, "the request was cancelled or timed out")
	case store.Unreachable(err):
		return apperr.New(apperr.Unavailable, "the database is unreachable; retry later")
	case store.Contended(err):
		return apperr.New(apperr.Unavailable, "the change conflicted with another made at the same time; retry")
	case store.WritesRefused(err):
		return apperr.New(apperr.Unavailable, "the database does not take writes at the moment; retry later")
	}
	return apperr.New(apperr.Internal, "internal error")
}

// validatorReason is the validator's own words, without ent's
// "validator failed for field" wrapping.
func validatorReason(ve *ent.ValidationError) error {
	err := ve.Unwrap()
	if inner := errors.Unwrap(err); inner != nil {
		return inner
	}
	return err
}

// denyMessage keeps the rule's reason and drops ent's prefix.
func denyMessage(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ": ent/privacy"); i > 0 {
		return msg[:i]
	}
	return "the API key lacks the permission for this operation"
}
