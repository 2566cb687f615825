// Code here runs once a request's transaction has committed, so nothing
// outside the database (a worker wake-up, a subscription message) ever
// reports a change that was rolled back.

package events

import (
	"context"

	"github.com/lendingpipe/svc/ent"
)

// After runs fn when the transaction in ctx commits successfully, or at
// once when ctx carries no transaction (the change is already committed).
func AfterCommit(ctx context.Context, fn func()) {
	tx := ent.TxFromContext(ctx)
	if tx == nil {
		fn()
		return
	}
	tx.OnCommit(func(next ent.Committer) ent.Committer {
		return ent.CommitFunc(func(ctx context.Context, tx *ent.Tx) error {
			err := next.Commit(ctx, tx)
			if err == nil {
				fn()
			}
			return err
		})
	})
}
