// Package storetest opens real databases for tests: a fresh SQLite file by
// default, or, when SVC_TEST_DATABASE_URL names a PostgreSQL database, a
// fresh schema in it, dropped when the test ends.
//
// It imports only internal/store.
package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/store"
)

// EnvURL names the PostgreSQL database the suite runs against, if any.
const EnvURL = "SVC_TEST_DATABASE_URL"

// Open returns a migrated, empty database private to tb, its file store
// a directory private to tb.
func Open(tb testing.TB) *store.DB {
	tb.Helper()
	return OpenWithFiles(tb, filepath.Join(tb.TempDir(), "files"))
}

// OpenWithFiles is Open with the file store filesURL names (an S3 bucket,
// say).
func OpenWithFiles(tb testing.TB, filesURL string) *store.DB {
	tb.Helper()
	return OpenWithOptions(tb, store.Options{FilesURL: filesURL})
}

// OpenWithOptions is Open with opts (a wrapped driver, say); without a
// FilesURL, the file store is a directory private to tb.
func OpenWithOptions(tb testing.TB, opts store.Options) *store.DB {
	tb.Helper()
	if opts.FilesURL == "" {
		opts.FilesURL = filepath.Join(tb.TempDir(), "files")
	}
	db, err := store.Open(context.Background(), URL(tb), opts)
	if err != nil {
		tb.Fatalf("opening test database: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// URL returns the URL of a fresh database private to tb, without opening it
// through the store (tests of the binary pass it to the server process).
func URL(tb testing.TB) string {
	tb.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		return filepath.Join(tb.TempDir(), "svc.db")
	}
	return pgSchema(tb, base)
}

func pgSchema(tb testing.TB, base string) string {
	tb.Helper()
	schema := "t_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	admin, err := sql.Open("pgx", base)
	if err != nil {
		tb.Fatalf("connecting to %s: %v", EnvURL, err)
	}
	defer admin.Close()
	if _, err := admin.Exec(fmt.Sprintf("CREATE SCHEMA %s", schema)); err != nil {
		tb.Fatalf("creating schema: %v", err)
	}
	tb.Cleanup(func() {
		admin, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer admin.Close()
		_, _ = admin.Exec(fmt.Sprintf("DROP SCHEMA %s CASCADE", schema))
	})
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("parsing %s: %v", EnvURL, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
