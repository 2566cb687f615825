package leadimport

import (
	"context"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/leadcsv"
)

// ClaimAndSettleOne makes w claim the due job and settle its first batch
// at the time clock says, then stop as a crashed worker would. It answers
// a function that settles w's next batch, for a test to see it refused.
func ClaimAndSettleOne(t *testing.T, w *Worker, clock func() time.Time) func() error {
	t.Helper()
	w.now = clock
	ctx := context.Background()
	c, err := w.claim(ctx)
	if err != nil || c == nil {
		t.Fatalf("claim: %v, %v", c, err)
	}
	f, err := w.db.Files.Open(ctx, *c.job.StorageKey)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := w.count(ctx, c, f); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	rd, err := leadcsv.NewReader(f, c.job.Mapping)
	if err != nil {
		t.Fatal(err)
	}
	next := func() error {
		recs, err := readBatch(rd, w.Batch)
		if err != nil {
			return err
		}
		return w.settle(ctx, c, recs)
	}
	if err := next(); err != nil {
		t.Fatal(err)
	}
	return next
}

// SetClock makes w read the time from clock.
func SetClock(w *Worker, clock func() time.Time) { w.now = clock }

// AlwaysCareful makes w run every batch with a savepoint a row.
func AlwaysCareful(w *Worker) { w.careful = true }
