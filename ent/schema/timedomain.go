package schema

import (
	"context"
	"time"

	"entgo.io/ent"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/hook"
	"github.com/lendingpipe/svc/internal/apitime"
)

// clientTime refuses a timestamp a client gave outside the time domain
// (apitime.Within). Every surface writes through these hooks, so REST,
// GraphQL, the dialer connector and inbound mappings all get the same
// rule, and nothing outside it is stored, where a read could not show it.
func clientTime(field string, t, latest time.Time) error {
	return apitime.Within(field, t, latest)
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
