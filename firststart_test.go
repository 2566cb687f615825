package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/organization"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/seed"
)

// waitFor waits until out holds want.
func waitFor(t *testing.T, out *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in:\n%s", want, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// serving runs `svc args...` through run until it has printed until and
// check (given the base URL and what the server printed) returns, and
// returns what it printed.
func serving(t *testing.T, env map[string]string, args []string, until string, check func(base, stdout string)) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, func(k string) string { return env[k] }, &stdout, &stderr) }()
	waitFor(t, &stdout, until)
	if check != nil {
		check("http://"+env["SVC_ADDR"], stdout.String())
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("svc %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop")
	}
	return stdout.String()
}

// getJSON requests url with key and decodes the answer into v, returning the status.
func getJSON(t *testing.T, method, url, key, body string, v any) int {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return resp.StatusCode
}

// checkDemo uses the demo key as the README and docs/api.md tour does: the
// organization has leads over several stages, some assigned, advisors and
// agents in a team, and the key may do every step (leads, dialer writes,
// webhooks, inbound endpoints and automations).
func checkDemo(t *testing.T, base, key string) {
	t.Helper()
	var leads struct {
		Data []struct {
			Attributes struct {
				PrimaryAdvisorID *string `json:"primaryAdvisorId"`
				Stage            struct {
					StageKey string `json:"stageKey"`
				} `json:"stage"`
			} `json:"attributes"`
		} `json:"data"`
	}
	if code := getJSON(t, "GET", base+"/v1/leads?limit=100", key, "", &leads); code != http.StatusOK {
		t.Fatalf("demo key listing leads: %d", code)
	}
	stages, assigned := map[string]bool{}, 0
	for _, l := range leads.Data {
		stages[l.Attributes.Stage.StageKey] = true
		if l.Attributes.PrimaryAdvisorID != nil {
			assigned++
		}
	}
	if len(leads.Data) < 5 || len(stages) < 5 || assigned == 0 || assigned == len(leads.Data) {
		t.Errorf("demo leads: %d in %d stages, %d assigned", len(leads.Data), len(stages), assigned)
	}

	var gql struct {
		Data struct {
			Users struct {
				Edges []struct {
					Node struct {
						ID   string
						Role string
						Team *struct{ Name string }
					}
				}
			}
		}
	}
	q := `{"query":"{ users(first: 50) { edges { node { id role team { name } } } } }"}`
	if code := getJSON(t, "POST", base+"/graphql", key, q, &gql); code != http.StatusOK {
		t.Fatalf("GraphQL users: %d", code)
	}
	roles, agent := map[string]int{}, ""
	for _, e := range gql.Data.Users.Edges {
		if e.Node.Team != nil {
			roles[e.Node.Role]++
		}
		if e.Node.Role == "agent" {
			agent = e.Node.ID
		}
	}
	if roles["advisor"] < 2 || roles["agent"] < 2 {
		t.Errorf("demo users in a team by role: %v", roles)
	}

	var answer map[string]any
	presence := `{"userId":"` + agent + `","status":"online"}`
	for _, step := range []struct{ method, path, body string }{
		{"POST", "/v1/dialer/presence", presence},
		{"GET", "/v1/dialer/agents?limit=100", ""},
		{"GET", "/v1/app-webhooks", ""},
		{"GET", "/v1/inbound-endpoints", ""},
		{"GET", "/v1/automations", ""},
	} {
		if code := getJSON(t, step.method, base+step.path, key, step.body, &answer); code != http.StatusOK {
			t.Errorf("demo key: %s %s answered %d: %v", step.method, step.path, code, answer)
		}
	}
}

