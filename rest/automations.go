package rest

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/autodef"
	"github.com/lendingpipe/svc/internal/reqbody"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/webhooks"
)

// automationHandlers translate /v1/automations onto the resolvers.
type automationHandlers struct {
	resolver *graph.Resolver
	client   *ent.Client
}

type triggerView struct {
	Type       string     `json:"type" enum:"AutomationTriggerType"`
	EndpointID *uuid.UUID `json:"endpointId"`
	Event      *string    `json:"event"`
}

type automationAttributes struct {
	Name           string              `json:"name"`
	IsActive       bool                `json:"isActive"`
	Trigger        triggerView         `json:"trigger"`
	Conditions     []autodef.Condition `json:"conditions"`
	Actions        []autodef.Action    `json:"actions"`
	RequiredFields []string            `json:"requiredFields"`
	CreatedAt      apitime.Time        `json:"createdAt"`
	UpdatedAt      apitime.Time        `json:"updatedAt"`
}

// An automation's trigger types, as its resource shows them.
const (
	triggerEndpoint = "inbound_endpoint"
	triggerEvent    = "event"
)

var triggerTypes = []string{triggerEndpoint, triggerEvent}

func automationResource(a *ent.Automation) Resource {
	t := triggerView{Type: triggerEvent, EndpointID: a.EndpointID, Event: a.TriggerEvent}
	if a.EndpointID != nil {
		t.Type = triggerEndpoint
	}
	conds := a.Conditions
	if conds == nil {
		conds = []autodef.Condition{}
	}
	return Resource{ID: a.ID.String(), Type: "automation", Attributes: automationAttributes{
		Name: a.Name, IsActive: a.IsActive, Trigger: t, Conditions: conds, Actions: a.Actions,
		RequiredFields: nonNilSlice(a.RequiredFields), CreatedAt: apitime.Of(a.CreatedAt), UpdatedAt: apitime.Of(a.UpdatedAt),
	}}
}

// automationBody is the body of POST and PATCH.
type automationBody struct {
	Name     reqbody.Opt[string]                       `json:"name" bound:"name"`
	IsActive reqbody.Opt[bool]                         `json:"isActive"`
	Trigger  reqbody.Opt[graph.AutomationTriggerInput] `json:"trigger" additionalProperties:"false" description:"Exactly one of endpointId (an inbound endpoint) and event (a catalog event type)."`
	// The conditions and required fields may be null: none.
	Conditions     reqbody.Opt[[]*autodef.Condition] `json:"conditions" nullable:"true"`
	Actions        reqbody.Opt[[]*autodef.Action]    `json:"actions" bound:"actions"`
	RequiredFields reqbody.Opt[[]string]             `json:"requiredFields" nullable:"true"`
}

func (h automationHandlers) create(w http.ResponseWriter, r *http.Request) error {
	var b automationBody
	if err := decodeBody(r, &b, nil); err != nil {
		return err
	}
	switch {
	case b.Name.Ptr() == nil:
		return apperr.Invalid("name", "is required")
	case b.Trigger.Ptr() == nil:
		return apperr.Invalid("trigger", "is required")
	case b.Actions.Ptr() == nil:
		return apperr.Invalid("actions", "is required")
	}
	in := graph.NewAutomation{Name: b.Name.Value, IsActive: b.IsActive.Ptr(), Trigger: &b.Trigger.Value,
		Conditions: b.Conditions.Value, Actions: b.Actions.Value, RequiredFields: b.RequiredFields.Value}
	a, err := h.save(r.Context(), func(ctx context.Context, m graph.MutationResolver) (*ent.Automation, error) {
		return m.CreateAutomation(ctx, in)
	})
	if err != nil {
		return err
	}
	writeResource(w, r, http.StatusCreated, automationResource(a))
	return nil
}

func (h automationHandlers) patch(w http.ResponseWriter, r *http.Request) error {
	id, err := automationID(r)
	if err != nil {
		return err
	}
	var b automationBody
	if err := decodeBody(r, &b, nil); err != nil {
		return err
	}
	in := graph.AutomationPatch{Name: b.Name.Ptr(), IsActive: b.IsActive.Ptr(), Trigger: b.Trigger.Ptr(),
		Conditions: b.Conditions.Value, Actions: b.Actions.Value, RequiredFields: b.RequiredFields.Value}
	if b.Conditions.Set && in.Conditions == nil {
		in.Conditions = []*autodef.Condition{} // null clears
	}
	if b.RequiredFields.Set && in.RequiredFields == nil {
		in.RequiredFields = []string{}
	}
	if b.Actions.Set && in.Actions == nil {
		in.Actions = []*autodef.Action{} // refused by validation: at least one
	}
	a, err := h.save(r.Context(), func(ctx context.Context, m graph.MutationResolver) (*ent.Automation, error) {
		return m.UpdateAutomation(ctx, id, in)
	})
	if err != nil {
		return err
	}
	writeResource(w, r, http.StatusOK, automationResource(a))
	return nil
}

