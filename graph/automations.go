package graph

import (
	"context"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/automation"
	"github.com/lendingpipe/svc/ent/automationrun"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/webhooks/autorun"
)

// createAutomation stores an automation; the ent hook validates the trigger,
// the definition and its references, for GraphQL and REST alike.
func (r *Resolver) createAutomation(ctx context.Context, in NewAutomation) (*ent.Automation, error) {
	c := r.client(ctx).Automation.Create().SetName(in.Name).SetActions(values(in.Actions)).
		SetNillableIsActive(in.IsActive).SetNillableEndpointID(in.Trigger.EndpointID).SetNillableTriggerEvent(in.Trigger.Event)
	if in.Conditions != nil {
		c.SetConditions(values(in.Conditions))
	}
	if in.RequiredFields != nil {
		c.SetRequiredFields(in.RequiredFields)
	}
	return c.Save(ctx)
}

func (r *Resolver) updateAutomation(ctx context.Context, id uuid.UUID, in AutomationPatch) (*ent.Automation, error) {
	u := r.client(ctx).Automation.UpdateOneID(id).SetNillableName(in.Name).SetNillableIsActive(in.IsActive)
	if t := in.Trigger; t != nil {
		// A new trigger replaces the old one whole.
		if t.EndpointID == nil {
			u.ClearEndpointID()
		}
		if t.Event == nil {
			u.ClearTriggerEvent()
		}
		u.SetNillableEndpointID(t.EndpointID).SetNillableTriggerEvent(t.Event)
	}
	if in.Conditions != nil {
		u.SetConditions(values(in.Conditions))
	}
	if in.Actions != nil {
		u.SetActions(values(in.Actions))
	}
	if in.RequiredFields != nil {
		u.SetRequiredFields(in.RequiredFields)
	}
	return u.Save(ctx)
}

// automationRuns pages through an automation's run log, newest first.
func (r *Resolver) automationRuns(ctx context.Context, automationID uuid.UUID, status *string, pageArg, limitArg *int) (*AutomationRunPage, error) {
	s, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	c := r.client(ctx)
	if _, err := c.Automation.Get(ctx, automationID); err != nil {
		return nil, err
	}
	q := c.AutomationRun.Query().Where(automationrun.AutomationID(automationID))
	if status != nil {
		s := automationrun.Status(*status)
		if automationrun.StatusValidator(s) != nil {
			return nil, apperr.Invalid("status", "must be queued, succeeded, skipped or failed")
		}
		q = q.Where(automationrun.StatusEQ(s))
	}
	q = q.Order(automationrun.ByCreatedAt(sql.OrderDesc()), automationrun.ByID(sql.OrderDesc()))
	return answer[AutomationRunPage](readPage(ctx, q, s))
}

// retryAutomationRun queues a failed run again (autorun.Retry).
func (r *Resolver) retryAutomationRun(ctx context.Context, automationID, runID uuid.UUID) (*ent.AutomationRun, error) {
	return autorun.Retry(ctx, r.client(ctx), r.db.RunsQueued, automationID, runID, r.now())
}

// ListAutomations pages through the viewer's organization's automations,
// oldest first.
func (r *Resolver) ListAutomations(ctx context.Context, pageArg, limitArg *int) (*Page[*ent.Automation], error) {
	s, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	return answer[Page[*ent.Automation]](readPage(ctx, r.client(ctx).Automation.Query().Order(automation.ByCreatedAt(), automation.ByID()), s))
}

// AutomationByID reads one automation (REST GET /v1/automations/{id}).
func (r *Resolver) AutomationByID(ctx context.Context, id uuid.UUID) (*ent.Automation, error) {
	return r.client(ctx).Automation.Get(ctx, id)
}

// values copies gqlgen's list of input pointers into the values the JSON
// columns hold; nil stays nil (absent).
func values[T any](in []*T) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i, p := range in {
		out[i] = *p
	}
	return out
}

// optionalText is s, or nil when empty: an action's member it does not
// take is null, as REST leaves it out, not "".
func optionalText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// RunNextAttempt is when a run's next try is due: nil once it is finished
// (succeeded, skipped or failed). REST and GraphQL both show it so.
func RunNextAttempt(run *ent.AutomationRun) *time.Time {
	if run.Status != automationrun.StatusQueued {
		return nil
	}
	return &run.NextAttemptAt
}
