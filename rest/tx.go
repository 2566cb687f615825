package rest

import (
	"context"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/store"
)

// inTx runs one resolver call in a transaction, as GraphQL runs its
// mutations (entgql.Transactioner): the ent hooks and outbox writes join
// it, and the change commits whole or not at all.
func inTx[T any](ctx context.Context, c *ent.Client, fn func(context.Context) (T, error)) (T, error) {
	var out T
	err := store.WithTx(ctx, c, func(ctx context.Context, _ *ent.Client) error {
		var err error
		out, err = fn(ctx)
		return err
	})
	return out, err
}
