package leadimport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/importjob"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/telemetry"
	"github.com/lendingpipe/svc/notify"
)

const (
	// DefaultBatch is how many records one transaction settles. Measured
	// (BenchmarkBatchSizes), 100 to 2,000 cost a row within the noise of
	// each other on both databases once the commit and the counts are
	// amortised; 500 holds SQLite's one writer for well under 100 ms a
	// batch and shows progress often.
	DefaultBatch = 500
	// DefaultLease is how long a claim holds without a batch committing:
	// a crashed worker's job is taken over this long after its last batch.
	DefaultLease = 15 * time.Second
	// DefaultMaxAttempts is how many claims a job gets: a job whose worker
	// keeps dying on it fails rather than being retried for ever.
	DefaultMaxAttempts = 5
	// poll is how often an idle worker looks for jobs queued on other
	// replicas.
	poll = time.Second
)

// Worker imports queued jobs. Several (one per replica, or more) may share
// a database: a job is claimed with a fresh token, and each batch commits
// only while the job still carries its worker's token.
type Worker struct {
	db  *store.DB
	now func() time.Time
	log *slog.Logger
	// present turns a row's error into the code, field and message POST
	// /v1/leads answers for it (the API's one translation).
	present func(error) *apperr.Error
	// Batch is how many records a transaction settles.
	Batch int
	// Lease is how long a claim holds past its last commit.
	Lease time.Duration
	// MaxAttempts is how many claims a job gets before it fails.
	MaxAttempts int
	// careful runs every batch with a savepoint a row, as a batch whose
	// row the database refused is run (tests and benchmarks compare).
	careful bool
}

// NewWorker returns a worker over db.
func NewWorker(db *store.DB, now func() time.Time, log *slog.Logger, present func(error) *apperr.Error) *Worker {
	return &Worker{db: db, now: now, log: log, present: present, Batch: DefaultBatch,
		Lease: DefaultLease, MaxAttempts: DefaultMaxAttempts}
}

// Run imports jobs until ctx ends. A batch in flight when it ends rolls
// back; the job is taken over once its lease lapses.
func (w *Worker) Run(ctx context.Context) {
	ctx = apitime.WithClock(ctx, w.now)
	for ctx.Err() == nil {
		worked, err := w.RunOnce(ctx)
		if err != nil && ctx.Err() == nil {
			w.log.Error("importing leads", "err", err)
		}
		if worked {
			continue
		}
		select {
		case <-ctx.Done():
		case <-w.db.ImportsQueued.C():
		case <-time.After(poll):
		}
	}
}

// RunOnce claims one due job and imports it to its end (or until another
// worker takes it over). It reports whether there was one.
func (w *Worker) RunOnce(ctx context.Context) (bool, error) {
	ctx = apitime.WithClock(ctx, w.now)
	c, err := w.claim(ctx)
	if c == nil || err != nil {
		return false, err
	}
	telemetry.Claimed(telemetry.WorkerImport, 1)
	err = w.importJob(ctx, c)
	if errors.Is(err, errLostClaim) {
		return true, nil // another worker carries on from what committed
	}
	if ctx.Err() != nil {
		w.release(ctx, c)
	}
	return true, err
}

// release lets go of a job this worker stops importing as its server
// shuts down: the lease ends now, so the next worker (a restarted server,
// another replica) resumes it at once rather than when the lease lapses.
func (w *Worker) release(ctx context.Context, c *claim) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	err := w.db.Client.ImportJob.Update().Where(importjob.ID(c.job.ID), importjob.ClaimToken(c.token)).
		SetClaimedUntil(w.now().UTC()).Exec(rule.SystemContext(ctx))
	if err != nil {
		w.log.Warn("releasing an import job at shutdown", "job", c.job.ID, "err", err)
	}
}

// errLostClaim stops a worker whose job another worker has taken over.
var errLostClaim = errors.New("the import job was taken over by another worker")

// claim is a job this worker holds, and the token its writes must match.
type claim struct {
	job   *ent.ImportJob
	token uuid.UUID
}

// claim takes the oldest due job with a fresh token and lease. A job
// whose claims are spent fails instead.
func (w *Worker) claim(ctx context.Context) (*claim, error) {
	for {
		var spent bool
		c, err := store.WithTxValue(ctx, w.db.Client, func(ctx context.Context, tx *ent.Client) (*claim, error) {
			c, s, err := w.claimOne(ctx, tx)
			spent = s
			return c, err
		})
		if err != nil {
			return nil, fmt.Errorf("claiming an import job: %w", err)
		}
		if !spent {
			return c, nil
		}
	}
}

// claimOne claims the oldest due job in the transaction of ctx; spent when
// it failed the job for its attempts instead.
func (w *Worker) claimOne(ctx context.Context, tx *ent.Client) (*claim, bool, error) {
	sys := rule.SystemContext(ctx)
	now := w.now().UTC()
	j, err := store.DueImportJob(ctx, tx, now)
	if j == nil || err != nil {
		return nil, false, err
	}
	if j.Attempts >= w.MaxAttempts {
		msg := fmt.Sprintf("the import stopped after %d attempts; the rows imported so far are kept", j.Attempts)
		return nil, true, endJob(sys, tx, j.ID, j.ClaimToken, importjob.StatusFailed, &msg, now)
	}
	token := uuid.New()
	u := tx.ImportJob.Update().Where(importjob.ID(j.ID), sameToken(j.ClaimToken)).
		SetStatus(importjob.StatusRunning).SetClaimToken(token).SetClaimedUntil(now.Add(w.Lease)).AddAttempts(1)
	if j.StartedAt == nil {
		u.SetStartedAt(now)
	}
	if n, err := u.Save(sys); err != nil || n == 0 {
		return nil, false, err
	}
	j.ClaimToken = &token
	return &claim{job: j, token: token}, false, nil
}

// sameToken matches the job while it carries token (none: unclaimed).
func sameToken(token *uuid.UUID) predicate.ImportJob {
	if token == nil {
		return importjob.ClaimTokenIsNil()
	}
	return importjob.ClaimToken(*token)
}

// endJob settles a job as done or failed: its file is no longer named (the
// file store's sweep removes it) and its claim is released.
func endJob(ctx context.Context, tx *ent.Client, id uuid.UUID, token *uuid.UUID, status importjob.Status, failure *string, now time.Time) error {
	n, err := tx.ImportJob.Update().Where(importjob.ID(id), sameToken(token)).
		SetStatus(status).SetNillableFailure(failure).SetFinishedAt(now).
		ClearStorageKey().ClearClaimToken().ClearClaimedUntil().Save(ctx)
	if err != nil {
		return fmt.Errorf("ending import job %s: %w", id, err)
	}
	if n == 0 {
		return errLostClaim
	}
	if status != importjob.StatusFailed {
		return nil
	}
	return notifyFailed(ctx, tx, id, failure)
}

// notifyFailed tells the organization's admins that the import failed.
func notifyFailed(ctx context.Context, tx *ent.Client, id uuid.UUID, failure *string) error {
	j, err := tx.ImportJob.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("reading import job %s: %w", id, err)
	}
	summary := "A lead import failed"
	if failure != nil {
		summary += ": " + *failure
	}
	admins, err := notify.ToAdmins(ctx, tx, j.OrgID, notify.Notice{Kind: notify.ImportFailed, RecordID: id, Summary: summary})
	if err != nil {
		return err
	}
	return notify.Send(ctx, tx, admins...)
}
