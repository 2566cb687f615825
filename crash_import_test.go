package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
)

// The server is killed with SIGKILL in the middle of a lead import and
// started again on the same database: the job is taken over once the dead
// worker's lease lapses and resumes after its committed batches, so every
// row becomes exactly one lead with exactly one lead.created.
func TestCrashDuringImport(t *testing.T) {
	exe := buildBinary(t)
	addr := freeAddr(t)
	base := "http://" + addr
	dbURL := storetest.URL(t)
	env := []string{"SVC_ADDR=" + addr, "SVC_DATABASE_URL=" + dbURL, "SVC_LOG_LEVEL=ERROR"}
	// The file store defaults to a directory beside the database, or in
	// the working directory: both processes run in this one.
	dir := t.TempDir()

	first := startServeIn(t, exe, env, dir)
	waitUp(t, base+"/readyz")
	key, _ := newOrgKey(t, exe, env)
	const rows = 20_000
	id := importOverHTTP(t, base, key, importFile(rows))

	for {
		job := importProgress(t, base, key, id)
		if job.Status == "done" || job.Status == "failed" {
			t.Fatalf("the import ended (%s) before it could be killed: grow the file", job.Status)
		}
		if job.RowsImported > 0 && job.RowsImported < rows {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = first.cmd.Process.Signal(syscall.SIGKILL)
	_ = first.cmd.Wait()
	killedAt := importProgressFromDB(t, dbURL, id)

	startServeIn(t, exe, env, dir)
	waitUp(t, base+"/readyz")
	deadline := time.Now().Add(2 * time.Minute)
	var job importJobView
	for job = importProgress(t, base, key, id); job.Status != "done" && job.Status != "failed"; job = importProgress(t, base, key, id) {
		if time.Now().After(deadline) {
			t.Fatalf("the import is still %s two minutes after the restart: %+v", job.Status, job)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if job.Status != "done" || job.RowsImported != rows || job.RowsFailed != 0 {
		t.Fatalf("after the restart the job is %+v, want done with %d imported", job, rows)
	}

	db, err := store.Open(context.Background(), dbURL, store.Options{FilesURL: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := rule.SystemContext(context.Background())
	jobID := uuid.MustParse(id)
	leadIDs, err := db.Client.Lead.Query().Where(lead.ImportJobID(jobID)).IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	emails, err := db.Client.Lead.Query().Where(lead.ImportJobID(jobID)).Unique(true).Select(lead.FieldEmail).Strings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(leadIDs) != rows || len(emails) != rows {
		t.Fatalf("%d leads with %d distinct emails, want %d of each: rows were lost or imported twice", len(leadIDs), len(emails), rows)
	}
	events, err := db.Client.WebhookEvent.Query().Where(webhookevent.EventType("lead.created")).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	imported := map[string]bool{}
	for _, l := range leadIDs {
		imported[l.String()] = true
	}
	perLead := map[string]int{}
	for _, ev := range events {
		if id := fmt.Sprint(ev.Data["leadId"]); imported[id] {
			perLead[id]++
		}
	}
	for l := range imported {
		if perLead[l] != 1 {
			t.Fatalf("lead %s has %d lead.created events, want 1", l, perLead[l])
		}
	}
	t.Logf("killed with %d of %d rows committed; resumed to done", killedAt, rows)
}

// startServeIn is startServe with its working directory at dir.
func startServeIn(t *testing.T, exe string, env []string, dir string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(exe, "serve"), stdout: &syncBuffer{}, stderr: &syncBuffer{}}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Dir = dir
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() })
	return p
}

// importFile is a CSV file of n leads with unique emails.
func importFile(n int) []byte {
	var b bytes.Buffer
	b.WriteString("Company,First Name,Email\n")
	for i := range n {
		fmt.Fprintf(&b, "Crash Import %d,Row%d,row%d@crash.test\n", i, i, i)
	}
	return b.Bytes()
}

// importOverHTTP starts an import with a GraphQL multipart request and
// answers the job's id.
func importOverHTTP(t *testing.T, base, key string, file []byte) string {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("operations", `{"query":"mutation($file: Upload!) { importLeads(file: $file) { id } }","variables":{"file":null}}`)
	_ = w.WriteField("map", `{"0":["variables.file"]}`)
	part, _ := w.CreateFormFile("0", "leads.csv")
	_, _ = part.Write(file)
	_ = w.Close()
	req, _ := http.NewRequest("POST", base+"/graphql", &body)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", w.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			ImportLeads struct{ ID string } `json:"importLeads"`
		} `json:"data"`
		Errors []any `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Data.ImportLeads.ID == "" {
		t.Fatalf("importLeads: %d %v %v", resp.StatusCode, err, out.Errors)
	}
	return out.Data.ImportLeads.ID
}

type importJobView struct {
	Status       string `json:"status"`
	RowsImported int    `json:"rowsImported"`
	RowsFailed   int    `json:"rowsFailed"`
}

// importProgress reads the job through GraphQL.
func importProgress(t *testing.T, base, key, id string) importJobView {
	t.Helper()
	q, _ := json.Marshal(map[string]any{"query": `query($id: ID!) { importJob(id: $id) { status rowsImported rowsFailed } }`,
		"variables": map[string]any{"id": id}})
	req, _ := http.NewRequest("POST", base+"/graphql", bytes.NewReader(q))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			ImportJob *importJobView `json:"importJob"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Data.ImportJob == nil {
		t.Fatalf("importJob: %d %v", resp.StatusCode, err)
	}
	return *out.Data.ImportJob
}

// importProgressFromDB is how many rows of the job had committed, read
// while no server runs.
func importProgressFromDB(t *testing.T, dbURL, id string) int {
	t.Helper()
	db, err := store.Open(context.Background(), dbURL, store.Options{FilesURL: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	j, err := db.Client.ImportJob.Get(rule.SystemContext(context.Background()), uuid.MustParse(id))
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != "running" {
		t.Fatalf("the killed server left the job %s, want running", j.Status)
	}
	return j.RowsImported
}
