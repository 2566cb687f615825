package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// cleanEnv is the test's environment without any SVC_* setting, plus extra:
// the binary sees its defaults (svc.db in its working directory, :8080).
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SVC_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// exited is what a finished svc process printed and its exit status.
type exited struct {
	stdout, stderr string
	code           int
}

// svcIn runs exe with args in dir and waits for it to exit.
func svcIn(t *testing.T, exe, dir string, env []string, args ...string) exited {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("svc %s did not exit (it ran instead)\nstdout: %s\nstderr: %s", strings.Join(args, " "), &stdout, &stderr)
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("svc %s: %v", strings.Join(args, " "), err)
	}
	return exited{stdout: stdout.String(), stderr: stderr.String(), code: cmd.ProcessState.ExitCode()}
}

// assertEmptyDir fails when anything (a database file) was created in dir.
func assertEmptyDir(t *testing.T, dir, after string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("after svc %s, %s exists", after, e.Name())
	}
}

// TestCommandLine runs the real binary: help in all its spellings exits 0
// and touches nothing, even with a setting that would stop the server;
// usage errors exit 2 naming the problem and where to read the usage; a
// command that needs a database refuses to create an empty one.
func TestCommandLine(t *testing.T) {
	exe := buildBinary(t)
	dir := t.TempDir()
	// A bad setting and a taken address: help must read neither.
	badEnv := cleanEnv("SVC_RATE_LIMIT=many", "SVC_DATABASE_URL=")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, "Commands:"},
		{[]string{"-h"}, "Commands:"},
		{[]string{"help"}, "Commands:"},
		{[]string{"help", "serve"}, "Usage: svc serve [--demo]"},
		{[]string{"serve", "--help"}, "Usage: svc serve [--demo]"},
		{[]string{"serve", "-h"}, "-demo"},
		{[]string{"help", "keys", "create"}, "-scopes"},
		{[]string{"keys", "create", "--help"}, "Usage: svc keys create --org ID --scopes LIST"},
		{[]string{"users", "create", "-h"}, "-role"},
		{[]string{"seed", "--help"}, "-leads"},
		{[]string{"orgs", "create", "--help"}, "-name"},
		{[]string{"reindex", "--help"}, "Usage: svc reindex"},
	} {
		got := svcIn(t, exe, dir, badEnv, tc.args...)
		if got.code != 0 || !strings.Contains(got.stdout, tc.want) || got.stderr != "" {
			t.Errorf("svc %s: exit %d, stdout %q, stderr %q; want exit 0 and %q", strings.Join(tc.args, " "), got.code, got.stdout, got.stderr, tc.want)
		}
		assertEmptyDir(t, dir, strings.Join(tc.args, " "))
	}

	overview := svcIn(t, exe, dir, badEnv, "help").stdout
	for _, c := range commands {
		if !strings.Contains(overview, "\n  "+c.name+" ") {
			t.Errorf("svc help does not list %q:\n%s", c.name, overview)
		}
	}

	env := cleanEnv()
	for _, tc := range []struct {
		args       []string
		want, hint string
	}{
		{[]string{"bogus"}, `unknown command "bogus"`, "svc help'"},
		{[]string{"orgs"}, `did you mean "orgs create"`, "svc help'"},
		{[]string{"help", "bogus"}, `unknown command "bogus"`, "svc help'"},
		{[]string{"keys", "create", "--bogus"}, "-bogus", "svc help keys create'"},
		{[]string{"serve", "extra"}, `unexpected argument "extra"`, "svc help serve'"},
		{[]string{"seed", "--leads", "5"}, "--org is required", "svc help seed'"},
		{[]string{"seed", "--org", "nope"}, "--org must be an organization id", "svc help seed'"},
		{[]string{"seed", "--org", uuid.NewString(), "--leads", "-1"}, "negative", "svc help seed'"},
		{[]string{"keys", "create", "--org", uuid.NewString(), "--scopes", "leads:read,everything"}, `unknown scope "everything"`, "svc help keys create'"},
		{[]string{"users", "create", "--org", uuid.NewString(), "--role", "boss"}, `--role must be advisor, agent or admin`, "svc help users create'"},
	} {
		got := svcIn(t, exe, dir, env, tc.args...)
		if got.code != 2 || !strings.Contains(got.stderr, tc.want) || !strings.Contains(got.stderr, tc.hint) {
			t.Errorf("svc %s: exit %d, stderr %q; want exit 2, %q and %q", strings.Join(tc.args, " "), got.code, got.stderr, tc.want, tc.hint)
		}
		assertEmptyDir(t, dir, strings.Join(tc.args, " "))
	}

	// Well-formed, but there is no database here: refused without making one.
	for _, args := range [][]string{
		{"seed", "--org", uuid.NewString(), "--leads", "5"},
		{"keys", "create", "--org", uuid.NewString(), "--scopes", "leads:read"},
		{"reindex"},
	} {
		got := svcIn(t, exe, dir, env, args...)
		if got.code != 1 || !strings.Contains(got.stderr, "no database at svc.db") {
			t.Errorf("svc %s without a database: exit %d, stderr %q", strings.Join(args, " "), got.code, got.stderr)
		}
		assertEmptyDir(t, dir, strings.Join(args, " "))
	}
}

