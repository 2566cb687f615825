package store_test

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
)

// TestReplicasMigrateTogether starts several processes' stores at once on
// one empty database, as replicas of a new release do: one migrates, the
// others wait for it, and every one opens.
func TestReplicasMigrateTogether(t *testing.T) {
	if os.Getenv(storetest.EnvURL) == "" {
		t.Skip("PostgreSQL only: SQLite's one writer serialises migrations by itself")
	}
	url := storetest.URL(t)
	const replicas = 4
	var wg sync.WaitGroup
	errs := make([]error, replicas)
	for i := range replicas {
		wg.Go(func() {
			db, err := store.Open(context.Background(), url, store.Options{FilesURL: t.TempDir()})
			if err == nil {
				err = db.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("replica %d: %v", i, err)
		}
	}
}
