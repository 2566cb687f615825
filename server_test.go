package main

import (
	"bytes"
	"context"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/store/storetest"
)

// syncBuffer is a bytes.Buffer safe to read while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestServeAndCommands runs the program as main does: with --demo it serves
// on an empty database, prints a working demo key, administers orgs, keys and users
// from the command line, and shuts down gracefully when cancelled.
func TestServeAndCommands(t *testing.T) {
	addr := freeAddr(t)
	env := map[string]string{"SVC_ADDR": addr, "SVC_DATABASE_URL": storetest.URL(t)}
	getenv := func(k string) string { return env[k] }
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve", "--demo"}, getenv, &stdout, &stderr) }()
	base := "http://" + addr
	waitUp(t, base+"/status")

	demoKey := lineAfter(t, stdout.String(), "API key (shown once): ")
	if status := call(t, "GET", base+"/v1/leads", demoKey, ""); status != http.StatusOK {
		t.Fatalf("demo key: status %d", status)
	}

	cmd := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := run(context.Background(), args, getenv, &out, &stderr); err != nil {
			t.Fatalf("svc %s: %v", strings.Join(args, " "), err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		return lines[len(lines)-1]
	}
	var orgOut bytes.Buffer
	if err := run(context.Background(), []string{"orgs", "create", "--name", "Second Shop"}, getenv, &orgOut, &stderr); err != nil {
		t.Fatal(err)
	}
	connector := lineAfter(t, orgOut.String(), "connector token (shown once): ")
	lines := strings.Split(strings.TrimSpace(orgOut.String()), "\n")
	orgID := lines[len(lines)-1]
	key := cmd("keys", "create", "--org", orgID, "--scopes", "leads:read,leads:write")
	if !strings.HasPrefix(key, "svc_live_") {
		t.Fatalf("key = %q", key)
	}
	userID := cmd("users", "create", "--org", orgID, "--first", "Ada", "--last", "Advisor", "--email", "ada@example.com", "--role", "advisor", "--team", "Closers")
	body := `{"businessName": "From CLI key", "assignToAdvisorId": "` + userID + `"}`
	if status := call(t, "POST", base+"/v1/leads", key, body); status != http.StatusCreated {
		t.Fatalf("create with CLI key: status %d", status)
	}
	agentID := cmd("users", "create", "--org", orgID, "--first", "Al", "--last", "Agent", "--email", "al@example.com", "--role", "agent")
	event := `{"type":"call_event","call_id":"c1","agent_id":"` + agentID + `","event_type":"call_started","timestamp":"2026-11-22T09:00:00Z"}`
	if status := call(t, "POST", base+"/v1/dialer/connect/"+connector, "", event); status != http.StatusOK {
		t.Fatalf("connector: status %d", status)
	}
	if err := run(context.Background(), []string{"keys", "create", "--org", orgID, "--scopes", "everything"}, getenv, &bytes.Buffer{}, &stderr); err == nil {
		t.Errorf("an unknown scope was accepted")
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not shut down")
	}
	for _, secret := range []string{demoKey, key, connector} {
		if strings.Contains(stderr.String(), secret) {
			t.Errorf("a secret reached the logs: %s…", secret[:12])
		}
	}
	if !strings.Contains(stderr.String(), "/v1/dialer/connect/{orgToken}") {
		t.Errorf("the connector request was not logged by its route pattern")
	}
}

func waitUp(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s never answered 200", url)
}

func lineAfter(t *testing.T, out, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, prefix); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no line starting %q in:\n%s", prefix, out)
	return ""
}

// call requests url with key, requires a JSON answer and returns its status.
func call(t *testing.T, method, url, key, body string) int {
	t.Helper()
	var v map[string]any
	return getJSON(t, method, url, key, body, &v)
}

