package store

import (
	"context"
	"database/sql"
	"strings"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
)

// splitDriver sends SQLite writes and transactions to a pool of one
// connection and plain reads to a pool of many. SQLite allows one writer at
// a time; with one writer connection, writers queue in Go in arrival order
// instead of spinning in SQLite's busy handler (whose sleeps grow to 100 ms
// and made the tail latency), while WAL lets reads go on beside the writer.
//
// Transactions go through group (see groupCommit): they queue for the
// writer as before, and those that queue together commit together.
type splitDriver struct {
	read, write *entsql.Driver
	group       *groupCommit
}

var _ dialect.Driver = splitDriver{}

func (d splitDriver) Exec(ctx context.Context, query string, args, v any) error {
	return d.write.Exec(ctx, query, args, v)
}

// ExecContext runs a statement on the writer (the rollup upserts outside
// a transaction).
func (d splitDriver) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return d.write.ExecContext(ctx, query, args...)
}

// QueryContext reads from the read pool, as Query does (the reports'
// reads built directly).
func (d splitDriver) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if isRead(query) {
		return d.read.QueryContext(ctx, query, args...)
	}
	return d.write.QueryContext(ctx, query, args...)
}

// Query reads from the read pool, unless the statement writes (ent uses
// Query for INSERT ... RETURNING).
func (d splitDriver) Query(ctx context.Context, query string, args, v any) error {
	if isRead(query) {
		return d.read.Query(ctx, query, args, v)
	}
	return d.write.Query(ctx, query, args, v)
}

func isRead(query string) bool {
	q := strings.TrimSpace(query)
	return len(q) >= 6 && (strings.EqualFold(q[:6], "SELECT") || strings.EqualFold(q[:4], "WITH"))
}

func (d splitDriver) Tx(ctx context.Context) (dialect.Tx, error) { return d.group.begin(ctx) }

// BeginTx ignores opts: a SQLite transaction is always serializable.
func (d splitDriver) BeginTx(ctx context.Context, _ *sql.TxOptions) (dialect.Tx, error) {
	return d.group.begin(ctx)
}

func (d splitDriver) Close() error {
	rerr := d.read.Close()
	if err := d.write.Close(); err != nil {
		return err
	}
	return rerr
}

func (d splitDriver) Dialect() string { return dialect.SQLite }
