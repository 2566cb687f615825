package leadimport_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/importjob"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leadimport"
)

// env is a database with an organization and a caller of it.
type env struct {
	db  *store.DB
	org *ent.Organization
	ctx context.Context // the caller: leads:write
}

func newEnv(tb testing.TB) *env {
	tb.Helper()
	db := storetest.Open(tb)
	org, _, err := store.CreateOrganization(context.Background(), db.Client, "Acme Brokers")
	if err != nil {
		tb.Fatalf("creating the organization: %v", err)
	}
	ctx := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: org.ID, KeyID: uuid.New(), Scopes: []string{viewer.ScopeLeadsWrite}})
	return &env{db: db, org: org, ctx: ctx}
}

// present stands in for the API's error translation: the tests here count
// rows, the GraphQL tests compare codes with POST /v1/leads.
func present(err error) *apperr.Error {
	if e, ok := apperr.As(err); ok {
		return e
	}
	return apperr.New(apperr.Validation, "%s", err)
}

func (e *env) worker() *leadimport.Worker {
	return leadimport.NewWorker(e.db, time.Now, slog.New(slog.NewTextHandler(io.Discard, nil)), present)
}

func (e *env) start(tb testing.TB, file []byte, dedupe importjob.Dedupe) *ent.ImportJob {
	tb.Helper()
	j, err := leadimport.Start(e.ctx, e.db, leadimport.Upload{Filename: "leads.csv", File: bytes.NewReader(file),
		Size: int64(len(file)), Limit: 1 << 30, Dedupe: dedupe})
	if err != nil {
		tb.Fatalf("Start: %v", err)
	}
	return j
}

func (e *env) job(tb testing.TB, id uuid.UUID) *ent.ImportJob {
	tb.Helper()
	j, err := e.db.Client.ImportJob.Get(rule.SystemContext(context.Background()), id)
	if err != nil {
		tb.Fatalf("reading the job: %v", err)
	}
	return j
}

// leadsCSV is a file of n leads with unique emails.
func leadsCSV(n int) []byte {
	var b bytes.Buffer
	b.WriteString("Company,First Name,Last Name,Email,Phone,Amount,Priority,Tags\n")
	for i := range n {
		fmt.Fprintf(&b, "Company %d,First%d,Last%d,lead%d@example.test,555-%07d,%d.50,high,\"imported, csv\"\n", i, i, i, i, i, 1000+i)
	}
	return b.Bytes()
}

// imported checks that every one of n rows became exactly one lead with
// one lead.created event.
func (e *env) imported(tb testing.TB, id uuid.UUID, n int) {
	tb.Helper()
	ctx := rule.SystemContext(context.Background())
	leads, err := e.db.Client.Lead.Query().Where(lead.ImportJobID(id)).Select(lead.FieldEmail).Strings(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	distinct := map[string]bool{}
	for _, m := range leads {
		distinct[m] = true
	}
	if len(leads) != n || len(distinct) != n {
		tb.Errorf("%d leads, %d distinct emails; want %d of each", len(leads), len(distinct), n)
	}
	events, err := e.db.Client.WebhookEvent.Query().Where(webhookevent.OrgID(e.org.ID), webhookevent.EventType("lead.created")).Count(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	if events != n {
		tb.Errorf("%d lead.created events, want %d", events, n)
	}
	j := e.job(tb, id)
	if j.Status != importjob.StatusDone || j.RowsImported != n || j.RowsTotal == nil || j.RecordsDone != *j.RowsTotal {
		tb.Errorf("job: %s, imported %d, records %d of %v; want done with %d imported, every record settled",
			j.Status, j.RowsImported, j.RecordsDone, j.RowsTotal, n)
	}
}

// TestWorkersRacing runs two workers on one job with a lease so short that
// each keeps taking the job over from the other mid-import: a batch commits
// only while its worker's token holds, so every row is imported once.
func TestWorkersRacing(t *testing.T) {
	e := newEnv(t)
	const rows = 2000
	j := e.start(t, leadsCSV(rows), importjob.DedupeNONE)
	var wg sync.WaitGroup
	for range 2 {
		w := e.worker()
		w.Batch, w.Lease, w.MaxAttempts = 50, time.Millisecond, 1_000_000
		wg.Go(func() {
			deadline := time.Now().Add(2 * time.Minute)
			for time.Now().Before(deadline) {
				if _, err := w.RunOnce(context.Background()); err != nil {
					t.Errorf("RunOnce: %v", err)
					return
				}
				if e.job(t, j.ID).Status != importjob.StatusRunning && e.job(t, j.ID).Status != importjob.StatusQueued {
					return
				}
			}
		})
	}
	wg.Wait()
	e.imported(t, j.ID, rows)
	if a := e.job(t, j.ID).Attempts; a < 3 {
		t.Errorf("the job was claimed %d times: the workers did not take it over from each other", a)
	}
}

// TestTakeOverAfterLease: a worker that stops mid-import (its lease lapses)
// loses the job to another, which resumes after the settled records; the
// first worker's next batch is refused.
func TestTakeOverAfterLease(t *testing.T) {
	e := newEnv(t)
	j := e.start(t, leadsCSV(300), importjob.DedupeNONE)
	now := time.Now()
	clock := func() time.Time { return now }
	a, b := e.worker(), e.worker()
	for _, w := range []*leadimport.Worker{a, b} {
		w.Batch = 100
		leadimport.SetClock(w, clock)
	}
	stale := leadimport.ClaimAndSettleOne(t, a, clock)
	if got := e.job(t, j.ID).RecordsDone; got != 100 {
		t.Fatalf("records done = %d after one batch, want 100", got)
	}
	now = now.Add(leadimport.DefaultLease + time.Second) // a stops; its lease lapses
	if _, err := b.RunOnce(context.Background()); err != nil {
		t.Fatalf("b: %v", err)
	}
	if err := stale(); err == nil {
		t.Error("the stale worker's batch committed after the job was taken over")
	}
	e.imported(t, j.ID, 300)
}

func TestAttemptsSpent(t *testing.T) {
	e := newEnv(t)
	j := e.start(t, leadsCSV(10), importjob.DedupeNONE)
	ctx := rule.SystemContext(context.Background())
	if err := e.db.Client.ImportJob.UpdateOneID(j.ID).SetAttempts(leadimport.DefaultMaxAttempts).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.worker().RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := e.job(t, j.ID)
	if got.Status != importjob.StatusFailed || got.Failure == nil || got.StorageKey != nil || got.FinishedAt == nil {
		t.Errorf("job = %s, failure %v, file %v; want failed for its attempts, its file let go", got.Status, got.Failure, got.StorageKey)
	}
}

func TestUnreadableFileFails(t *testing.T) {
	for name, spoil := range map[string]func(e *env, key string) error{
		"NoHeader": func(e *env, key string) error {
			_, err := e.db.Files.Write(context.Background(), key, strings.NewReader("\n\n"))
			return err
		},
		"Gone": func(e *env, key string) error { return e.db.Files.Delete(context.Background(), key) },
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			j := e.start(t, leadsCSV(10), importjob.DedupeNONE)
			if err := spoil(e, *j.StorageKey); err != nil {
				t.Fatal(err)
			}
			if _, err := e.worker().RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			got := e.job(t, j.ID)
			if got.Status != importjob.StatusFailed || got.Failure == nil {
				t.Fatalf("job = %s, want failed", got.Status)
			}
			t.Log(*got.Failure)
		})
	}
}

