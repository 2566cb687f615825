// Package autorun applies queued automation runs. A run's actions and its
// new status commit in one transaction, so a run is applied whole or not at
// all; a failed run is rolled back and recorded, and retried on the
// delivery schedule only when the failure may clear by itself. The actions
// call the lead, lending and dialer flows (leads, lending, dialer), so a
// lead an automation creates is validated, stored, counted and announced
// exactly as POST /v1/leads does.
//
// It is an operation beside GraphQL, a client of the domains as REST is:
// it imports them, the store, events and the leaves, never graph or rest.
package autorun

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/automationrun"
	"github.com/lendingpipe/svc/ent/inboundrequest"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/errclass"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/telemetry"
	"github.com/lendingpipe/svc/leadimport"
	"github.com/lendingpipe/svc/webhooks"
)

// batchSize bounds the runs applied per transaction: enough to amortise
// the commit, few enough that SQLite's writer is not held for long.
const batchSize = 25

// Runner applies due automation runs. Several runners (one per replica) may
// share a database: each run is locked (SKIP LOCKED on PostgreSQL; SQLite's
// single writer serialises) and re-checked before it is applied.
type Runner struct {
	db  *store.DB
	cfg webhooks.Config
	now func() time.Time
	log *slog.Logger
}

// New returns a runner over db that retries failed runs on cfg's schedule.
func New(db *store.DB, cfg webhooks.Config, now func() time.Time, log *slog.Logger) *Runner {
	return &Runner{db: db, cfg: cfg, now: now, log: log}
}

// Background runs what a server does besides answering requests — the
// webhook delivery worker, the automation runner and the lead import
// worker — until ctx ends.
func Background(ctx context.Context, db *store.DB, cfg webhooks.Config, now func() time.Time, log *slog.Logger) {
	var wg sync.WaitGroup
	hooks := webhooks.NewWorker(db.Client, db.Dialect, cfg, now, log)
	hooks.RunsQueued = db.RunsQueued
	wg.Go(func() { hooks.Run(ctx) })
	wg.Go(func() { New(db, cfg, now, log).Run(ctx) })
	wg.Go(func() { leadimport.NewWorker(db, now, log, errclass.Of).Run(ctx) })
	wg.Wait()
}

// Run works until ctx ends. A run being applied when it ends rolls back
// and stays queued.
func (r *Runner) Run(ctx context.Context) {
	ctx = apitime.WithClock(ctx, r.now)
	for ctx.Err() == nil {
		n, err := r.runDue(ctx)
		if err != nil && ctx.Err() == nil {
			r.log.Error("running automations", "err", err)
		}
		if n == batchSize {
			continue
		}
		select {
		case <-ctx.Done():
		case <-r.db.RunsQueued.C():
		case <-time.After(r.cfg.Poll):
		}
	}
}

// runDue applies up to batchSize due runs, oldest first, in one
// transaction, each inside a savepoint: a run whose actions fail is rolled
// back to its savepoint and its failure recorded, and the others stand. One
// commit per batch instead of per run keeps SQLite's single writer free for
// the requests that queue more runs. It reports how many runs it took.
func (r *Runner) runDue(ctx context.Context) (int, error) {
	var n int
	err := store.WithTx(ctx, r.db.Client, func(ctx context.Context, tx *ent.Client) error {
		runs, err := r.claim(rule.SystemContext(ctx), tx)
		if err != nil {
			return err
		}
		n = len(runs)
		autos := map[uuid.UUID]*ent.Automation{}
		for _, run := range runs {
			if err := r.runOne(ctx, tx, run, autos); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		telemetry.Claimed(telemetry.WorkerAutomation, n)
	}
	return n, err
}

// claim takes the due queued runs, locking them on PostgreSQL so another
// replica's runner skips them (SQLite's immediate transaction already holds
// the database's one write lock).
func (r *Runner) claim(ctx context.Context, tx *ent.Client) ([]*ent.AutomationRun, error) {
	// In index order only: a tiebreaker would make the database sort every
	// queued run to find the first few.
	q := tx.AutomationRun.Query().
		Where(automationrun.StatusEQ(automationrun.StatusQueued), automationrun.NextAttemptAtLTE(r.now().UTC())).
		Order(automationrun.ByNextAttemptAt()).Limit(batchSize)
	if r.db.Dialect == dialect.Postgres {
		q = q.ForUpdate(sql.WithLockAction(sql.SkipLocked))
	}
	runs, err := q.All(ctx)
	if err != nil {
		return nil, fmt.Errorf("claiming due runs: %w", err)
	}
	return runs, nil
}

// runOne applies one run inside a savepoint. A failure of its own rolls the
// savepoint back and is recorded; an error it returns (say, the database
// went away) aborts the batch, whose runs then stay queued.
func (r *Runner) runOne(ctx context.Context, tx *ent.Client, run *ent.AutomationRun, autos map[uuid.UUID]*ent.Automation) error {
	sys := rule.SystemContext(ctx)
	a, ok := autos[run.AutomationID]
	if !ok {
		var err error
		if a, err = tx.Automation.Get(sys, run.AutomationID); err != nil {
			return fmt.Errorf("reading automation %s: %w", run.AutomationID, err)
		}
		autos[a.ID] = a
	}
	// The events the run emits wait in the outbox's queue. They are
	// written before the savepoint is released, so an event the outbox
	// refuses fails this run alone; a rollback to the savepoint forgets
	// them.
	events, err := events.Savepoint(ctx)
	if err != nil {
		return fmt.Errorf("writing the batch's events before a run: %w", err)
	}
	if _, err := tx.ExecContext(sys, "SAVEPOINT automation_run"); err != nil {
		return fmt.Errorf("starting the run's savepoint: %w", err)
	}
	out, err := r.applySafely(ctx, tx, a, run)
	if err == nil {
		err = r.finish(sys, tx, run, out)
	}
	if err == nil {
		err = events.Write()
	}
	if err == nil {
		_, err = tx.ExecContext(sys, "RELEASE SAVEPOINT automation_run")
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err() // shutting down: the batch rolls back and stays queued
	}
	// Undo whatever the run did (events included); events its commit hooks
	// were to announce merely wake a worker that then finds nothing.
	if _, rerr := tx.ExecContext(sys, "ROLLBACK TO SAVEPOINT automation_run"); rerr != nil {
		return fmt.Errorf("rolling back a failed run (%v): %w", err, rerr)
	}
	events.Forget()
	if _, rerr := tx.ExecContext(sys, "RELEASE SAVEPOINT automation_run"); rerr != nil {
		return fmt.Errorf("releasing a failed run's savepoint: %w", rerr)
	}
	return r.recordFailure(sys, tx, run, err)
}

// applySafely applies the run, turning a panic in an action into the run's
// failure: one bad run must not take the server down with it.
func (r *Runner) applySafely(ctx context.Context, tx *ent.Client, a *ent.Automation, run *ent.AutomationRun) (out outcome, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("automation run panicked", "run", run.ID, "panic", p)
			err = fmt.Errorf("internal error applying the run")
		}
	}()
	return r.apply(ctx, tx, a, run)
}

