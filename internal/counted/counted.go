// Package counted lets a query's Count be answered by a total the service
// maintains (such as an organization's lead count) instead of a COUNT over
// every row. The caller marks the context when it knows the query has no
// filter beyond what the total covers; the entity's interceptor answers.
//
// A leaf: it imports nothing of this service.
package counted

import (
	"context"
	"errors"
)

type key struct{}

// ErrNotKept is what a Total returns when no maintained total covers the
// query after all (an organization whose counts are still being rebuilt,
// say): the interceptor then counts the rows.
var ErrNotKept = errors.New("no maintained total covers the query")

// Total returns the maintained total, or ErrNotKept.
type Total func(context.Context) (int, error)

// With marks ctx: a Count of the marked entity's query returns total.
func With(ctx context.Context, total Total) context.Context {
	return context.WithValue(ctx, key{}, total)
}

// From returns the total ctx was marked with.
func From(ctx context.Context) (Total, bool) {
	t, ok := ctx.Value(key{}).(Total)
	return t, ok
}
