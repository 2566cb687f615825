package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
)

// buildBinary compiles svc for tests that run the real process, once for
// the package's tests: a link of the whole service is seconds, and a dozen
// tests start it.
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	binary.once.Do(func() {
		dir, err := os.MkdirTemp("", "svc-test-binary-")
		if err != nil {
			binary.err = err
			return
		}
		binary.dir, binary.exe = dir, filepath.Join(dir, "svc")
		if out, err := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", binary.exe, ".").CombinedOutput(); err != nil {
			binary.err = fmt.Errorf("%w\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatalf("building: %v", binary.err)
	}
	return binary.exe
}

// binary is the svc buildBinary made; TestMain removes it.
var binary struct {
	once     sync.Once
	dir, exe string
	err      error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binary.dir != "" {
		_ = os.RemoveAll(binary.dir)
	}
	os.Exit(code)
}

// process is a running `svc serve`.
type process struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
}

func startServe(t *testing.T, exe string, env []string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(exe, "serve"), stdout: &syncBuffer{}, stderr: &syncBuffer{}}
	// A directory of its own: with PostgreSQL the file store defaults to
	// svc-files in the working directory.
	p.cmd.Dir, p.cmd.Env = t.TempDir(), append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() })
	return p
}

// newOrgKey creates an organization and an API key holding every scope
// with the svc commands, and returns the key and the organization's dialer
// connector token: an organization with nothing in it yet.
func newOrgKey(t *testing.T, exe string, env []string) (key, connector string) {
	t.Helper()
	svc := func(args ...string) string {
		cmd := exec.Command(exe, args...)
		cmd.Dir, cmd.Env = t.TempDir(), append(os.Environ(), env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("svc %s: %v\n%s", strings.Join(args, " "), err, &stderr)
		}
		return string(out)
	}
	out := svc("orgs", "create", "--name", "Test Lending")
	connector = lineAfter(t, out, "connector token (shown once): ")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	key = strings.TrimSpace(svc("keys", "create", "--org", lines[len(lines)-1], "--scopes", strings.Join(viewer.AllScopes, ",")))
	return key, connector
}

