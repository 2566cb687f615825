package store

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
)

// urlScheme matches the scheme of a value written as a URL (scheme://...).
var urlScheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`)

// CheckDatabaseURL refuses a database URL whose scheme Open does not know.
// Open reads anything but postgres:// and postgresql:// as a SQLite file
// path, so without this a misspelt scheme (postgress://) would be taken for
// a file name and fail as an unopenable file, or create one.
func CheckDatabaseURL(databaseURL string) error {
	m := urlScheme.FindStringSubmatch(databaseURL)
	if m == nil {
		return nil
	}
	switch m[1] {
	case "postgres", "postgresql", "file":
		return nil
	}
	return fmt.Errorf("unknown database URL scheme %q: use postgres:// or postgresql:// for PostgreSQL, "+
		"or a SQLite file path (optionally file:path)", m[1]+"://")
}

// isPostgres reports whether databaseURL selects PostgreSQL.
func isPostgres(databaseURL string) bool {
	return strings.HasPrefix(databaseURL, "postgres://") || strings.HasPrefix(databaseURL, "postgresql://")
}

// splitSQLite splits a SQLite database URL (a path, optionally prefixed
// file: and followed by ?parameters) into its file path and parameters.
func splitSQLite(databaseURL string) (path string, params url.Values) {
	path = strings.TrimPrefix(databaseURL, "file:")
	params = url.Values{}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		params, _ = url.ParseQuery(path[i+1:])
		path = path[:i]
	}
	return filepath.Clean(path), params
}

// SQLiteFile returns the file a database URL names, and false when the URL
// names no file: PostgreSQL, or an in-memory SQLite database.
func SQLiteFile(databaseURL string) (string, bool) {
	if isPostgres(databaseURL) {
		return "", false
	}
	path, params := splitSQLite(databaseURL)
	if path == ":memory:" || params.Get("mode") == "memory" {
		return "", false
	}
	return path, true
}
