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

// The rows answer each column's types as the driver does, however often
// they are asked, for a cached statement and an uncached one alike.
func TestRowsAnswerTheDriversColumnTypes(t *testing.T) {
	registerCachedSQLite()
	path := filepath.Join(t.TempDir(), "types.db")
	cached, err := sql.Open(cachedSQLite, sqliteDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	defer cached.Close()
	plain, err := sql.Open("sqlite3", sqliteDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := cached.Exec("CREATE TABLE t (n integer, s text, at datetime, b blob, u uuid)"); err != nil {
		t.Fatal(err)
	}
	if _, err := cached.Exec("INSERT INTO t VALUES (1, 'a', '2026-01-02 03:04:05', x'00', 'u')"); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		db, scan string
	}
	answers := func(db *sql.DB, query string, times int) [][]answer {
		rows, err := db.Query(query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out [][]answer
		for k := range times {
			if k == 1 && !rows.Next() { // the answers do not depend on the row
				t.Fatalf("%q: no row", query)
			}
			types, err := rows.ColumnTypes()
			if err != nil {
				t.Fatal(err)
			}
			var a []answer
			for _, ct := range types {
				a = append(a, answer{ct.DatabaseTypeName(), ct.ScanType().String()})
			}
			out = append(out, a)
		}
		return out
	}
	for _, q := range []string{"SELECT n, s, at, b, u, n + 1 AS m FROM t", "SELECT 1; SELECT 2"} {
		want := answers(plain, q, 1)[0]
		for i, got := range answers(cached, q, 3) {
			if !slices.Equal(got, want) {
				t.Errorf("%q, asked %d times: %v, want %v", q, i+1, got, want)
			}
		}
	}
}