// The server is killed with SIGKILL in the middle of a burst of lead
// creations and restarted: every acknowledged lead exists, each lead's
// lead.created arrives (duplicates only with the same X-Webhook-Id), no
// event names a lead that does not exist, and retrying the unanswered
// requests with their Idempotency-Keys creates no duplicates.
func TestCrashSafety(t *testing.T) {
	exe := buildBinary(t)
	addr := freeAddr(t)
	base := "http://" + addr
	env := []string{"SVC_ADDR=" + addr, "SVC_DATABASE_URL=" + storetest.URL(t), "SVC_LOG_LEVEL=DEBUG",
		"SVC_WEBHOOK_ALLOW_PRIVATE=true", "SVC_WEBHOOK_ALLOW_HTTP=true", "SVC_WEBHOOK_POLL=50ms", "SVC_IDEMPOTENCY_LEASE=2s"}

	var mu sync.Mutex
	deliveries := map[string][]string{} // lead id → X-Webhook-Ids
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var env struct {
			Data map[string]any `json:"data"`
		}
		_ = json.NewDecoder(r.Body).Decode(&env)
		mu.Lock()
		id := fmt.Sprint(env.Data["leadId"])
		deliveries[id] = append(deliveries[id], r.Header.Get("X-Webhook-Id"))
		mu.Unlock()
	}))
	defer recv.Close()

	first := startServe(t, exe, env)
	waitUp(t, base+"/readyz")
	key, connector := newOrgKey(t, exe, env)
	secret := "whsec_crash_test_secret_0123456789"
	if code := call(t, "POST", base+"/v1/app-webhooks", key, `{"url":"`+recv.URL+`","events":["lead.created"],"secret":"`+secret+`"}`); code != http.StatusCreated {
		t.Fatalf("subscribing: %d", code)
	}

	const n = 400
	acked := make([]string, n) // lead id per request that got a 2xx
	var next sync.WaitGroup
	var ackedCount, sent int
	var countMu sync.Mutex
	killed := make(chan struct{})
	var once sync.Once
	work := make(chan int)
	for range 8 {
		next.Go(func() {
			for i := range work {
				id, code := createLead(base, key, i)
				countMu.Lock()
				if code/100 == 2 {
					acked[i] = id
					ackedCount++
				}
				if ackedCount == n/3 {
					once.Do(func() { _ = first.cmd.Process.Signal(syscall.SIGKILL); close(killed) })
				}
				countMu.Unlock()
			}
		})
	}
	for i := range n {
		work <- i
		sent++
	}
	close(work)
	next.Wait()
	<-killed
	_ = first.cmd.Wait()

	second := startServe(t, exe, env)
	waitUp(t, base+"/readyz")
	// Secrets never reach the logs, at debug level, across a crash and the
	// deliveries that follow (checked once they have all arrived, below).
	defer func() {
		for _, p := range []*process{first, second} {
			for name, s := range map[string]string{"API key": key, "webhook secret": secret, "connector token": connector} {
				if strings.Contains(p.stderr.String(), s) {
					t.Errorf("the %s reached the logs", name)
				}
			}
		}
		if !strings.Contains(second.stderr.String(), "POST") {
			t.Error("no access log was captured; the secret check proved nothing")
		}
	}()
	if code := call(t, "POST", base+"/v1/dialer/connect/"+connector, "", `{"type":"dnc","phone":"+15550001111"}`); code != http.StatusOK {
		t.Fatalf("connector: %d", code) // its token, in the path, must not be logged either
	}
	retried := 0
	for i := range n {
		id, code := createLead(base, key, i)
		for tries := 0; code == http.StatusConflict && tries < 50; tries++ {
			time.Sleep(100 * time.Millisecond) // the killed server's claim: its lease runs out
			id, code = createLead(base, key, i)
		}
		if code != http.StatusCreated {
			t.Fatalf("retry %d: %d", i, code)
		}
		if acked[i] != "" && acked[i] != id {
			t.Fatalf("request %d: acknowledged lead %s, the retry answered %s", i, acked[i], id)
		}
		if acked[i] == "" {
			retried++
		}
		acked[i] = id
	}
	if retried == 0 {
		t.Fatal("the kill left no request unanswered; the test proved nothing")
	}

	leads := listLeadIDs(t, base, key)
	if len(leads) != n {
		t.Fatalf("%d leads exist after %d distinct requests", len(leads), n)
	}
	for i, id := range acked {
		if !leads[id] {
			t.Fatalf("request %d's lead %s does not exist", i, id)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		mu.Lock()
		got := len(deliveries)
		mu.Unlock()
		if got >= n || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	events := 0
	for id, ids := range deliveries {
		events += len(ids)
		if !leads[id] {
			t.Errorf("lead.created for %s, which does not exist", id)
		}
		for _, w := range ids {
			if w != ids[0] {
				t.Errorf("lead %s delivered under two webhook ids: %v", id, ids)
			}
		}
	}
	if len(deliveries) != n {
		t.Fatalf("%d of %d leads had their lead.created delivered", len(deliveries), n)
	}
	t.Logf("killed after %d acknowledged; %d retried; %d deliveries for %d leads", n/3, retried, events, n)
}

func createLead(base, key string, i int) (string, int) {
	req, _ := http.NewRequest("POST", base+"/v1/leads", strings.NewReader(fmt.Sprintf(`{"businessName":"Crash %d"}`, i)))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", fmt.Sprintf("crash-%d", i))
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return "", 0
	}
	defer resp.Body.Close()
	var body struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	raw, _ := io.ReadAll(resp.Body)
	_ = json.NewDecoder(bytes.NewReader(raw)).Decode(&body)
	return body.Data.ID, resp.StatusCode
}

