package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"reflect"
	"strings"
	"sync"

	"github.com/mattn/go-sqlite3"
)

// cachedSQLite is the SQLite driver with a prepared-statement cache per
// connection. go-sqlite3 prepares every query afresh, and with the few
// dozen short statements of one lead write that was a quarter of the
// writer's time. (PostgreSQL's pgx caches statements itself.)
const cachedSQLite = "sqlite3_stmtcache"

// maxCachedStmts bounds a connection's cache; ent writes a new string for
// each IN-list length, and those beyond the bound are prepared each time.
const maxCachedStmts = 512

var registerOnce sync.Once

func registerCachedSQLite() {
	registerOnce.Do(func() { sql.Register(cachedSQLite, stmtCacheDriver{}) })
}

type stmtCacheDriver struct{}

func (stmtCacheDriver) Open(dsn string) (driver.Conn, error) {
	c, err := (&sqlite3.SQLiteDriver{}).Open(dsn)
	if err != nil {
		return nil, err
	}
	return &cachingConn{SQLiteConn: c.(*sqlite3.SQLiteConn), stmts: map[string]*cachedStmt{}}, nil
}

// cachingConn serves single-statement queries from prepared statements.
// database/sql uses a connection from one goroutine at a time, so the map
// needs no lock.
type cachingConn struct {
	*sqlite3.SQLiteConn
	stmts map[string]*cachedStmt
}

type cachedStmt struct {
	stmt *sqlite3.SQLiteStmt
	busy bool // its rows are still open
}

// acquire returns the query's cached statement, preparing it on first use,
// or nil when it cannot be cached: several statements in one string (only
// migrations send those), a full cache, or the statement is in use by
// rows still open (a nested query).
func (c *cachingConn) acquire(ctx context.Context, query string) *cachedStmt {
	if strings.Contains(query, ";") {
		return nil
	}
	if cs, ok := c.stmts[query]; ok {
		if cs.busy {
			return nil
		}
		return cs
	}
	if len(c.stmts) >= maxCachedStmts {
		return nil
	}
	st, err := c.SQLiteConn.PrepareContext(ctx, query)
	if err != nil {
		return nil // the uncached path reports the error
	}
	cs := &cachedStmt{stmt: st.(*sqlite3.SQLiteStmt)}
	c.stmts[query] = cs
	return cs
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs := c.acquire(ctx, query)
	if cs == nil {
		return c.SQLiteConn.QueryContext(ctx, query, args)
	}
	rows, err := cs.stmt.QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	cs.busy = true
	return &releasingRows{Rows: rows, cs: cs}, nil
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cs := c.acquire(ctx, query)
	if cs == nil {
		return c.SQLiteConn.ExecContext(ctx, query, args)
	}
	return cs.stmt.ExecContext(ctx, args)
}

func (c *cachingConn) Close() error {
	for _, cs := range c.stmts {
		_ = cs.stmt.Close()
	}
	c.stmts = nil
	return c.SQLiteConn.Close()
}

// releasingRows frees its statement for reuse when closed (closing the
// rows of a prepared statement resets it rather than finalising it).
type releasingRows struct {
	driver.Rows
	cs *cachedStmt
}

func (r *releasingRows) Close() error {
	err := r.Rows.Close()
	r.cs.busy = false
	return err
}

// Column type information, which database/sql asks the rows for.
func (r *releasingRows) ColumnTypeDatabaseTypeName(i int) string {
	return r.Rows.(driver.RowsColumnTypeDatabaseTypeName).ColumnTypeDatabaseTypeName(i)
}

func (r *releasingRows) ColumnTypeNullable(i int) (nullable, ok bool) {
	return r.Rows.(driver.RowsColumnTypeNullable).ColumnTypeNullable(i)
}

func (r *releasingRows) ColumnTypeScanType(i int) reflect.Type {
	return r.Rows.(driver.RowsColumnTypeScanType).ColumnTypeScanType(i)
}
