package schema

import (
	"context"
	"time"

	"entgo.io/ent"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/hook"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
)

// clientTime refuses a timestamp a client gave outside the time domain
// (apitime.Within). Every surface writes through these hooks, so REST,
// GraphQL, the dialer connector and inbound mappings all get the same
// rule, and nothing outside it is stored, where a read could not show it.
func clientTime(field string, t, latest time.Time) error {
	return apitime.Within(field, t, latest)
}

// pastOrNow is the time a mutation gives, now when it gives none; a time
// in the future, or before the domain, is refused.
func pastOrNow(ctx context.Context, given func() (time.Time, bool), field string) (time.Time, error) {
	at, ok := given()
	now := apitime.Now(ctx)
	if !ok {
		return now, nil
	}
	if at.After(now) {
		return time.Time{}, apperr.Invalid(field, "must not be in the future")
	}
	if err := clientTime(field, at, now); err != nil {
		return time.Time{}, err
	}
	return apitime.Truncate(at), nil
}

// checkOccurredAt keeps a call event's occurredAt, which the dialer
// reports, in the time domain.
func checkOccurredAt(next ent.Mutator) ent.Mutator {
	return hook.CallEventFunc(func(ctx context.Context, m *gen.CallEventMutation) (gen.Value, error) {
		if at, ok := m.OccurredAt(); ok {
			if err := clientTime("occurredAt", at, apitime.Now(ctx).Add(apitime.Skew)); err != nil {
				return nil, err
			}
		}
		return next.Mutate(ctx, m)
	})
}
