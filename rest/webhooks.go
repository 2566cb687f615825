package rest

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/reqbody"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/webhooks"
)

const subscriptionPrefix = "whsub_"

// subscriptionAttributes is a subscription as SPEC 2.5 shows it, plus the
// pause state. Secret is set only in the create response.
type subscriptionAttributes struct {
	URL                 string        `json:"url"`
	Events              []string      `json:"events"`
	Secret              string        `json:"secret,omitempty" description:"Only in the create response."`
	IsActive            bool          `json:"isActive"`
	PausedReason        *string       `json:"pausedReason"`
	PausedAt            *apitime.Time `json:"pausedAt"`
	ConsecutiveFailures int           `json:"consecutiveFailures" openapi:"count"`
	CreatedAt           apitime.Time  `json:"createdAt"`
}

func subscriptionResource(s *ent.WebhookSubscription, secret string) Resource {
	return Resource{ID: subscriptionPrefix + s.ID.String(), Type: "webhook_subscription", Attributes: subscriptionAttributes{
		URL: s.URL, Events: nonNilSlice(s.Events), Secret: secret, IsActive: s.IsActive,
		PausedReason: s.PausedReason, PausedAt: utcPtr(s.PausedAt), ConsecutiveFailures: s.ConsecutiveFailures,
		CreatedAt: apitime.Of(s.CreatedAt),
	}}
}

// replayAttributes is the answer to a replay: how many deliveries were queued.
type replayAttributes struct {
	Queued int `json:"queued" openapi:"count"`
}

// subscriptionCreate is the body of POST /v1/app-webhooks.
type subscriptionCreate struct {
	URL    reqbody.Opt[string]   `json:"url" openapi:"uri" bound:"url" description:"HTTPS address that receives the deliveries."`
	Events reqbody.Opt[[]string] `json:"events" enum:"SubscriptionEventType" bound:"events" description:"Event types, or \"*\" for all."`
	Secret reqbody.Opt[string]   `json:"secret" bound:"secret" description:"Signing secret; generated (whsec_...) when omitted."`
}

// subscriptionPatch is the body of PATCH /v1/app-webhooks/{id}.
type subscriptionPatch struct {
	URL      reqbody.Opt[string]   `json:"url" openapi:"uri" bound:"url" description:"HTTPS address that receives the deliveries."`
	Events   reqbody.Opt[[]string] `json:"events" enum:"SubscriptionEventType" bound:"events" description:"Event types, or \"*\" for all."`
	IsActive reqbody.Opt[bool]     `json:"isActive"`
}

// replayRequest is the body of POST /v1/app-webhooks/{id}/replay.
type replayRequest struct {
	Since reqbody.Opt[time.Time] `json:"since" openapi:"dateTime" description:"Replays the events that occurred at or after this instead of the dead-letter queue: not before 1970, and in the past when until is omitted."`
	Until reqbody.Opt[time.Time] `json:"until" openapi:"dateTime" description:"With since: only the events that occurred before this, which must be after since; now when omitted."`
}

// webhookHandlers translates /v1/app-webhooks onto the GraphQL resolvers.
type webhookHandlers struct {
	resolver *graph.Resolver
	client   *ent.Client
}

func (h webhookHandlers) create(w http.ResponseWriter, r *http.Request) error {
	var body subscriptionCreate
	if err := decodeBody(r, &body, nil); err != nil {
		return err
	}
	if body.URL.Ptr() == nil {
		return apperr.Invalid("url", "is required")
	}
	if body.Events.Ptr() == nil {
		return apperr.Invalid("events", "is required")
	}
	in := graph.NewWebhookSubscription{URL: body.URL.Value, Events: nonNilSlice(body.Events.Value), Secret: body.Secret.Ptr()}
	created, err := store.WithTxValue(r.Context(), h.client, func(ctx context.Context, _ *ent.Client) (*graph.CreatedWebhookSubscription, error) {
		return h.resolver.Mutation().CreateWebhookSubscription(ctx, in)
	})
	if err != nil {
		return err
	}
	writeResource(w, r, http.StatusCreated, subscriptionResource(created.Subscription, created.Secret))
	return nil
}

func (h webhookHandlers) list(w http.ResponseWriter, r *http.Request) error {
	subs, err := h.resolver.ListWebhookSubscriptions(r.Context())
	if err != nil {
		return err
	}
	writeAll(w, r, subs, func(s *ent.WebhookSubscription) Resource { return subscriptionResource(s, "") })
	return nil
}

