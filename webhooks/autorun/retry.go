package autorun

import (
	"context"
	"github.com/lendingpipe/svc/internal/signals"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/automationrun"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/rule"
)

// Retry queues automation automationID's failed run runID again, due now,
// with a fresh retry schedule, and wakes the runner once c commits. Only
// failed runs can be retried: a queued one is already waiting, and a
// succeeded one would apply its actions twice. c reads as ctx's viewer, so
// another organization's run is NOT_FOUND.
func Retry(ctx context.Context, c *ent.Client, queued *signals.Signal, automationID, runID uuid.UUID, now time.Time) (*ent.AutomationRun, error) {
	run, err := c.AutomationRun.Query().Where(automationrun.ID(runID), automationrun.AutomationID(automationID)).Only(ctx)
	if err != nil {
		return nil, err
	}
	if run.Status != automationrun.StatusFailed {
		return nil, apperr.New(apperr.Conflict, "only failed runs can be retried; this one is %s", run.Status)
	}
	// Runs are written by the system only; the viewer's right to this one
	// was checked by reading it above.
	run, err = c.AutomationRun.UpdateOne(run).SetStatus(automationrun.StatusQueued).SetAttempts(0).
		SetNextAttemptAt(now.UTC()).ClearFinishedAt().ClearErrorCode().Save(rule.SystemContext(ctx))
	if err != nil {
		return nil, err
	}
	events.AfterCommit(ctx, queued.Notify)
	return run, nil
}