// A short run of the load runner on small data, so it cannot rot: the real
// binary, seeded with a lending book, serving and a baseline, every
// scenario answered without errors (GraphQL errors counted as errors). On
// PostgreSQL two servers share the database and the requests.
func TestLoadRunner(t *testing.T) {
	exe := buildBinary(t)
	args := []string{"loadtest", "--leads", "300", "--agents", "4", "--duration", "300ms", "--warmup", "100ms", "--concurrency", "4"}
	if os.Getenv(storetest.EnvURL) != "" {
		args = append(args, "--replicas", "2")
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir, cmd.Env = t.TempDir(), append(os.Environ(), "SVC_DATABASE_URL="+storetest.URL(t))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("loadtest: %v\n%s", err, out)
	}
	for _, name := range []string{"baseline", "get lead", "list page 1", "search", "search broad word", "create lead", "patch lead", "dialer event", "presence",
		"board column (GraphQL)", "lead page (GraphQL)", "GET /v1/applications?leadId=", "GET /v1/funded-deals?lenderId=&fundedFrom=",
		"analytics pipeline by month", "analytics lenders by day", "analytics dialer by month"} {
		re := regexp.MustCompile(`\| ` + regexp.QuoteMeta(name) + ` \| (\d+) \| \d+ \|.*\| (\d+) \|`)
		m := re.FindStringSubmatch(string(out))
		if m == nil || m[1] == "0" || m[2] != "0" {
			t.Errorf("scenario %q: want requests and no errors in\n%s", name, out)
		}
	}
	if !strings.Contains(string(out), "peak RSS") {
		t.Errorf("no RSS figure:\n%s", out)
	}
}

// TestWebsocketSettings: the SVC_WS_* settings reach the GraphQL handler's
// configuration, and a bad value is refused at start-up naming it.
func TestWebsocketSettings(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	c, err := loadConfig(env(nil))
	if err != nil || c.GraphQL.WSInitTimeout != 10*time.Second || c.GraphQL.WSRecheckInterval != 5*time.Second || c.GraphQL.WSMaxSubscriptions != 20 {
		t.Fatalf("defaults: %+v, %v", c.GraphQL, err)
	}
	c, err = loadConfig(env(map[string]string{"SVC_WS_INIT_TIMEOUT": "3s", "SVC_WS_RECHECK_INTERVAL": "2s", "SVC_WS_MAX_SUBSCRIPTIONS": "7"}))
	if err != nil || c.GraphQL.WSInitTimeout != 3*time.Second || c.GraphQL.WSRecheckInterval != 2*time.Second || c.GraphQL.WSMaxSubscriptions != 7 {
		t.Fatalf("set: %+v, %v", c.GraphQL, err)
	}
	for name, value := range map[string]string{
		"SVC_WS_INIT_TIMEOUT": "0s", "SVC_WS_RECHECK_INTERVAL": "1m", "SVC_WS_MAX_SUBSCRIPTIONS": "none",
	} {
		if _, err := loadConfig(env(map[string]string{name: value})); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: %v, want an error naming it", name, value, err)
		}
	}
}

// TestSingleSignOnSettings: the three SVC_OIDC_* settings come together or
// not at all, and SVC_PUBLIC_URL must be a base URL; a start-up error names
// what is wrong.
func TestSingleSignOnSettings(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	c, err := loadConfig(env(nil))
	if err != nil || c.OIDC != nil || c.PublicURL != "" {
		t.Fatalf("unset: %+v %q, %v; want single sign-on off", c.OIDC, c.PublicURL, err)
	}
	all := map[string]string{"SVC_OIDC_ISSUER": "https://id.example.com", "SVC_OIDC_CLIENT_ID": "svc", "SVC_OIDC_CLIENT_SECRET": "s3cret",
		"SVC_PUBLIC_URL": "https://pipeline.example.com/"}
	c, err = loadConfig(env(all))
	if err != nil || c.OIDC == nil || c.OIDC.Issuer != "https://id.example.com" || c.OIDC.ClientID != "svc" ||
		c.OIDC.ClientSecret != "s3cret" || c.PublicURL != "https://pipeline.example.com" {
		t.Fatalf("set: %+v %q, %v", c.OIDC, c.PublicURL, err)
	}
	for _, missing := range []string{"SVC_OIDC_ISSUER", "SVC_OIDC_CLIENT_ID", "SVC_OIDC_CLIENT_SECRET"} {
		kv := maps.Clone(all)
		delete(kv, missing)
		if _, err := loadConfig(env(kv)); err == nil || !strings.Contains(err.Error(), missing+" not") {
			t.Errorf("without %s: %v, want an error naming it", missing, err)
		}
	}
	for name, value := range map[string]string{"SVC_OIDC_ISSUER": "id.example.com", "SVC_PUBLIC_URL": "pipeline.example.com"} {
		kv := maps.Clone(all)
		kv[name] = value
		if _, err := loadConfig(env(kv)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: %v, want an error naming it", name, value, err)
		}
	}
}