func (h webhookHandlers) patch(w http.ResponseWriter, r *http.Request) error {
	id, err := subscriptionID(r)
	if err != nil {
		return err
	}
	var body subscriptionPatch
	if err := decodeBody(r, &body, map[string]string{"secret": "cannot be changed; create a new subscription to rotate it"}); err != nil {
		return err
	}
	if body.Events.Set && body.Events.Null {
		return apperr.Invalid("events", "must not be null")
	}
	in := graph.WebhookSubscriptionPatch{URL: body.URL.Ptr(), IsActive: body.IsActive.Ptr()}
	if body.Events.Set {
		in.Events = nonNilSlice(body.Events.Value)
	}
	sub, err := store.WithTxValue(r.Context(), h.client, func(ctx context.Context, _ *ent.Client) (*ent.WebhookSubscription, error) {
		return h.resolver.Mutation().UpdateWebhookSubscription(ctx, id, in)
	})
	if err != nil {
		return err
	}
	writeResource(w, r, http.StatusOK, subscriptionResource(sub, ""))
	return nil
}

func (h webhookHandlers) delete(w http.ResponseWriter, r *http.Request) error {
	return deleteByID(w, r, h.client, subscriptionID, h.resolver.Mutation().DeleteWebhookSubscription)
}

// subscriptionID parses {id}: whsub_<uuid> (the bare UUID is accepted too).
func subscriptionID(r *http.Request) (uuid.UUID, error) {
	id, err := uuid.Parse(strings.TrimPrefix(chi.URLParam(r, "id"), subscriptionPrefix))
	if err != nil {
		return uuid.Nil, apperr.New(apperr.NotFound, "webhook subscription not found")
	}
	return id, nil
}

// catalog serves the event catalog (public).
func catalog(w http.ResponseWriter, r *http.Request) {
	writeAll(w, r, event.Catalog, func(e event.Type) Resource {
		return Resource{ID: e.Name, Type: "webhook_event_type", Attributes: e}
	})
}

// deliveryResource renders a delivery with its attempts.
func deliveryResource(d *webhooks.DeliveryRecord) Resource {
	return Resource{ID: d.WebhookID, Type: "webhook_delivery", Attributes: d}
}

func (h webhookHandlers) deliveries(w http.ResponseWriter, r *http.Request) error {
	id, err := subscriptionID(r)
	if err != nil {
		return err
	}
	return list(w, r, deliveryResource, func(page, limit *int) (*graph.DeliveryPage, error) {
		return h.resolver.Query().WebhookDeliveries(r.Context(), id, queryParam(r, "status"), page, limit)
	})
}

func (h webhookHandlers) replayOne(w http.ResponseWriter, r *http.Request) error {
	subID, err := subscriptionID(r)
	if err != nil {
		return err
	}
	deliveryID, err := uuid.Parse(strings.TrimPrefix(chi.URLParam(r, "deliveryId"), webhooks.DeliveryIDPrefix))
	if err != nil {
		return apperr.New(apperr.NotFound, "delivery not found")
	}
	d, err := store.WithTxValue(r.Context(), h.client, func(ctx context.Context, _ *ent.Client) (*webhooks.DeliveryRecord, error) {
		return h.resolver.Mutation().ReplayWebhookDelivery(ctx, subID, deliveryID)
	})
	if err != nil {
		return err
	}
	writeResource(w, r, http.StatusAccepted, deliveryResource(d))
	return nil
}

func (h webhookHandlers) replayMany(w http.ResponseWriter, r *http.Request) error {
	subID, err := subscriptionID(r)
	if err != nil {
		return err
	}
	var body replayRequest
	if err := decodeBody(r, &body, nil); err != nil {
		return err
	}
	n, err := store.WithTxValue(r.Context(), h.client, func(ctx context.Context, _ *ent.Client) (int, error) {
		return h.resolver.Mutation().ReplayWebhookDeliveries(ctx, subID, body.Since.Ptr(), body.Until.Ptr())
	})
	if err != nil {
		return err
	}
	writeResource(w, r, http.StatusAccepted, Resource{ID: "replay", Type: "webhook_replay", Attributes: replayAttributes{Queued: n}})
	return nil
}
