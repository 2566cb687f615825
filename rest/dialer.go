package rest

import (
	"context"
	"io"
	"net/http"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/dialer"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/reqbody"
	"github.com/lendingpipe/svc/internal/store"
)

// callEventAttributes is a call event as SPEC 2.3 shows it, plus notes.
type callEventAttributes struct {
	ExternalCallID  string         `json:"externalCallId"`
	UserID          uuid.UUID      `json:"userId"`
	LeadID          *uuid.UUID     `json:"leadId"`
	EventType       string         `json:"eventType" enum:"CallEventType"`
	Direction       *string        `json:"direction" enum:"CallDirection"`
	DurationSeconds *int           `json:"durationSeconds" openapi:"count"`
	Disposition     *string        `json:"disposition"`
	Notes           *string        `json:"notes"`
	Metadata        map[string]any `json:"metadata"`
	OccurredAt      apitime.Time   `json:"occurredAt"`
	CreatedAt       apitime.Time   `json:"createdAt"`
	UpdatedAt       apitime.Time   `json:"updatedAt"`
}

// Resource id prefixes (SPEC 2.3, 2.4).
const (
	callEventPrefix = "evt_"
	presencePrefix  = "pres_"
)

func callEventResource(e *ent.CallEvent) Resource {
	a := callEventAttributes{
		ExternalCallID: e.ExternalCallID, UserID: e.UserID, LeadID: e.LeadID, EventType: e.EventType.String(),
		DurationSeconds: e.DurationSeconds, Disposition: e.Disposition, Notes: e.Notes,
		Metadata: nonNilMap(e.Metadata), OccurredAt: apitime.Of(e.OccurredAt), CreatedAt: apitime.Of(e.CreatedAt), UpdatedAt: apitime.Of(e.UpdatedAt),
	}
	if e.Direction != nil {
		d := e.Direction.String()
		a.Direction = &d
	}
	return Resource{ID: callEventPrefix + e.ID.String(), Type: "call_event", Attributes: a}
}

// presenceAttributes is AgentStatus without its id, which the resource carries.
type presenceAttributes struct {
	*dialer.AgentStatus
	ID any `json:"id,omitempty" openapi:"-"`
}

func presenceResource(s *dialer.AgentStatus) Resource {
	return Resource{ID: presencePrefix + s.ID.String(), Type: "agent_presence", Attributes: presenceAttributes{AgentStatus: s}}
}

// dialerHandlers translates /v1/dialer onto the GraphQL resolvers.
type dialerHandlers struct {
	resolver *graph.Resolver
	client   *ent.Client
}

// payload reads a JSON body and normalises its aliases (strictly: a field
// the endpoint does not know is 422).
func payload(r *http.Request, fields []string) (*dialer.Payload, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	obj, err := reqbody.ParseObject(body)
	if err != nil {
		return nil, err
	}
	p, _, err := dialer.Normalize(obj, fields, true, false)
	return p, err
}

func (h dialerHandlers) event(w http.ResponseWriter, r *http.Request) error {
	p, err := payload(r, dialer.EventFields)
	if err != nil {
		return err
	}
	in, err := p.EventInput()
	if err != nil {
		return err
	}
	return h.recordCall(w, r, http.StatusCreated, func(ctx context.Context) (*ent.CallEvent, error) {
		return h.resolver.Mutation().RecordCallEvent(ctx, in)
	})
}

func (h dialerHandlers) disposition(w http.ResponseWriter, r *http.Request) error {
	p, err := payload(r, dialer.DispositionFields)
	if err != nil {
		return err
	}
	in, err := p.DispositionInput()
	if err != nil {
		return err
	}
	return h.recordCall(w, r, http.StatusCreated, func(ctx context.Context) (*ent.CallEvent, error) {
		return h.resolver.Mutation().RecordDisposition(ctx, in)
	})
}

// recordCall runs a call-event mutation in a transaction and answers with it.
func (h dialerHandlers) recordCall(w http.ResponseWriter, r *http.Request, status int, fn func(context.Context) (*ent.CallEvent, error)) error {
	ev, err := store.WithTxValue(r.Context(), h.client, func(ctx context.Context, _ *ent.Client) (*ent.CallEvent, error) {
		return fn(ctx)
	})
	if err != nil {
		return err
	}
	writeResource(w, r, status, callEventResource(ev))
	return nil
}

func (h dialerHandlers) presence(w http.ResponseWriter, r *http.Request) error {
	p, err := payload(r, dialer.PresenceFields)
	if err != nil {
		return err
	}
	in, err := p.PresenceInput()
	if err != nil {
		return err
	}
	s, err := store.WithTxValue(r.Context(), h.client, func(ctx context.Context, _ *ent.Client) (*dialer.AgentStatus, error) {
		return h.resolver.Mutation().UpdatePresence(ctx, in)
	})
	if err != nil {
		return err
	}
	writeResource(w, r, http.StatusOK, presenceResource(s))
	return nil
}

func (h dialerHandlers) agents(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, presenceResource, func(page, limit *int) (*graph.AgentBoardPage, error) {
		teamID, err := uuidParam(r, "teamId")
		if err != nil {
			return nil, err
		}
		return h.resolver.Query().AgentsBoardPage(r.Context(), teamID, page, limit)
	})
}
