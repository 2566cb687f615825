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
			if s.Dialect() == dialect.Postgres {
				s.For(sql.LockUpdate, sql.WithLockAction(sql.SkipLocked))
			}
		}).All(rule.SystemContext(ctx))
	if err != nil || len(j) == 0 {
		return nil, err
	}
	return j[0], nil
}