func TestSweepFiles(t *testing.T) {
	e := newEnv(t)
	queued := e.start(t, leadsCSV(3), importjob.DedupeNONE)
	done := e.start(t, leadsCSV(3), importjob.DedupeNONE)
	ctx := context.Background()
	// An upload whose job never committed.
	if _, err := e.db.Files.Write(ctx, "imports/"+uuid.NewString(), strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
	// A done job no longer names its file.
	if err := e.db.Client.ImportJob.UpdateOneID(done.ID).ClearStorageKey().Exec(rule.SystemContext(ctx)); err != nil {
		t.Fatal(err)
	}
	n, err := leadimport.SweepFiles(ctx, e.db, time.Now().Add(time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("swept %d, %v; want 2", n, err)
	}
	f, err := e.db.Files.Open(ctx, *queued.StorageKey)
	if err != nil {
		t.Fatalf("the queued job's file was swept: %v", err)
	}
	f.Close()
}

func TestStartRefusesWithoutWriteScope(t *testing.T) {
	e := newEnv(t)
	ctx := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: e.org.ID, KeyID: uuid.New(), Scopes: []string{viewer.ScopeLeadsRead}})
	file := leadsCSV(1)
	_, err := leadimport.Start(ctx, e.db, leadimport.Upload{Filename: "x.csv", File: bytes.NewReader(file), Size: int64(len(file))})
	if err == nil {
		t.Fatal("Start with leads:read only queued a job")
	}
}

// TestCarefulBatchesSettleAlike: a batch run again with a savepoint a row
// (after the database refused one of its rows) imports, skips and fails
// the same rows as a batch run whole.
func TestCarefulBatchesSettleAlike(t *testing.T) {
	file := []byte("Company,Email,Amount\n" +
		"A,a@x.test,100\n" +
		"B,not-an-email,100\n" +
		"C,A@X.test,100\n" + // a duplicate of A
		"D,d@x.test,12x\n" +
		"E,e@x.test,\n")
	var got [2]string
	for i, careful := range []bool{false, true} {
		e := newEnv(t)
		j := e.start(t, file, importjob.DedupeEMAIL)
		w := e.worker()
		if careful {
			leadimport.AlwaysCareful(w)
		}
		if _, err := w.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
		done := e.job(t, j.ID)
		got[i] = fmt.Sprintf("%s %d %d %d %v", done.Status, done.RowsImported, done.RowsSkipped, done.RowsFailed, done.Errors)
		e.imported(t, j.ID, 2)
	}
	if got[0] != got[1] {
		t.Errorf("whole: %s\ncareful: %s", got[0], got[1])
	}
	if want := "done 2 1 2"; !strings.HasPrefix(got[0], want) {
		t.Errorf("got %s, want %s...", got[0], want)
	}
}

// TestShutdownReleasesTheJob: a worker stopped mid-import ends its lease,
// so another resumes the job at once instead of after the lease.
func TestShutdownReleasesTheJob(t *testing.T) {
	e := newEnv(t)
	j := e.start(t, leadsCSV(5000), importjob.DedupeNONE)
	a := e.worker()
	a.Batch = 50
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _, _ = a.RunOnce(ctx) }()
	for e.job(t, j.ID).RecordsDone == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	<-done
	mid := e.job(t, j.ID)
	if mid.Status != importjob.StatusRunning || mid.RecordsDone >= 5000 {
		t.Fatalf("the job is %s with %d records done: it was not stopped mid-import", mid.Status, mid.RecordsDone)
	}
	if _, err := e.worker().RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.imported(t, j.ID, 5000)
}
