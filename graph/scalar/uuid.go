// Package scalar maps GraphQL scalars onto Go types.
//
// It imports only the leaf packages internal/apitime and internal/apperr.
package scalar

import (
	"io"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/apperr"
)

// MarshalUUID writes u as a GraphQL string.
func MarshalUUID(u uuid.UUID) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		_, _ = io.WriteString(w, strconv.Quote(u.String()))
	})
}

// UnmarshalUUID reads a UUID from a GraphQL string. Anything else is the
// caller's mistake (BAD_REQUEST), never an internal error.
func UnmarshalUUID(v any) (uuid.UUID, error) {
	s, ok := v.(string)
	if !ok {
		return uuid.Nil, apperr.Invalid("", "expected a UUID string, got %T", v)
	}
	id, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return uuid.Nil, apperr.Invalid("", "%s is not a UUID", apperr.Quote(s))
	}
	return id, nil
}
