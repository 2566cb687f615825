package store_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
)

// A transaction PostgreSQL gives up to settle a deadlock is run again, and
// its caller sees the run that succeeded; one that keeps losing is
// reported after a few runs, and no other error is retried.
func TestWithTxRunsContendedTransactionsAgain(t *testing.T) {
	db := storetest.Open(t)
	deadlock := &pgconn.PgError{Code: "40P01", Message: "deadlock detected"}
	var runs atomic.Int32
	err := store.WithTx(context.Background(), db.Client, func(context.Context, *ent.Client) error {
		if runs.Add(1) == 1 {
			return deadlock
		}
		return nil
	})
	if err != nil || runs.Load() != 2 {
		t.Fatalf("after one deadlock: %v in %d runs, want success in 2", err, runs.Load())
	}
	runs.Store(0)
	err = store.WithTx(context.Background(), db.Client, func(context.Context, *ent.Client) error {
		runs.Add(1)
		return deadlock
	})
	if !errors.Is(err, deadlock) || runs.Load() != 3 {
		t.Fatalf("always deadlocked: %v in %d runs, want the deadlock after 3", err, runs.Load())
	}
	runs.Store(0)
	plain := errors.New("refused")
	if err := store.WithTx(context.Background(), db.Client, func(context.Context, *ent.Client) error {
		runs.Add(1)
		return plain
	}); !errors.Is(err, plain) || runs.Load() != 1 {
		t.Fatalf("a plain error: %v in %d runs, want it once", err, runs.Load())
	}
}
