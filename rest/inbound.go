package rest

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/reqbody"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/webhooks"
)

// inboundHandlers serve the inbound receiver and its management.
type inboundHandlers struct {
	resolver *graph.Resolver
	client   *ent.Client
	now      func() time.Time
}

// received is the receiver's answer: always true, once the request is
// stored (SPEC 4.4).
type received struct {
	Received bool `json:"received" openapi:"true"`
}

// receive answers 200 {received: true} once the request is stored.
func (h inboundHandlers) receive(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err // over 1 MiB: 413
	}
	if _, err := webhooks.Receive(r.Context(), h.client, h.resolver.RunsQueued(), chi.URLParam(r, "endpointKey"), r.Header, body, h.now()); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, single{Data: received{Received: true}, Meta: Meta{RequestID: RequestID(r.Context())}})
	return nil
}

type inboundAttributes struct {
	Name        string            `json:"name"`
	EndpointKey string            `json:"endpointKey"`
	Path        string            `json:"path"`
	Secret      string            `json:"secret,omitempty" description:"Only in the create response."`
	Mapping     map[string]string `json:"mapping"`
	IsActive    bool              `json:"isActive"`
	CreatedAt   apitime.Time      `json:"createdAt"`
}

func inboundResource(ep *ent.InboundEndpoint, secret string) Resource {
	return Resource{ID: ep.ID.String(), Type: "inbound_endpoint", Attributes: inboundAttributes{
		Name: ep.Name, EndpointKey: ep.EndpointKey, Path: "/v1/webhooks/inbound/" + ep.EndpointKey, Secret: secret,
		Mapping: ep.Mapping, IsActive: ep.IsActive, CreatedAt: apitime.Of(ep.CreatedAt),
	}}
}

// inboundCreate is the body of POST /v1/inbound-endpoints.
type inboundCreate struct {
	Name    reqbody.Opt[string]         `json:"name" bound:"name"`
	Mapping reqbody.Opt[map[string]any] `json:"mapping" openapi:"mapping" nullable:"true"`
}

// inboundPatch is the body of PATCH /v1/inbound-endpoints/{id}.
type inboundPatch struct {
	Name     reqbody.Opt[string]         `json:"name" bound:"name"`
	Mapping  reqbody.Opt[map[string]any] `json:"mapping" openapi:"mapping" nullable:"true"`
	IsActive reqbody.Opt[bool]           `json:"isActive"`
}

func (h inboundHandlers) create(w http.ResponseWriter, r *http.Request) error {
	var body inboundCreate
	if err := decodeBody(r, &body, nil); err != nil {
		return err
	}
	if body.Name.Ptr() == nil {
		return apperr.Invalid("name", "is required")
	}
	created, err := store.WithTxValue(r.Context(), h.client, func(ctx context.Context, _ *ent.Client) (*graph.CreatedInboundEndpoint, error) {
		return h.resolver.Mutation().CreateInboundEndpoint(ctx, graph.NewInboundEndpoint{Name: body.Name.Value, Mapping: body.Mapping.Value})
	})
	if err != nil {
		return err
	}
	writeResource(w, r, http.StatusCreated, inboundResource(created.Endpoint, created.Secret))
	return nil
}

func (h inboundHandlers) list(w http.ResponseWriter, r *http.Request) error {
	eps, err := h.resolver.ListInboundEndpoints(r.Context())
	if err != nil {
		return err
	}
	writeAll(w, r, eps, func(ep *ent.InboundEndpoint) Resource { return inboundResource(ep, "") })
	return nil
}

func (h inboundHandlers) patch(w http.ResponseWriter, r *http.Request) error {
	id, err := inboundID(r)
	if err != nil {
		return err
	}
	var body inboundPatch
	if err := decodeBody(r, &body, map[string]string{"secret": "cannot be changed; create a new endpoint to rotate it"}); err != nil {
		return err
	}
	in := graph.InboundEndpointPatch{Name: body.Name.Ptr(), IsActive: body.IsActive.Ptr()}
	if body.Mapping.Set {
		in.Mapping = nonNilMap(body.Mapping.Value)
	}
	ep, err := store.WithTxValue(r.Context(), h.client, func(ctx context.Context, _ *ent.Client) (*ent.InboundEndpoint, error) {
		return h.resolver.Mutation().UpdateInboundEndpoint(ctx, id, in)
	})
	if err != nil {
		return err
	}
	writeResource(w, r, http.StatusOK, inboundResource(ep, ""))
	return nil
}

func (h inboundHandlers) delete(w http.ResponseWriter, r *http.Request) error {
	return deleteByID(w, r, h.client, inboundID, h.resolver.Mutation().DeleteInboundEndpoint)
}

type inboundRequestAttributes struct {
	ReceivedAt      apitime.Time   `json:"receivedAt"`
	WebhookID       *string        `json:"webhookId"`
	SignatureValid  bool           `json:"signatureValid"`
	TimestampSigned bool           `json:"timestampSigned"`
	Payload         map[string]any `json:"payload"`
	Mapped          map[string]any `json:"mapped"`
	Status          string         `json:"status" enum:"InboundRequestStatus"`
	Error           *string        `json:"error"`
	ErrorCode       *string        `json:"errorCode" enum:"ErrorCode"`
}

func (h inboundHandlers) requests(w http.ResponseWriter, r *http.Request) error {
	id, err := inboundID(r)
	if err != nil {
		return err
	}
	return list(w, r, inboundRequestResource, func(page, limit *int) (*graph.InboundRequestPage, error) {
		return h.resolver.Query().InboundRequests(r.Context(), id, page, limit)
	})
}

func inboundRequestResource(q *ent.InboundRequest) Resource {
	return Resource{ID: q.ID.String(), Type: "inbound_request", Attributes: inboundRequestAttributes{
		ReceivedAt: apitime.Of(q.ReceivedAt), WebhookID: q.DedupKey, SignatureValid: q.SignatureValid,
		TimestampSigned: q.TimestampSigned, Payload: nonNilMap(q.Payload), Mapped: nonNilMap(q.Mapped),
		Status: q.Status.String(), Error: q.Error, ErrorCode: q.ErrorCode,
	}}
}

func inboundID(r *http.Request) (uuid.UUID, error) {
	id, err := uuid.Parse(chi.URLParam(r, "id"))
	if err != nil {
		return uuid.Nil, apperr.New(apperr.NotFound, "inbound endpoint not found")
	}
	return id, nil
}
