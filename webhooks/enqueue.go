package webhooks

import (
	"context"
	"fmt"
	"github.com/lendingpipe/svc/internal/signals"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/automation"
	"github.com/lendingpipe/svc/events"
)

// MaxAutomationDepth bounds chains of event-triggered automations: an
// event caused by a run at this depth triggers no further runs, so two
// automations that answer each other's events stop instead of looping.
const MaxAutomationDepth = 3

// enqueueForRequest queues a run of each active automation the endpoint
// triggers, in the transaction that stores the request, and reports how
// many it queued; wake is signalled once they commit.
func enqueueForRequest(ctx context.Context, c *ent.Client, wake *signals.Signal, req *ent.InboundRequest, now time.Time) (int, error) {
	autos, err := c.Automation.Query().
		Where(automation.EndpointID(req.EndpointID), automation.IsActive(true)).All(ctx)
	if err != nil {
		return 0, fmt.Errorf("finding the endpoint's automations: %w", err)
	}
	runs := make([]*ent.AutomationRunCreate, len(autos))
	for i, a := range autos {
		runs[i] = c.AutomationRun.Create().SetOrgID(a.OrgID).SetAutomationID(a.ID).
			SetInboundRequestID(req.ID).SetInput(req.Mapped).SetNextAttemptAt(now)
	}
	return len(runs), createRuns(ctx, c, wake, runs)
}

// enqueueForEvents queues runs of the automations triggered by events'
// types, in the dispatcher's transaction; wake is signalled once they
// commit.
func enqueueForEvents(ctx context.Context, c *ent.Client, wake *signals.Signal, events []*ent.WebhookEvent, now time.Time) error {
	var orgIDs []uuid.UUID
	for _, ev := range events {
		if ev.Depth < MaxAutomationDepth {
			orgIDs = append(orgIDs, ev.OrgID)
		}
	}
	if len(orgIDs) == 0 {
		return nil
	}
	autos, err := c.Automation.Query().
		Where(automation.OrgIDIn(orgIDs...), automation.IsActive(true), automation.TriggerEventNotNil()).All(ctx)
	if err != nil || len(autos) == 0 {
		return err
	}
	var runs []*ent.AutomationRunCreate
	for _, ev := range events {
		for _, a := range autos {
			if a.OrgID == ev.OrgID && *a.TriggerEvent == ev.EventType && ev.Depth < MaxAutomationDepth {
				runs = append(runs, c.AutomationRun.Create().SetOrgID(a.OrgID).SetAutomationID(a.ID).
					SetEventID(ev.ID).SetDepth(ev.Depth+1).SetInput(ev.Data).SetNextAttemptAt(now))
			}
		}
	}
	return createRuns(ctx, c, wake, runs)
}

func createRuns(ctx context.Context, c *ent.Client, wake *signals.Signal, runs []*ent.AutomationRunCreate) error {
	if len(runs) == 0 {
		return nil
	}
	if err := c.AutomationRun.CreateBulk(runs...).Exec(ctx); err != nil {
		return fmt.Errorf("queueing automation runs: %w", err)
	}
	events.AfterCommit(ctx, wake.Notify)
	return nil
}
