package main

import (
	"database/sql"
	"os"
	"strings"
	"testing"

	"github.com/lendingpipe/svc/internal/store/storetest"
)

// TestDoctor runs svc doctor against a deployment before its first start,
// after it, and with settings that cannot work: it reports each finding on
// a line, changes nothing before the first start, and exits 1 only when a
// check fails.
func TestDoctor(t *testing.T) {
	exe := buildBinary(t)
	dir := t.TempDir()
	pg := os.Getenv(storetest.EnvURL) != ""

	if !pg {
		got := svcIn(t, exe, dir, cleanEnv(), "doctor")
		wantFindings(t, got, 0, "warn  database  no SQLite file at svc.db yet", "warn  files     no directory svc.db-files yet")
		assertEmptyDir(t, dir, "doctor")
	}

	url := storetest.URL(t)
	env := cleanEnv("SVC_DATABASE_URL="+url, "SVC_STORAGE_URL="+t.TempDir())
	if got := svcIn(t, exe, dir, env, "orgs", "create", "--name", "Doctor"); got.code != 0 {
		t.Fatalf("orgs create: %+v", got)
	}
	got := svcIn(t, exe, dir, env, "doctor")
	wantFindings(t, got, 0, "ok    database", "ok    schema    current", "ok    writes    a heartbeat committed",
		"ok    files", "ok    tracing   off")

	got = svcIn(t, exe, dir, append(env, "SVC_REDIS_URL=redis://127.0.0.1:1/0"), "doctor", "--timeout", "1s")
	wantFindings(t, got, 1, "fail  redis     127.0.0.1:1 does not answer")

	if !pg {
		got = svcIn(t, exe, dir, env, "doctor", "--replicas", "2")
		wantFindings(t, got, 1, "fail  replicas  a SQLite database serves one process")
		return
	}
	got = svcIn(t, exe, dir, env, "doctor", "--replicas", "3")
	wantFindings(t, got, 0, "ok    pool      3 replicas", "warn  redis     SVC_REDIS_URL is unset")
	got = svcIn(t, exe, dir, append(env, "SVC_DB_MAX_CONNS=500"), "doctor", "--replicas", "3")
	wantFindings(t, got, 1, "fail  pool      3 replicas × (SVC_DB_MAX_CONNS 500 + 2) = 1506")

	// A search index the next start must build is a pending migration.
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DROP INDEX leads_search_words`); err != nil {
		t.Fatal(err)
	}
	got = svcIn(t, exe, dir, env, "doctor")
	wantFindings(t, got, 0, "warn  schema    1 statements to migrate")
	if !strings.Contains(got.stdout, "the leads table is rewritten") {
		t.Errorf("svc doctor did not name the search rebuild:\n%s", got.stdout)
	}
}

func wantFindings(t *testing.T, got exited, code int, lines ...string) {
	t.Helper()
	if got.code != code {
		t.Errorf("svc doctor exited %d, want %d\nstdout:\n%s\nstderr: %s", got.code, code, got.stdout, got.stderr)
	}
	for _, line := range lines {
		if !strings.Contains(got.stdout, "\n"+line) && !strings.HasPrefix(got.stdout, line) {
			t.Errorf("svc doctor did not report %q:\n%s", line, got.stdout)
		}
	}
}
