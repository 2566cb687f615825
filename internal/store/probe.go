package store

import (
	"context"
	"errors"
	"fmt"

	"entgo.io/ent/dialect"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"

	"github.com/lendingpipe/svc/ent"
)

// heartbeatDDL creates the one-row table CheckWrite writes to; ent does not
// model it, as nothing reads it.
const heartbeatDDL = `CREATE TABLE IF NOT EXISTS heartbeats (id INTEGER PRIMARY KEY, beats BIGINT NOT NULL)`

// heartbeatUpsert is valid on both databases (SQLite since 3.24).
const heartbeatUpsert = `INSERT INTO heartbeats (id, beats) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET beats = heartbeats.beats + 1`

// WriteRefused is CheckWrite's failure: Reason says why in words an
// operator can act on; Err is the database's own error, if any.
type WriteRefused struct {
	Reason string
	Err    error
}

func (e *WriteRefused) Error() string {
	if e.Err == nil {
		return e.Reason
	}
	return fmt.Sprintf("%s: %v", e.Reason, e.Err)
}

func (e *WriteRefused) Unwrap() error { return e.Err }

// CheckWrite reports whether the database takes writes, by committing a
// one-row heartbeat the way every write commits (on SQLite, through the
// group commit on the one writer connection). A database that answers reads
// but refuses writes (PostgreSQL read-only or in recovery, a full disk, a
// read-only file) fails it; so does a SQLite file at its size limit
// (max_page_count), whose heartbeat row would still fit in its page.
func (s *DB) CheckWrite(ctx context.Context) error {
	err := WithTx(ctx, s.Client, func(ctx context.Context, tx *ent.Client) error {
		if s.Dialect == dialect.SQLite {
			if err := sqliteHeadroom(ctx, tx); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, heartbeatUpsert); err != nil {
			return fmt.Errorf("writing the heartbeat: %w", err)
		}
		return nil
	})
	if err == nil {
		return nil
	}
	var refused *WriteRefused
	if errors.As(err, &refused) {
		return refused
	}
	return &WriteRefused{Reason: writeFailure(err), Err: err}
}

// sqliteHeadroom fails when the file may not grow and has no free page left,
// so any write that needs a new page fails. It runs on the writer
// connection, whose max_page_count is the one that applies to writes.
func sqliteHeadroom(ctx context.Context, tx *ent.Client) error {
	rows, err := tx.QueryContext(ctx, `SELECT (SELECT page_count FROM pragma_page_count()),
		(SELECT max_page_count FROM pragma_max_page_count()), (SELECT freelist_count FROM pragma_freelist_count())`)
	if err != nil {
		return fmt.Errorf("reading the database size: %w", err)
	}
	defer rows.Close()
	var pages, limit, free int64
	if !rows.Next() {
		return fmt.Errorf("reading the database size: %w", rows.Err())
	}
	if err := rows.Scan(&pages, &limit, &free); err != nil {
		return fmt.Errorf("reading the database size: %w", err)
	}
	if pages >= limit && free == 0 {
		return &WriteRefused{Reason: fmt.Sprintf("the database file is at its size limit (%d pages, max_page_count)", limit)}
	}
	return rows.Close()
}

// writeFailure names why a write failed, for the readiness answer.
func writeFailure(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return "the database did not take a write in time"
	case Unreachable(err):
		return "the database is unreachable"
	}
	if reason, ok := refusal(err); ok {
		return reason
	}
	return "the database refuses writes"
}

// WritesRefused reports whether err is the database refusing a write it
// would otherwise run: it is full (its disk, or a SQLite file at its size
// limit) or read-only (PostgreSQL in recovery or default_transaction_read_only).
// Callers answer 503: the condition is the operator's to clear, and the
// same request may succeed later.
func WritesRefused(err error) bool {
	_, ok := refusal(err)
	return ok
}

func refusal(err error) (reason string, ok bool) {
	var (
		lite sqlite3.Error
		pg   *pgconn.PgError
	)
	switch {
	case errors.As(err, &lite) && lite.Code == sqlite3.ErrFull:
		return "the database or its disk is full", true
	case errors.As(err, &lite) && lite.Code == sqlite3.ErrReadonly:
		return "the database is read-only", true
	case errors.As(err, &pg) && pg.Code == "25006": // read_only_sql_transaction
		return "the database is read-only (in recovery, or default_transaction_read_only)", true
	case errors.As(err, &pg) && (pg.Code == "53100" || pg.Code == "53000"): // disk_full, insufficient_resources
		return "the database's disk is full", true
	}
	return "", false
}
