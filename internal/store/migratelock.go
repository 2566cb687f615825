package store

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect"
)

// migrationLock is the first key of the PostgreSQL advisory lock that
// serialises migrations ("svcm" read as a number); the second is the
// schema's, so deployments in different schemas of one database migrate
// independently. Every release must use the same keys.
const migrationLock int32 = 0x7376636d

// migrateLocked migrates while holding the deployment's migration lock.
// Replicas of a new release starting together on one PostgreSQL database
// would otherwise run DDL side by side, and concurrent CREATE TABLE or
// CREATE INDEX of one name fails in all but one of them. The first replica
// migrates; the others wait on the lock, then find nothing left to do.
//
// The lock is a session lock on a connection of its own, outside the pool
// the migration uses (which may be one connection): it is released when
// that connection closes, so a replica that dies while migrating does not
// leave the others waiting. SQLite needs none: its one writer connection
// already serialises DDL.
func (s *DB) migrateLocked(ctx context.Context, drv, dsn string) error {
	if s.Dialect != dialect.Postgres {
		return s.migrate(ctx)
	}
	lock, err := openPool(ctx, drv, dsn, s.Dialect, 1)
	if err != nil {
		return fmt.Errorf("taking the migration lock: %w", err)
	}
	defer lock.Close()
	// Held, not idle, while migrating: the pool closes idle connections
	// past their lifetime, and with it the lock.
	conn, err := lock.Conn(ctx)
	if err != nil {
		return fmt.Errorf("taking the migration lock: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1, hashtext(current_schema()))`, migrationLock); err != nil {
		return fmt.Errorf("taking the migration lock: %w", err)
	}
	return s.migrate(ctx) // closing the lock's connection releases it
}
