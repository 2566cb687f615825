package leadimport

import (
	"context"
	"fmt"
	"time"

	"github.com/lendingpipe/svc/ent/importjob"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
)

// SweepFiles removes the import files written before olderThan that no
// import job names: those of ended jobs, and uploads whose job was never
// committed. It answers how many it removed.
func SweepFiles(ctx context.Context, db *store.DB, olderThan time.Time) (int, error) {
	return db.Files.Sweep(ctx, keyPrefix, olderThan, func(ctx context.Context, keys []string) (map[string]bool, error) {
		named, err := db.Client.ImportJob.Query().Where(importjob.StorageKeyIn(keys...)).
			Select(importjob.FieldStorageKey).Strings(rule.SystemContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("reading the import files jobs name: %w", err)
		}
		out := make(map[string]bool, len(named))
		for _, k := range named {
			out[k] = true
		}
		return out, nil
	})
}