// save runs a mutation in a transaction, as GraphQL mutations run.
func (h automationHandlers) save(ctx context.Context, fn func(context.Context, graph.MutationResolver) (*ent.Automation, error)) (*ent.Automation, error) {
	return store.WithTxValue(ctx, h.client, func(ctx context.Context, _ *ent.Client) (*ent.Automation, error) {
		return fn(ctx, h.resolver.Mutation())
	})
}

func (h automationHandlers) list(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, automationResource, func(page, limit *int) (*graph.Page[*ent.Automation], error) {
		return h.resolver.ListAutomations(r.Context(), page, limit)
	})
}

func (h automationHandlers) get(w http.ResponseWriter, r *http.Request) error {
	id, err := automationID(r)
	if err != nil {
		return err
	}
	a, err := h.resolver.AutomationByID(r.Context(), id)
	if err != nil {
		return err
	}
	writeResource(w, r, http.StatusOK, automationResource(a))
	return nil
}

func (h automationHandlers) delete(w http.ResponseWriter, r *http.Request) error {
	return deleteByID(w, r, h.client, automationID, h.resolver.Mutation().DeleteAutomation)
}

type runAttributes struct {
	AutomationID     uuid.UUID        `json:"automationId"`
	Status           string           `json:"status" enum:"AutomationRunStatus"`
	Attempts         int              `json:"attempts" openapi:"count"`
	NextAttemptAt    *apitime.Time    `json:"nextAttemptAt"`
	InboundRequestID *uuid.UUID       `json:"inboundRequestId"`
	EventID          *string          `json:"eventId" openapi:"eventId"`
	Input            map[string]any   `json:"input"`
	Applied          []map[string]any `json:"applied"`
	LeadID           *uuid.UUID       `json:"leadId"`
	Error            *string          `json:"error"`
	ErrorCode        *string          `json:"errorCode" enum:"ErrorCode"`
	CreatedAt        apitime.Time     `json:"createdAt"`
	FinishedAt       *apitime.Time    `json:"finishedAt"`
}

func runResource(run *ent.AutomationRun) Resource {
	a := runAttributes{AutomationID: run.AutomationID, Status: run.Status.String(), Attempts: run.Attempts,
		InboundRequestID: run.InboundRequestID, Input: nonNilMap(run.Input), Applied: run.Applied,
		LeadID: run.LeadID, Error: run.Error, ErrorCode: run.ErrorCode, CreatedAt: apitime.Of(run.CreatedAt), FinishedAt: utcPtr(run.FinishedAt),
		NextAttemptAt: utcPtr(graph.RunNextAttempt(run))}
	if run.EventID != nil {
		id := webhooks.EventIDPrefix + run.EventID.String()
		a.EventID = &id
	}
	if a.Applied == nil {
		a.Applied = []map[string]any{}
	}
	return Resource{ID: run.ID.String(), Type: "automation_run", Attributes: a}
}

func (h automationHandlers) runs(w http.ResponseWriter, r *http.Request) error {
	id, err := automationID(r)
	if err != nil {
		return err
	}
	return list(w, r, runResource, func(page, limit *int) (*graph.AutomationRunPage, error) {
		return h.resolver.Query().AutomationRuns(r.Context(), id, queryParam(r, "status"), page, limit)
	})
}

func (h automationHandlers) retry(w http.ResponseWriter, r *http.Request) error {
	id, err := automationID(r)
	if err != nil {
		return err
	}
	runID, err := uuid.Parse(chi.URLParam(r, "runId"))
	if err != nil {
		return apperr.New(apperr.NotFound, "automation run not found")
	}
	run, err := store.WithTxValue(r.Context(), h.client, func(ctx context.Context, _ *ent.Client) (*ent.AutomationRun, error) {
		return h.resolver.Mutation().RetryAutomationRun(ctx, id, runID)
	})
	if err != nil {
		return err
	}
	writeResource(w, r, http.StatusOK, runResource(run))
	return nil
}

func automationID(r *http.Request) (uuid.UUID, error) {
	id, err := uuid.Parse(chi.URLParam(r, "id"))
	if err != nil {
		return uuid.Nil, apperr.New(apperr.NotFound, "automation not found")
	}
	return id, nil
}
