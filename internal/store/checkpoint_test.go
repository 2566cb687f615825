package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/organization"
	"github.com/lendingpipe/svc/internal/store"
)

// The checkpointer runs beside the writer on the read pool, and reads stay
// current: a committed write is visible on the read connection the
// checkpointer uses, and a checkpoint copies the whole WAL back. (A
// checkpoint first sent with Exec left reads stale; TestInboundSignatures,
// which reads an endpoint right after disabling it, caught that.)
func TestCheckpointerKeepsReadsCurrent(t *testing.T) {
	db, ctx := openSQLite(t, store.Options{MaxOpenConns: 1})
	for round := range 3 {
		time.Sleep(300 * time.Millisecond) // a checkpoint or more on some pool connection
		name := "round " + string(rune('a'+round))
		err := store.WithTx(ctx, db.Client, func(ctx context.Context, tx *ent.Client) error {
			return createOrg(ctx, tx, name)
		})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 3 { // on the one read connection, the checkpointer's too
			wg.Go(func() {
				n, err := db.Client.Organization.Query().Where(organization.Name(name)).Count(ctx)
				if err != nil || n != 1 {
					t.Errorf("%s: a read connection sees %d (%v)", name, n, err)
				}
			})
		}
		wg.Wait()
	}
	var busy, frames, copied int
	if err := db.SQL.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied); err != nil {
		t.Fatal(err)
	}
	if busy != 0 || frames != copied {
		t.Fatalf("checkpoint: busy %d, %d frames, %d copied", busy, frames, copied)
	}
}