// Help through run, as main calls it: no settings are read and no database
// is opened, and exitCode maps help to 0, usage errors to 2 and others to 1.
func TestHelpTouchesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "svc.db")
	getenv := func(k string) string {
		return map[string]string{"SVC_DATABASE_URL": path, "SVC_ADDR": "256.0.0.1:1", "SVC_RATE_WINDOW": "soon"}[k]
	}
	for _, args := range [][]string{{"help"}, {"--help"}, {"serve", "--help"}, {"help", "seed"}, {"seed", "-h"}} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, getenv, &stdout, &stderr)
		if code := exitCode(err, &stderr); code != 0 || !strings.Contains(stdout.String(), "Usage: svc") {
			t.Errorf("%v: exit %d (%v), stdout %q", args, code, err, stdout.String())
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%v created the database", args)
		}
	}
	var stderr bytes.Buffer
	if code := exitCode(run(context.Background(), []string{"bogus"}, getenv, &bytes.Buffer{}, &stderr), &stderr); code != 2 ||
		!strings.Contains(stderr.String(), `unknown command "bogus"`) {
		t.Errorf("unknown command: exit %d, %q", code, stderr.String())
	}
	stderr.Reset()
	if code := exitCode(run(context.Background(), []string{"serve"}, getenv, &bytes.Buffer{}, &stderr), &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "SVC_RATE_WINDOW") {
		t.Errorf("bad setting: exit %d, %q", code, stderr.String())
	}
}

// svc help GROUP lists the group's commands, and every list of commands
// aligns its summaries past the longest name.
func TestHelpGroupsAndAlignment(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"help", "keys"}, {"help", "rollups"}, {"help", "orgs"}} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, func(string) string { return "" }, &stdout, &stderr)
		if code := exitCode(err, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, &stderr)
		}
		var columns []int
		for _, line := range strings.Split(stdout.String(), "\n") {
			for _, c := range commands {
				if strings.HasPrefix(line, "  "+c.name+" ") {
					columns = append(columns, strings.Index(line, c.summary))
				}
			}
		}
		if len(columns) == 0 || (len(args) > 1 && !strings.Contains(stdout.String(), args[1]+" ")) {
			t.Errorf("%v lists no command of its own:\n%s", args, &stdout)
		}
		for _, col := range columns {
			if col != columns[0] {
				t.Errorf("%v: summaries start at columns %v, want one column:\n%s", args, columns, &stdout)
				break
			}
		}
	}
}

// A database URL with a misspelt scheme is refused naming the scheme and
// the accepted forms, instead of being opened as a SQLite file path.
func TestDatabaseSchemeTypo(t *testing.T) {
	getenv := func(k string) string {
		return map[string]string{"SVC_DATABASE_URL": "postgress://svc@127.0.0.1:5432/svc", "SVC_ADDR": freeAddr(t)}[k]
	}
	for _, args := range [][]string{{"serve"}, {"orgs", "create", "--name", "Typo"}} {
		var stdout bytes.Buffer
		err := run(context.Background(), args, getenv, &stdout, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), `"postgress://"`) || !strings.Contains(err.Error(), "postgresql://") ||
			!strings.Contains(err.Error(), "SQLite file path") || !strings.Contains(err.Error(), "SVC_DATABASE_URL") {
			t.Errorf("svc %s: %v; want the scheme, the setting and the accepted forms named", strings.Join(args, " "), err)
		}
		if stdout.Len() > 0 {
			t.Errorf("svc %s printed %q", strings.Join(args, " "), stdout.String())
		}
	}
}