// demoOrgs counts the demo organizations of the database at url.
func demoOrgs(t *testing.T, url string) int {
	t.Helper()
	db, err := store.Open(context.Background(), url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n, err := db.Client.Organization.Query().Where(organization.Name(seed.DemoOrgName)).Count(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// `serve --demo` makes the demo organization on any database that has none,
// after printing where the server is; its key holds every scope and the
// tour works with it. Asked again it makes nothing; without the flag a
// configured database gets no demo organization.
func TestDemoFlag(t *testing.T) {
	url := storetest.URL(t)
	env := map[string]string{"SVC_ADDR": freeAddr(t), "SVC_DATABASE_URL": url}

	out := serving(t, env, []string{"serve"}, "Playground", nil)
	if strings.Contains(out, "API key") || demoOrgs(t, url) != 0 {
		t.Fatalf("serve without --demo on a configured database made the demo organization:\n%s", out)
	}

	// The demo organization is made after the banner: its key is printed
	// once it is.
	out = serving(t, env, []string{"serve", "--demo"}, "API key (shown once): ", func(base, out string) {
		checkDemo(t, base, lineAfter(t, out, "API key (shown once): "))
	})
	banner, _, _ := strings.Cut(out, "Created demo organization")
	base := "http://" + env["SVC_ADDR"]
	for _, want := range []string{base + "/v1", base + "/graphql", base + "/console", base + "/playground"} {
		if !strings.Contains(banner, want) {
			t.Errorf("the banner does not show %s before the demo organization:\n%s", want, out)
		}
	}
	scopes := lineAfter(t, out, "  scopes: ")
	for _, s := range viewer.AllScopes {
		if !strings.Contains(", "+scopes+",", ", "+s+",") {
			t.Errorf("the printed scopes %q lack %s", scopes, s)
		}
	}

	out = serving(t, env, []string{"--demo"}, "Playground", nil) // serve is the default command
	if strings.Contains(out, "API key") {
		t.Errorf("a second --demo printed a key:\n%s", out)
	}
	if n := demoOrgs(t, url); n != 1 {
		t.Errorf("%d demo organizations after --demo three times", n)
	}
}

// With its address taken, serve fails naming the address and the cause,
// before it prints anything or creates the database or the demo
// organization.
func TestPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	url := storetest.URL(t)
	var stdout bytes.Buffer
	err = run(context.Background(), []string{"serve", "--demo"},
		func(k string) string { return map[string]string{"SVC_ADDR": addr, "SVC_DATABASE_URL": url}[k] }, &stdout, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("serve on a taken address: %v; want the address and the cause", err)
	}
	if stdout.Len() > 0 {
		t.Errorf("serve on a taken address printed %q", stdout.String())
	}
	if path, ok := store.SQLiteFile(url); ok {
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("serve on a taken address created the database: %v", err)
		}
	}
	if n := demoOrgs(t, url); n != 0 {
		t.Errorf("serve on a taken address made %d demo organizations", n)
	}
}

// A newcomer's first start, the real binary with no settings in an empty
// directory: it creates svc.db with the demo organization and prints the
// URLs and the key; a restart prints no key. With the port taken, it fails
// with exit 1 and leaves the directory empty.
func TestFirstStart(t *testing.T) {
	if os.Getenv(storetest.EnvURL) != "" {
		t.Skip("the default database is SQLite")
	}
	exe := buildBinary(t)
	dir, addr := t.TempDir(), freeAddr(t)
	start := func() *syncBuffer {
		cmd := exec.Command(exe)
		cmd.Dir, cmd.Env = dir, cleanEnv("SVC_ADDR="+addr)
		stdout := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = stdout, &syncBuffer{}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		waitFor(t, stdout, "Playground")
		waitUp(t, "http://"+addr+"/readyz")
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("svc: %v", err)
		}
		return stdout
	}
	first := start().String()
	key := lineAfter(t, first, "API key (shown once): ")
	if !strings.Contains(first, "http://"+addr+"/playground") || !strings.HasPrefix(key, "svc_live_") {
		t.Errorf("first start printed:\n%s", first)
	}
	if _, err := os.Stat(dir + "/svc.db"); err != nil {
		t.Errorf("no svc.db after the first start: %v", err)
	}
	if again := start().String(); strings.Contains(again, "API key") || !strings.Contains(again, "/playground") {
		t.Errorf("restart printed:\n%s", again)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	empty := t.TempDir()
	got := svcIn(t, exe, empty, cleanEnv("SVC_ADDR="+ln.Addr().String()))
	if got.code != 1 || got.stdout != "" || !strings.Contains(got.stderr, ln.Addr().String()) ||
		!strings.Contains(got.stderr, "address already in use") {
		t.Errorf("with the port taken: exit %d, stdout %q, stderr %q", got.code, got.stdout, got.stderr)
	}
	assertEmptyDir(t, empty, "serve on a taken port")
}

// Seeding an organization the database does not hold says so, naming it.
func TestSeedUnknownOrg(t *testing.T) {
	url := storetest.URL(t)
	db, err := store.Open(context.Background(), url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	id := uuid.NewString()
	err = run(context.Background(), []string{"seed", "--org", id, "--leads", "5"},
		func(k string) string { return map[string]string{"SVC_DATABASE_URL": url}[k] }, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "no organization "+id) || strings.Contains(err.Error(), "<nil>") {
		t.Fatalf("seed of an unknown organization: %v", err)
	}
}
