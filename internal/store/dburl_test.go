package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lendingpipe/svc/internal/store"
)

// A database URL of an unknown scheme is refused naming it; SQLite paths (with or without file:) and PostgreSQL URLs pass.
func TestCheckDatabaseURL(t *testing.T) {
	for _, ok := range []string{"svc.db", "./data/svc.db", "file:svc.db?_busy_timeout=5000", "file:///tmp/svc.db",
		"postgres://u@localhost/db", "postgresql://u@localhost/db?sslmode=disable", "C:\\data\\svc.db"} {
		if err := store.CheckDatabaseURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"postgress://u@localhost/db", "mysql://u@localhost/db", "sqlite://svc.db"} {
		err := store.CheckDatabaseURL(bad)
		scheme := bad[:strings.Index(bad, "://")+3]
		if err == nil || !strings.Contains(err.Error(), scheme) || !strings.Contains(err.Error(), "postgres://") {
			t.Errorf("%s: %v; want an error naming %s and the accepted forms", bad, err, scheme)
		}
	}
	if _, err := store.Open(context.Background(), "postgress://u@localhost/db", store.Options{}); err == nil ||
		!strings.Contains(err.Error(), "postgress://") {
		t.Errorf("Open of a misspelt scheme: %v", err)
	}
}
