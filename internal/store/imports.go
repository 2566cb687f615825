package store

import (
	"context"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/importjob"
	"github.com/lendingpipe/svc/internal/rule"
)

// DueImportJob reads the oldest import job a worker may take at now: one
// queued, or one running whose worker's lease has lapsed (it crashed or
// stopped). On PostgreSQL the row is locked and one another replica holds
// is skipped (SKIP LOCKED); SQLite's writing transaction already holds the
// database's one write lock. Nil when none is due.
func DueImportJob(ctx context.Context, c *ent.Client, now time.Time) (*ent.ImportJob, error) {
	j, err := c.ImportJob.Query().
		Where(importjob.Or(
			importjob.StatusEQ(importjob.StatusQueued),
			importjob.And(importjob.StatusEQ(importjob.StatusRunning), importjob.ClaimedUntilLT(now)),
		)).
		Order(importjob.ByCreatedAt()).Limit(1).
		Modify(func(s *sql.Selector) {
			// NO KEY UPDATE, not UPDATE: the leads a worker's batch inserts
			// hold a key-share lock on their job's row (their foreign key),
			// which UPDATE would wait on and SKIP LOCKED would pass over, so a
			// lapsed lease could only be taken in the instant between two
			// batches. The batch then finds its claim gone when it settles.
			if s.Dialect() == dialect.Postgres {
				s.For(sql.LockNoKeyUpdate, sql.WithLockAction(sql.SkipLocked))
			}
		}).All(rule.SystemContext(ctx))
	if err != nil || len(j) == 0 {
		return nil, err
	}
	return j[0], nil
}
