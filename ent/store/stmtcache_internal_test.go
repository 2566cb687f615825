package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"
)

// The statement cache keeps ordinary statements and leaves out PRAGMAs
// however they are written, and strings of several statements.
func TestStatementCacheLeavesPragmasOut(t *testing.T) {
	registerCachedSQLite()
	db, err := sql.Open(cachedSQLite, sqliteDSN(filepath.Join(t.TempDir(), "cache.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"PRAGMA user_version = 1", "  pragma user_version = 2", "\n\tPragma user_version",
		"CREATE TABLE t (x)", "SELECT 1; SELECT 2", "SELECT count(*) FROM t", "SELECT count(*) FROM t"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%q: %v", q, err)
		}
	}
	var cached []string
	err = conn.Raw(func(dc any) error {
		for q := range dc.(*cachingConn).stmts {
			cached = append(cached, q)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(cached)
	if want := []string{"CREATE TABLE t (x)", "SELECT count(*) FROM t"}; !slices.Equal(cached, want) {
		t.Errorf("cached %q, want %q", cached, want)
	}
}