// finish stores a run's outcome, and closes its inbound request's log
// entry once every run the request queued is done.
func (r *Runner) finish(ctx context.Context, tx *ent.Client, run *ent.AutomationRun, out outcome) error {
	now := r.now().UTC()
	// Update, not UpdateOne: nothing needs the row read back.
	u := tx.AutomationRun.Update().Where(automationrun.ID(run.ID)).SetStatus(out.status).SetAttempts(run.Attempts + 1).
		SetApplied(out.applied).SetNillableLeadID(out.leadID).SetFinishedAt(now)
	if out.note != nil {
		u.SetError(*out.note)
	} else {
		u.ClearError() // an earlier attempt's
	}
	u.ClearErrorCode()
	err := u.Exec(ctx)
	if err != nil {
		return fmt.Errorf("recording the run: %w", err)
	}
	return closeRequest(ctx, tx, run.InboundRequestID)
}

// recordFailure counts a failed attempt: the run is retried on the
// schedule while the failure may clear by itself, and fails for good when
// it cannot (see retryable) or the schedule is spent.
func (r *Runner) recordFailure(ctx context.Context, tx *ent.Client, run *ent.AutomationRun, cause error) error {
	attempts := run.Attempts + 1
	delay, again := r.cfg.RetryDelay(attempts)
	again = again && retryable(cause)
	msg := cause.Error()
	if e, ok := apperr.As(cause); ok {
		msg = e.Message
		if e.Field != "" {
			msg = e.Field + ": " + msg
		}
	}
	now := r.now().UTC()
	u := tx.AutomationRun.UpdateOne(run).SetAttempts(attempts).SetError(msg)
	if again {
		u.SetNextAttemptAt(now.Add(delay)).ClearErrorCode()
	} else {
		// The code the same failure has on GraphQL (PRODUCT 8.3).
		u.SetStatus(automationrun.StatusFailed).SetFinishedAt(now).SetErrorCode(errclass.Of(cause).Code)
	}
	if err := u.Exec(ctx); err != nil {
		return fmt.Errorf("recording the run's failure: %w", err)
	}
	if !again {
		return closeRequest(ctx, tx, run.InboundRequestID)
	}
	return nil
}

// closeRequest marks an inbound request processed (or failed, if one of
// its runs failed) once none of its runs is queued.
func closeRequest(ctx context.Context, tx *ent.Client, reqID *uuid.UUID) error {
	if reqID == nil {
		return nil
	}
	runs, err := tx.AutomationRun.Query().Where(automationrun.InboundRequestID(*reqID)).
		Select(automationrun.FieldStatus, automationrun.FieldError, automationrun.FieldErrorCode).All(ctx)
	if err != nil {
		return fmt.Errorf("reading the request's runs: %w", err)
	}
	status := inboundrequest.StatusProcessed
	var failure, code *string
	for _, run := range runs {
		switch run.Status {
		case automationrun.StatusQueued:
			return nil
		case automationrun.StatusFailed:
			status, failure, code = inboundrequest.StatusFailed, run.Error, run.ErrorCode
		}
	}
	u := tx.InboundRequest.Update().Where(inboundrequest.ID(*reqID)).SetStatus(status)
	if failure == nil {
		u.ClearError().ClearErrorCode() // a failure that a retried run since cleared
	} else {
		u.SetError(*failure).SetNillableErrorCode(code)
	}
	return u.Exec(ctx)
}

// retryable reports whether another attempt of a failed run may succeed.
// The failure is classified as both API surfaces classify errors
// (errclass.Of): invalid input, a denied permission, a conflict with
// stored data or a missing record fail the same way every time, so the run
// fails at once; only an unavailable or failing database (a lost
// connection, a timeout, a lock) is worth waiting for, and a failure an
// action marked as awaiting data still on its way (see awaited).
func retryable(err error) bool {
	if errors.As(err, new(awaited)) {
		return true
	}
	return apperr.Transient(errclass.Of(err).Code)
}
