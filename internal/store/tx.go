package store

import (
	"context"
	"fmt"
	"time"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/txstate"
)

// WithTx runs fn in a transaction whose client is also placed in the context
// (ent.FromContext), so resolvers and hooks called by fn join it, and whose
// commit hooks (events.AfterCommit) run only once it has committed. The transaction
// commits when fn returns nil and rolls back otherwise. When ctx already
// carries a transaction, fn joins that one.
//
// It is the only place that opens a transaction: GraphQL mutations, REST
// handlers, the automation runner and the delivery worker all run theirs
// through it (architecture_test.go at the root refuses any other).
func WithTx(ctx context.Context, c *ent.Client, fn func(ctx context.Context, tx *ent.Client) error) error {
	if tx := ent.TxFromContext(ctx); tx != nil {
		return fn(ctx, tx.Client())
	}
	// A transaction PostgreSQL gave up to settle a deadlock or a
	// serialization conflict with another (a subscription deleted while
	// the delivery worker records its attempts, say) rolled back whole, so
	// it is run again, a few times, before its caller hears of it.
	var err error
	for attempt := range contendedAttempts {
		if err = runTx(ctx, c, fn); !Contended(err) || ctx.Err() != nil {
			return err
		}
		time.Sleep(time.Duration(attempt+1) * 10 * time.Millisecond)
	}
	return err
}

// contendedAttempts is how many times WithTx runs a transaction that keeps
// losing conflicts.
const contendedAttempts = 3

// runTx runs fn in one transaction.
func runTx(ctx context.Context, c *ent.Client, fn func(ctx context.Context, tx *ent.Client) error) error {
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
	txCtx := ent.NewTxContext(txstate.New(ctx), tx)
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

// WithTxValue is WithTx for a function with a result: it returns what fn
// returned, with the transaction's error (fn's own, or the failure to start
// or commit), which callers look at first.
func WithTxValue[T any](ctx context.Context, c *ent.Client, fn func(ctx context.Context, tx *ent.Client) (T, error)) (T, error) {
	var out T
	err := WithTx(ctx, c, func(ctx context.Context, tx *ent.Client) error {
		var err error
		out, err = fn(ctx, tx)
		return err
	})
	return out, err
}