// TestAbuseLoadRun runs the abusive-query load run briefly: ordinary
// requests beside the attackers all succeed, and every abusive query is
// refused with an error, never a 5xx.
func TestAbuseLoadRun(t *testing.T) {
	exe := buildBinary(t)
	cmd := exec.Command(exe, "loadtest", "--abuse", "--leads", "300", "--agents", "4", "--duration", "500ms",
		"--warmup", "200ms", "--concurrency", "2", "--rate", "50")
	cmd.Dir, cmd.Env = t.TempDir(), append(os.Environ(), "SVC_DATABASE_URL="+storetest.URL(t))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("loadtest --abuse: %v\n%s", err, out)
	}
	for _, name := range []string{"REST get lead", "GraphQL leads\\(first: 20\\)"} {
		m := regexp.MustCompile(`\| ` + name + ` \|.*\| (\d+) \|\n`).FindStringSubmatch(string(out))
		if m == nil || m[1] != "0" {
			t.Errorf("ordinary %q: want no errors beside the attackers in\n%s", name, out)
		}
	}
	rows := regexp.MustCompile(`(?m)^\| ([a-z]+ bomb[^|]*) \| \d+ B \| (\d+) \| ([^|]*) \| [^|]* \| \d+ B \| ([^|]*) \|$`).FindAllStringSubmatch(string(out), -1)
	if len(rows) != 7 {
		t.Fatalf("want 7 abusive queries reported, got %d in\n%s", len(rows), out)
	}
	for _, r := range rows {
		if r[2] == "0" || regexp.MustCompile(`×5\d\d`).MatchString(r[3]) || strings.TrimSpace(r[4]) == "" {
			t.Errorf("%s: sent %s, answered %s, first error %q: want answers, none 5xx, each refused with an error", r[1], r[2], r[3], r[4])
		}
	}
}

