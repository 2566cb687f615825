package schema

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"entgo.io/ent"
	"github.com/google/uuid"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/automation"
	"github.com/lendingpipe/svc/ent/hook"
	"github.com/lendingpipe/svc/ent/inboundendpoint"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/ent/team"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/autodef"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
)

// checkAutomation validates an automation as it will be after the mutation:
// one trigger, a well-formed definition, and references into its own
// organization only.
var checkAutomation = hook.On(func(next ent.Mutator) ent.Mutator {
	return hook.AutomationFunc(func(ctx context.Context, m *gen.AutomationMutation) (gen.Value, error) {
		a, err := automationAfter(ctx, m)
		if err != nil {
			return nil, err
		}
		if err := checkTrigger(a); err != nil {
			return nil, err
		}
		def := autodef.Definition{
			LeadEvent:  a.TriggerEvent != nil && strings.HasPrefix(*a.TriggerEvent, "lead."),
			Conditions: a.Conditions, Actions: a.Actions, Required: a.RequiredFields,
		}
		if err := def.Check(); err != nil {
			return nil, err
		}
		if err := checkAutomationRefs(rule.SystemContext(ctx), m.Client(), a); err != nil {
			return nil, err
		}
		return next.Mutate(ctx, m)
	})
}, ent.OpCreate|ent.OpUpdateOne)

// automationAfter overlays the mutation on the stored row.
func automationAfter(ctx context.Context, m *gen.AutomationMutation) (*gen.Automation, error) {
	a := &gen.Automation{}
	if id, ok := m.ID(); ok && m.Op().Is(ent.OpUpdateOne) {
		var err error
		if a, err = m.Client().Automation.Get(ctx, id); err != nil {
			return nil, fmt.Errorf("reading the automation: %w", err)
		}
	}
	if id, ok := mutationOrgOf(ctx, m); ok {
		a.OrgID = id
	}
	if m.EndpointIDCleared() {
		a.EndpointID = nil
	}
	if v, ok := m.EndpointID(); ok {
		a.EndpointID = &v
	}
	if m.TriggerEventCleared() {
		a.TriggerEvent = nil
	}
	if v, ok := m.TriggerEvent(); ok {
		a.TriggerEvent = &v
	}
	if v, ok := m.Conditions(); ok {
		a.Conditions = v
	}
	if v, ok := m.Actions(); ok {
		a.Actions = v
	}
	if v, ok := m.RequiredFields(); ok {
		a.RequiredFields = v
	}
	return a, nil
}

func checkTrigger(a *gen.Automation) error {
	switch {
	case (a.EndpointID == nil) == (a.TriggerEvent == nil):
		return apperr.Invalid("trigger", "give exactly one of endpointId (an inbound endpoint) or event (an event type)")
	case a.TriggerEvent != nil && !slices.ContainsFunc(event.Catalog, func(e event.Type) bool { return e.Name == *a.TriggerEvent }):
		return apperr.Invalid("trigger.event", "must be an event type of GET /v1/webhooks/catalog")
	}
	return nil
}

// checkAutomationRefs makes sure the endpoint, stages, advisors and teams
// the automation names belong to its organization.
func checkAutomationRefs(sys context.Context, c *gen.Client, a *gen.Automation) error {
	if a.EndpointID != nil {
		n, err := c.InboundEndpoint.Query().Where(inboundendpoint.ID(*a.EndpointID), inboundendpoint.OrgID(a.OrgID)).Count(sys)
		if err != nil || n == 0 {
			return refError(err, "trigger.endpointId", "inbound endpoint")
		}
	}
	for i, act := range a.Actions {
		at := fmt.Sprintf("actions[%d].", i)
		var n int
		var err error
		switch {
		case act.StageID != nil:
			n, err = c.PipelineStage.Query().Where(pipelinestage.ID(*act.StageID), pipelinestage.OrgID(a.OrgID)).Count(sys)
			at += "stageId"
		case act.AdvisorID != nil:
			n, err = c.User.Query().Where(user.ID(*act.AdvisorID), user.OrgID(a.OrgID)).Count(sys)
			at += "advisorId"
		case act.TeamID != nil:
			n, err = c.Team.Query().Where(team.ID(*act.TeamID), team.OrgID(a.OrgID)).Count(sys)
			at += "teamId"
		default:
			continue
		}
		if err != nil || n == 0 {
			return refError(err, at, strings.TrimSuffix(at[strings.LastIndex(at, ".")+1:], "Id"))
		}
	}
	return nil
}

// mutationOrgOf is the organization an org-owned mutation acts in: the
// new row's, else the viewer's (updates are filtered to it).
func mutationOrgOf(ctx context.Context, m orgMutation) (uuid.UUID, bool) {
	if id, ok := m.OrgID(); ok {
		return id, true
	}
	v, ok := viewer.FromContext(ctx)
	return v.OrgID, ok
}

// refuseEndpointDelete keeps an endpoint that automations are triggered by:
// deleting it would silently stop them (409; retarget or delete them first).
var refuseEndpointDelete = hook.On(func(next ent.Mutator) ent.Mutator {
	return hook.InboundEndpointFunc(func(ctx context.Context, m *gen.InboundEndpointMutation) (gen.Value, error) {
		ids, err := m.IDs(ctx)
		if err != nil {
			return nil, err
		}
		// Only the caller's own endpoints: another organization's id must
		// go on to the delete's 404, not reveal its automations with a 409.
		if ids, err = m.Client().InboundEndpoint.Query().Where(inboundendpoint.IDIn(ids...)).IDs(ctx); err != nil {
			return nil, fmt.Errorf("reading the endpoints to delete: %w", err)
		}
		n, err := m.Client().Automation.Query().Where(automation.EndpointIDIn(ids...)).Count(rule.SystemContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("counting the endpoint's automations: %w", err)
		}
		if n > 0 {
			return nil, apperr.New(apperr.Conflict, "%d automation(s) are triggered by this endpoint; delete them or change their trigger first", n)
		}
		return next.Mutate(ctx, m)
	})
}, ent.OpDelete|ent.OpDeleteOne)

func (InboundEndpoint) Hooks() []ent.Hook {
	return []ent.Hook{refuseEndpointDelete, audited("inbound_endpoint", nil)}
}
