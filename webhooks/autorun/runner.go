// Package autorun applies queued automation runs. A run's actions and its
// new status commit in one transaction, so a run is applied whole or not at
// all; a failed run is rolled back, recorded and retried on the delivery
// schedule. The actions call the GraphQL resolvers, so a lead an automation
// creates is validated, stored and announced exactly as POST /v1/leads does.
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
	"github.com/lendingpipe/svc/ent/apperr"
	"github.com/lendingpipe/svc/ent/automationrun"
	"github.com/lendingpipe/svc/ent/inboundrequest"
	"github.com/lendingpipe/svc/ent/rule"
	"github.com/lendingpipe/svc/ent/store"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/webhooks"
)

const batchSize = 100

// Runner applies due automation runs. Several runners (one per replica) may
// share a database: each run is locked (SKIP LOCKED on PostgreSQL; SQLite's
// single writer serialises) and re-checked before it is applied.
type Runner struct {
	db       *store.DB
	resolver *graph.Resolver
	cfg      webhooks.Config
	now      func() time.Time
	log      *slog.Logger
}

// New returns a runner over db that retries failed runs on cfg's schedule.
func New(db *store.DB, cfg webhooks.Config, now func() time.Time, log *slog.Logger) *Runner {
	return &Runner{db: db, resolver: graph.NewResolver(db, now, cfg), cfg: cfg, now: now, log: log}
}

// Background runs what a server does besides answering requests — the
// webhook delivery worker and the automation runner — until ctx ends.
func Background(ctx context.Context, db *store.DB, cfg webhooks.Config, now func() time.Time, log *slog.Logger) {
	var wg sync.WaitGroup
	wg.Go(func() { webhooks.NewWorker(db.Client, db.Dialect, cfg, now, log).Run(ctx) })
	wg.Go(func() { New(db, cfg, now, log).Run(ctx) })
	wg.Wait()
}

// Run works until ctx ends. A run being applied when it ends rolls back
// and stays queued.
func (r *Runner) Run(ctx context.Context) {
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
		case <-webhooks.RunsReady():
		case <-time.After(r.cfg.Poll):
		}
	}
}

// runDue applies up to batchSize due runs, oldest first, each in its own
// transaction, and reports how many it looked at.
func (r *Runner) runDue(ctx context.Context) (int, error) {
	ids, err := r.db.Client.AutomationRun.Query().
		Where(automationrun.StatusEQ(automationrun.StatusQueued), automationrun.NextAttemptAtLTE(r.now().UTC())).
		Order(automationrun.ByNextAttemptAt(), automationrun.ByID()).Limit(batchSize).IDs(rule.SystemContext(ctx))
	if err != nil {
		return 0, fmt.Errorf("listing due runs: %w", err)
	}
	for _, id := range ids {
		if ctx.Err() != nil {
			break
		}
		if err := r.runOne(ctx, id); err != nil && ctx.Err() == nil {
			r.log.Error("applying an automation run", "err", err, "run", id)
		}
	}
	return len(ids), nil
}

// errTaken: another runner has the run, or it is no longer due.
var errTaken = errors.New("run taken")

// runOne applies one run: its actions and its new status in one
// transaction. If an action fails, everything is rolled back and the
// failure recorded in a transaction of its own.
func (r *Runner) runOne(ctx context.Context, id uuid.UUID) error {
	var run *ent.AutomationRun
	var failed error
	err := store.WithTx(ctx, r.db.Client, func(ctx context.Context, tx *ent.Client) error {
		sys := rule.SystemContext(ctx)
		var err error
		if run, err = r.lock(sys, tx, id); err != nil {
			return err
		}
		a, err := tx.Automation.Get(sys, run.AutomationID)
		if err != nil {
			return fmt.Errorf("reading the automation: %w", err)
		}
		out, err := r.apply(ctx, tx, a, run)
		if err != nil {
			failed = err
			return err
		}
		return r.finish(sys, tx, run, out)
	})
	switch {
	case errors.Is(err, errTaken) || ent.IsNotFound(err):
		return nil
	case failed != nil:
		return r.recordFailure(ctx, run, failed)
	}
	return err
}

