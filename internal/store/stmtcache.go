package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

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

// cacheStatements is off only in the benchmark that shows what the cache
// saves (BenchmarkWriteTricks).
var cacheStatements atomic.Bool

func init() { cacheStatements.Store(true) }

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
	conn := c.(*sqlite3.SQLiteConn)
	// The search index's triggers call these on every lead write.
	for name, fn := range map[string]any{"svc_fts": searchText, "svc_fts_terms": searchTerms} {
		if err := conn.RegisterFunc(name, fn, true); err != nil {
			conn.Close()
			return nil, fmt.Errorf("registering %s: %w", name, err)
		}
	}
	if strings.Contains(dsn, writerParam) {
		// The writer never checkpoints: the DB's checkpointer does, beside
		// it. Its page cache is larger than a reader's (2 MiB): every write
		// walks the leads' indexes and the search index, and with the
		// default cache a bulk load spent a third of its time in reads of
		// pages the OS already held. Its temporary files live in memory:
		// each group-commit member is a savepoint, whose journal holds the
		// prior content of every page the member changes. Past 64 KiB
		// SQLite spilled that journal to a temporary file, which it then
		// keeps (and writes a page to per change) until the shared
		// transaction ends; in memory it is emptied at each RELEASE.
		// Measured: creates 1,400 -> 1,900/s. A long transaction of its own
		// (rebuilding the search index) holds the prior content of the
		// pages it changes in memory until it ends.
		// When a checkpoint lets it start the WAL again, it cuts the file
		// back to 64 MiB (journal_size_limit).
		for _, pragma := range []string{"PRAGMA wal_autocheckpoint=0", "PRAGMA cache_size=-32768", "PRAGMA temp_store=MEMORY",
			"PRAGMA journal_size_limit=67108864"} {
			if _, err := conn.Exec(pragma, nil); err != nil {
				conn.Close()
				return nil, fmt.Errorf("configuring the writer: %w", err)
			}
		}
	}
	return &cachingConn{SQLiteConn: conn, stmts: map[string]*cachedStmt{}}, nil
}

// writerParam marks the writer connection's DSN (SQLite ignores an unknown
// URI parameter).
const writerParam = "_svc_writer=1"

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
	// columns are its result's column names, read once (releasingRows.Columns).
	columns []string
}

// acquire returns the query's cached statement, preparing it on first use,
// or nil when it cannot be cached: several statements in one string (only
// migrations send those), a full cache, or the statement is in use by
// rows still open (a nested query).
func (c *cachingConn) acquire(ctx context.Context, query string) *cachedStmt {
	// Looked up first: what the checks below refuse is never cached, so a
	// cached statement (nearly every one) needs none of them.
	if cs, ok := c.stmts[query]; ok {
		if cs.busy {
			return nil
		}
		return cs
	}
	if !cacheStatements.Load() {
		return nil
	}
	// Several statements in one string (only migrations send those) cannot
	// be prepared as one. A PRAGMA may answer rows to an Exec, which leaves
	// the statement stepped and its connection's read snapshot open until
	// the statement is next used; uncached, it is finalized at once.
	if strings.Contains(query, ";") || isPragma(query) || len(c.stmts) >= maxCachedStmts {
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

// isPragma reports whether query is a PRAGMA, in any case, without
// copying the query (upper-casing every statement's whole text was a
// measurable share of the writer's time).
func isPragma(query string) bool {
	q := strings.TrimLeftFunc(query, unicode.IsSpace)
	return len(q) >= 6 && strings.EqualFold(q[:6], "PRAGMA")
}

// QueryContext and ExecContext hand SQLite a context without cancellation.
// Given a cancellable one, go-sqlite3 runs every step of a statement (each
// row of a result) in a goroutine of its own so it can interrupt it: a
// search's candidate rows cost as many goroutines and channel handoffs, and
// under load that was slower than the query. Statements here are bounded
// (paged, capped), so the rows check the caller's context between rows
// instead, and a statement that has started a step finishes it.
func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	bare := context.WithoutCancel(ctx)
	cs := c.acquire(bare, query)
	if cs == nil {
		rows, err := c.SQLiteConn.QueryContext(bare, query, args)
		if err != nil {
			return nil, err
		}
		return &releasingRows{Rows: rows, ctx: ctx}, nil
	}
	rows, err := cs.stmt.QueryContext(bare, args)
	if err != nil {
		return nil, err
	}
	cs.busy = true
	return &releasingRows{Rows: rows, cs: cs, ctx: ctx}, nil
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	bare := context.WithoutCancel(ctx)
	cs := c.acquire(bare, query)
	if cs == nil {
		return c.SQLiteConn.ExecContext(bare, query, args)
	}
	return cs.stmt.ExecContext(bare, args)
}

func (c *cachingConn) Close() error {
	for _, cs := range c.stmts {
		_ = cs.stmt.Close()
	}
	c.stmts = nil
	return c.SQLiteConn.Close()
}

// releasingRows frees its statement for reuse when closed (closing the
// rows of a prepared statement resets it rather than finalising it), and
// stops at the next row once the caller's context ends.
type releasingRows struct {
	driver.Rows
	cs    *cachedStmt // nil for an uncached statement
	ctx   context.Context
	types []columnType
}

func (r *releasingRows) Next(dest []driver.Value) error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	return r.Rows.Next(dest)
}

func (r *releasingRows) Close() error {
	err := r.Rows.Close()
	if r.cs != nil {
		r.cs.busy = false
	}
	return err
}

// Columns are the result's column names. database/sql asks for them on
// every query, and go-sqlite3 reads each from C into a new string every
// time (a single-lead read's 31 were a tenth of it), so a cached
// statement's are read once: a prepared statement's columns are fixed by
// its text, which names them (ent never selects *).
func (r *releasingRows) Columns() []string {
	if r.cs == nil {
		return r.Rows.Columns()
	}
	if r.cs.columns == nil {
		r.cs.columns = r.Rows.Columns()
	}
	return r.cs.columns
}

// Column type information, which database/sql asks the rows for. It is
// read once per column of a result: ent asks for every column's types
// once for each column it scans by its type (a read's added columns),
// and each answer is a call into C.
func (r *releasingRows) ColumnTypeDatabaseTypeName(i int) string { return r.column(i).dbType }

func (r *releasingRows) ColumnTypeNullable(i int) (nullable, ok bool) {
	return r.Rows.(driver.RowsColumnTypeNullable).ColumnTypeNullable(i)
}

func (r *releasingRows) ColumnTypeScanType(i int) reflect.Type { return r.column(i).scanType }

type columnType struct {
	read     bool
	dbType   string
	scanType reflect.Type
}

func (r *releasingRows) column(i int) columnType {
	if r.types == nil {
		r.types = make([]columnType, max(len(r.Rows.Columns()), i+1))
	}
	if t := &r.types[i]; !t.read {
		*t = columnType{read: true,
			dbType:   r.Rows.(driver.RowsColumnTypeDatabaseTypeName).ColumnTypeDatabaseTypeName(i),
			scanType: r.Rows.(driver.RowsColumnTypeScanType).ColumnTypeScanType(i)}
	}
	return r.types[i]
}