func listLeadIDs(t *testing.T, base, key string) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	for page := 1; ; page++ {
		req, _ := http.NewRequest("GET", fmt.Sprintf("%s/v1/leads?page=%d&limit=100", base, page), nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
			Meta struct {
				HasMore bool `json:"hasMore"`
			} `json:"meta"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		for _, d := range body.Data {
			ids[d.ID] = true
		}
		if !body.Meta.HasMore {
			return ids
		}
	}
}

// SIGTERM while a request is still being received and a delivery is in
// flight: the request completes (201), the process exits cleanly, and the
// interrupted delivery is sent again, under the same X-Webhook-Id, by the
// next process once its claim lapses.
func TestGracefulShutdown(t *testing.T) {
	exe := buildBinary(t)
	addr := freeAddr(t)
	base := "http://" + addr
	env := []string{"SVC_ADDR=" + addr, "SVC_DATABASE_URL=" + storetest.URL(t), "SVC_LOG_LEVEL=ERROR",
		"SVC_WEBHOOK_ALLOW_PRIVATE=true", "SVC_WEBHOOK_ALLOW_HTTP=true", "SVC_WEBHOOK_POLL=50ms", "SVC_WEBHOOK_TIMEOUT=1s"}
	ids := make(chan string, 10)
	inFlight := make(chan struct{}, 10)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ids <- r.Header.Get("X-Webhook-Id")
		if len(ids) == 1 {
			inFlight <- struct{}{}
			select { // the first attempt hangs until the sender gives up
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}
	}))
	defer recv.Close()

	first := startServe(t, exe, env)
	waitUp(t, base+"/readyz")
	key, _ := newOrgKey(t, exe, env)
	if code := call(t, "POST", base+"/v1/app-webhooks", key, `{"url":"`+recv.URL+`","events":["lead.created"]}`); code != http.StatusCreated {
		t.Fatalf("subscribing: %d", code)
	}
	if id, code := createLead(base, key, 1); code != http.StatusCreated || id == "" {
		t.Fatalf("lead: %d", code)
	}
	<-inFlight

	// A request whose body is still arriving when SIGTERM comes.
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", base+"/v1/leads", pr)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	done := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	_, _ = pw.Write([]byte(`{"businessName":`))
	time.Sleep(200 * time.Millisecond)
	_ = first.cmd.Process.Signal(syscall.SIGTERM)
	time.Sleep(300 * time.Millisecond)
	_, _ = pw.Write([]byte(`"Arrived during shutdown"}`))
	pw.Close()
	if code := <-done; code != http.StatusCreated {
		t.Fatalf("the in-flight request answered %d, want 201", code)
	}
	if err := first.cmd.Wait(); err != nil {
		t.Fatalf("the server did not exit cleanly: %v", err)
	}

	startServe(t, exe, env)
	waitUp(t, base+"/readyz")
	firstID := <-ids
	seen := map[string]int{firstID: 1}
	deadline := time.After(60 * time.Second)
	for seen[firstID] < 2 || len(seen) < 2 {
		select {
		case id := <-ids:
			seen[id]++
		case <-deadline:
			t.Fatalf("after the restart: %v; want the interrupted delivery %s again and the late lead's", seen, firstID)
		}
	}
}

// A stopping server with SVC_DRAIN_DELAY answers /readyz 503 at once, so
// the load balancer stops sending it requests, but goes on serving what it
// is still sent until the delay ends; then it exits.
func TestDrainBeforeShutdown(t *testing.T) {
	exe := buildBinary(t)
	addr := freeAddr(t)
	base := "http://" + addr
	env := []string{"SVC_ADDR=" + addr, "SVC_DATABASE_URL=" + storetest.URL(t), "SVC_LOG_LEVEL=ERROR", "SVC_DRAIN_DELAY=3s"}
	p := startServe(t, exe, env)
	waitUp(t, base+"/readyz")
	key, _ := newOrgKey(t, exe, env)

	stopped := time.Now()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	var ready struct {
		Errors []struct{ Message string }
	}
	// A probe begun before the server saw the signal may still answer 200
	// (its write check can take a while on a busy database); one begun two
	// seconds after it must not.
	for {
		time.Sleep(20 * time.Millisecond)
		sent := time.Now()
		if code := getJSON(t, "GET", base+"/readyz", "", "", &ready); code != http.StatusOK {
			break
		}
		if sent.Sub(stopped) > 2*time.Second {
			t.Fatalf("/readyz sent %s after SIGTERM still answered 200", sent.Sub(stopped).Round(time.Millisecond))
		}
	}
	if len(ready.Errors) != 1 || !strings.Contains(ready.Errors[0].Message, "shutting down") {
		t.Errorf("/readyz while draining: %+v", ready)
	}
	if id, code := createLead(base, key, 1); code != http.StatusCreated || id == "" {
		t.Errorf("a request while draining answered %d", code)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("the server did not exit cleanly: %v\n%s", err, p.stderr)
	}
	if took := time.Since(stopped); took < 3*time.Second {
		t.Errorf("the server exited %s after SIGTERM, before its drain delay", took)
	}
}