// lock takes the run if it is still queued and due.
func (r *Runner) lock(ctx context.Context, tx *ent.Client, id uuid.UUID) (*ent.AutomationRun, error) {
	q := tx.AutomationRun.Query().Where(automationrun.ID(id), automationrun.StatusEQ(automationrun.StatusQueued),
		automationrun.NextAttemptAtLTE(r.now().UTC()))
	if r.db.Dialect == dialect.Postgres {
		q = q.ForUpdate(sql.WithLockAction(sql.SkipLocked))
	}
	run, err := q.Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errTaken
	}
	return run, err
}

// finish stores a run's outcome, and closes its inbound request's log
// entry once every run the request queued is done.
func (r *Runner) finish(ctx context.Context, tx *ent.Client, run *ent.AutomationRun, out outcome) error {
	now := r.now().UTC()
	u := tx.AutomationRun.UpdateOne(run).SetStatus(out.status).SetAttempts(run.Attempts + 1).
		SetApplied(out.applied).SetNillableLeadID(out.leadID).SetFinishedAt(now)
	if out.note != nil {
		u.SetError(*out.note)
	} else {
		u.ClearError() // an earlier attempt's
	}
	err := u.Exec(ctx)
	if err != nil {
		return fmt.Errorf("recording the run: %w", err)
	}
	return closeRequest(ctx, tx, run.InboundRequestID)
}

// recordFailure counts a failed attempt: the run is retried on the
// schedule, or fails for good when its input is invalid (retrying cannot
// help) or the schedule is spent.
func (r *Runner) recordFailure(ctx context.Context, run *ent.AutomationRun, cause error) error {
	attempts := run.Attempts + 1
	msg := cause.Error()
	if e, ok := apperr.As(cause); ok {
		msg = e.Message
		if e.Field != "" {
			msg = e.Field + ": " + msg
		}
	}
	delay, again := r.cfg.RetryDelay(attempts)
	if e, ok := apperr.As(cause); ok && e.Code == apperr.Validation {
		again = false
	}
	return store.WithTx(ctx, r.db.Client, func(ctx context.Context, tx *ent.Client) error {
		sys := rule.SystemContext(ctx)
		now := r.now().UTC()
		u := tx.AutomationRun.Update().
			Where(automationrun.ID(run.ID), automationrun.StatusEQ(automationrun.StatusQueued), automationrun.Attempts(run.Attempts)).
			SetAttempts(attempts).SetError(msg)
		if again {
			u.SetNextAttemptAt(now.Add(delay))
		} else {
			u.SetStatus(automationrun.StatusFailed).SetFinishedAt(now)
		}
		if n, err := u.Save(sys); err != nil || n == 0 {
			return err // n == 0: another runner recorded this attempt
		}
		if !again {
			return closeRequest(sys, tx, run.InboundRequestID)
		}
		return nil
	})
}

// closeRequest marks an inbound request processed (or failed, if one of
// its runs failed) once none of its runs is queued.
func closeRequest(ctx context.Context, tx *ent.Client, reqID *uuid.UUID) error {
	if reqID == nil {
		return nil
	}
	runs, err := tx.AutomationRun.Query().Where(automationrun.InboundRequestID(*reqID)).
		Select(automationrun.FieldStatus, automationrun.FieldError).All(ctx)
	if err != nil {
		return fmt.Errorf("reading the request's runs: %w", err)
	}
	status := inboundrequest.StatusProcessed
	var failure *string
	for _, run := range runs {
		switch run.Status {
		case automationrun.StatusQueued:
			return nil
		case automationrun.StatusFailed:
			status, failure = inboundrequest.StatusFailed, run.Error
		}
	}
	return tx.InboundRequest.UpdateOneID(*reqID).SetStatus(status).SetNillableError(failure).Exec(ctx)
}
