package scalar

import (
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
)

// MarshalTime writes t as every surface writes a timestamp: UTC with
// exactly three fractional digits (apitime.Format). Every value is written,
// Go's zero time too (0001-01-01T00:00:00.000Z): a stored time always reads
// back. An absent optional time is a nil pointer, which gqlgen writes as
// null before it gets here.
func MarshalTime(t time.Time) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		_, _ = io.WriteString(w, strconv.Quote(apitime.Format(t)))
	})
}

// UnmarshalTime reads an RFC 3339 timestamp with any fraction, or none,
// in any offset, as UTC: SQLite compares stored timestamps as text, so a
// filter in another offset would match nothing. Anything else is the
// caller's mistake (VALIDATION_ERROR, naming the argument).
func UnmarshalTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, apperr.Invalid("", "expected an RFC 3339 timestamp string, got %T", v)
	}
	t, err := apitime.Parse(s)
	if err != nil {
		return time.Time{}, apperr.Invalid("", "%s is not an RFC 3339 timestamp such as %s", apperr.Quote(s), apitime.Example)
	}
	return t.UTC(), nil
}

// MarshalAPITime and UnmarshalAPITime bind the Time scalar to the
// apitime.Time fields of records both surfaces share.
func MarshalAPITime(t apitime.Time) graphql.Marshaler { return MarshalTime(time.Time(t)) }

func UnmarshalAPITime(v any) (apitime.Time, error) {
	t, err := UnmarshalTime(v)
	return apitime.Time(t), err
}
