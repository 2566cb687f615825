package store

import (
	"context"
	"fmt"

	"github.com/lendingpipe/svc/ent"
)

// WithTx runs fn in a transaction whose client is also placed in the context
// (ent.FromContext), so resolvers and hooks called by fn join it. The
// transaction commits when fn returns nil and rolls back otherwise. When ctx
// already carries a transaction, fn joins that one.
func WithTx(ctx context.Context, c *ent.Client, fn func(ctx context.Context, tx *ent.Client) error) error {
	if tx := ent.TxFromContext(ctx); tx != nil {
		return fn(ctx, tx.Client())
	}
	tx, err := c.Tx(ctx)
	if err != nil {
		return fmt.Errorf("starting transaction: %w", err)
	}
	defer func() {
		// A panic must not leave the transaction (and SQLite's write lock) open.
		if p := recover(); p != nil {
			_ = tx.Rollback()
			panic(p)
		}
	}()
	txCtx := ent.NewTxContext(ctx, tx)
	txCtx = ent.NewContext(txCtx, tx.Client())
	if err := fn(txCtx, tx.Client()); err != nil {
		if rerr := tx.Rollback(); rerr != nil {
			return fmt.Errorf("%w (rolling back: %v)", err, rerr)
		}
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing transaction: %w", err)
	}
	return nil
}