// The SVC_GRAPHQL_* settings reach graph.HandlerConfig, with the defaults
// when unset; a bad value stops start-up with the setting's name.
func TestGraphQLSettings(t *testing.T) {
	cfg, err := loadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if g := cfg.GraphQL; g.MaxComplexity != 2000 || g.MaxPageSize != 100 || g.MaxTokens != 5000 || g.Timeout != 15*time.Second {
		t.Errorf("defaults: %+v", g)
	}
	env := map[string]string{"SVC_GRAPHQL_MAX_COMPLEXITY": "5000", "SVC_GRAPHQL_MAX_PAGE_SIZE": "50",
		"SVC_GRAPHQL_MAX_TOKENS": "8000", "SVC_GRAPHQL_TIMEOUT": "3s"}
	if cfg, err = loadConfig(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if g := cfg.GraphQL; g.MaxComplexity != 5000 || g.MaxPageSize != 50 || g.MaxTokens != 8000 || g.Timeout != 3*time.Second {
		t.Errorf("set: %+v", g)
	}
	for name, bad := range map[string]string{"SVC_GRAPHQL_MAX_COMPLEXITY": "0", "SVC_GRAPHQL_MAX_PAGE_SIZE": "many",
		"SVC_GRAPHQL_MAX_TOKENS": "-1", "SVC_GRAPHQL_TIMEOUT": "15"} {
		_, err := loadConfig(func(k string) string {
			if k == name {
				return bad
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: %v", name, bad, err)
		}
	}
}

// SVC_MAX_BODY_BYTES sets the request body limit (1 MiB by default); a
// value too small to hold an ordinary request is refused at start-up.
func TestBodyLimitSetting(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "SVC_MAX_BODY_BYTES" {
				return v
			}
			return ""
		}
	}
	for _, tc := range []struct {
		value string
		want  int64
	}{{"", 1 << 20}, {"65536", 65536}} {
		if c, err := loadConfig(env(tc.value)); err != nil || c.MaxBodyBytes != tc.want {
			t.Errorf("SVC_MAX_BODY_BYTES=%q: %d, %v; want %d", tc.value, c.MaxBodyBytes, err, tc.want)
		}
	}
	for _, bad := range []string{"0", "100", "1MiB", "-5"} {
		if _, err := loadConfig(env(bad)); err == nil || !strings.Contains(err.Error(), "SVC_MAX_BODY_BYTES") {
			t.Errorf("SVC_MAX_BODY_BYTES=%q: %v, want an error naming it", bad, err)
		}
	}
}

// The file settings: upload limits within 1 byte to 1 GiB, a sweep of at
// least a second, and the store's URL as given.
func TestFileSettings(t *testing.T) {
	one := func(name, v string) func(string) string {
		return func(k string) string {
			if k == name {
				return v
			}
			return ""
		}
	}
	c, err := loadConfig(one("", ""))
	if err != nil || c.GraphQL.Uploads.Document != 25<<20 || c.GraphQL.Uploads.Import != 100<<20 || c.StorageSweep != 10*time.Minute || c.StorageURL != "" {
		t.Fatalf("defaults: %+v %v, %v", c.GraphQL.Uploads, c.StorageSweep, err)
	}
	if c, err := loadConfig(one("SVC_DOCUMENT_MAX_BYTES", "1048576")); err != nil || c.GraphQL.Uploads.Document != 1<<20 {
		t.Errorf("SVC_DOCUMENT_MAX_BYTES: %+v, %v", c.GraphQL.Uploads, err)
	}
	if c.RenewalSweep != time.Minute {
		t.Errorf("SVC_RENEWAL_SWEEP's default: %s, want 1m", c.RenewalSweep)
	}
	if c, err := loadConfig(one("SVC_RENEWAL_SWEEP", "15s")); err != nil || c.RenewalSweep != 15*time.Second {
		t.Errorf("SVC_RENEWAL_SWEEP: %s, %v", c.RenewalSweep, err)
	}
	if c, err := loadConfig(one("SVC_STORAGE_URL", "s3://docs?region=eu-west-1")); err != nil || c.StorageURL != "s3://docs?region=eu-west-1" {
		t.Errorf("SVC_STORAGE_URL: %q, %v", c.StorageURL, err)
	}
	for name, bad := range map[string][]string{
		"SVC_DOCUMENT_MAX_BYTES": {"0", "-1", "25MiB", "1073741825"},
		"SVC_IMPORT_MAX_BYTES":   {"0", "x"},
		"SVC_STORAGE_SWEEP":      {"0s", "10ms", "soon"},
		"SVC_RENEWAL_SWEEP":      {"0s", "500ms", "daily"},
	} {
		for _, v := range bad {
			if _, err := loadConfig(one(name, v)); err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("%s=%q: %v, want an error naming it", name, v, err)
			}
		}
	}
}

// SVC_BUS chooses the change bus: auto by default; postgres needs a
// PostgreSQL database and redis SVC_REDIS_URL.
func TestBusSetting(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	if c, err := loadConfig(env(nil)); err != nil || c.Bus != "auto" {
		t.Errorf("default: %q, %v", c.Bus, err)
	}
	for _, ok := range []map[string]string{
		{"SVC_BUS": "memory"},
		{"SVC_BUS": "redis", "SVC_REDIS_URL": "redis://127.0.0.1:6379/0"},
		{"SVC_BUS": "postgres", "SVC_DATABASE_URL": "postgres://db.example/svc"},
	} {
		if c, err := loadConfig(env(ok)); err != nil || c.Bus != ok["SVC_BUS"] {
			t.Errorf("%v: %q, %v", ok, c.Bus, err)
		}
	}
	for _, bad := range []string{"postgres", "redis", "kafka"} {
		if _, err := loadConfig(env(map[string]string{"SVC_BUS": bad})); err == nil || !strings.Contains(err.Error(), "SVC_BUS") {
			t.Errorf("SVC_BUS=%s on SQLite without Redis: %v, want an error naming it", bad, err)
		}
	}
}
