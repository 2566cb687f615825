package graph

import (
	"context"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/ent/webhookdelivery"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/webhooks"
)

// deliveries pages through a subscription's deliveries, newest first.
func (r *Resolver) deliveries(ctx context.Context, subID uuid.UUID, status *string, pageArg, limitArg *int) (*DeliveryPage, error) {
	s, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	c := r.client(ctx)
	if _, err := c.WebhookSubscription.Get(ctx, subID); err != nil {
		return nil, err // NOT_FOUND for another organization's, FORBIDDEN without webhooks:manage
	}
	q := c.WebhookDelivery.Query().Where(webhookdelivery.SubscriptionID(subID))
	if status != nil {
		s := webhookdelivery.Status(*status)
		if err := webhookdelivery.StatusValidator(s); err != nil {
			return nil, apperr.Invalid("status", "must be pending, succeeded or dead")
		}
		q = q.Where(webhookdelivery.StatusEQ(s))
	}
	q = q.Order(webhookdelivery.ByCreatedAt(sql.OrderDesc()), webhookdelivery.ByID(sql.OrderDesc())).
		WithAttemptLog(func(q *ent.WebhookAttemptQuery) { q.Order(ent.Asc("attempted_at")) })
	ds, err := readPage(ctx, q, s)
	if err != nil {
		return nil, err
	}
	records, err := r.records(ctx, ds.Nodes)
	return answer[DeliveryPage](withNodes(ds, records), err)
}

// records pairs deliveries (already filtered to the viewer's organization)
// with their events, which only the worker's system context reads.
func (r *Resolver) records(ctx context.Context, ds []*ent.WebhookDelivery) ([]*webhooks.DeliveryRecord, error) {
	ids := make([]uuid.UUID, len(ds))
	for i, d := range ds {
		ids[i] = d.EventID
	}
	events, err := r.client(ctx).WebhookEvent.Query().Where(webhookevent.IDIn(ids...)).All(rule.SystemContext(ctx))
	if err != nil {
		return nil, err
	}
	byID := map[uuid.UUID]*ent.WebhookEvent{}
	for _, ev := range events {
		byID[ev.ID] = ev
	}
	out := make([]*webhooks.DeliveryRecord, len(ds))
	for i, d := range ds {
		out[i] = webhooks.Record(d, byID[d.EventID])
	}
	return out, nil
}

// replayDelivery queues one delivery of the viewer's subscription again,
// from its first attempt, keeping its X-Webhook-Id.
func (r *Resolver) replayDelivery(ctx context.Context, subID, deliveryID uuid.UUID) (*webhooks.DeliveryRecord, error) {
	c := r.client(ctx)
	d, err := c.WebhookDelivery.Query().Where(webhookdelivery.ID(deliveryID), webhookdelivery.SubscriptionID(subID)).Only(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.requeue(ctx, c, webhookdelivery.ID(d.ID)); err != nil {
		return nil, err
	}
	d, err = c.WebhookDelivery.Query().Where(webhookdelivery.ID(d.ID)).WithAttemptLog().Only(ctx)
	if err != nil {
		return nil, err
	}
	recs, err := r.records(ctx, []*ent.WebhookDelivery{d})
	if err != nil {
		return nil, err
	}
	return recs[0], nil
}

// replayDeliveries queues a subscription's dead-lettered deliveries again,
// or, with since, every event of [since, until) the subscription wants.
func (r *Resolver) replayDeliveries(ctx context.Context, subID uuid.UUID, since, until *time.Time) (int, error) {
	c := r.client(ctx)
	sub, err := c.WebhookSubscription.Get(ctx, subID)
	if err != nil {
		return 0, err
	}
	if since == nil {
		if until != nil {
			return 0, apperr.Invalid("since", "is required with until")
		}
		n, err := c.WebhookDelivery.Query().Where(webhookdelivery.SubscriptionID(subID), webhookdelivery.StatusEQ(webhookdelivery.StatusDead)).Count(ctx)
		if err != nil || n == 0 {
			return 0, err
		}
		return n, r.requeue(ctx, c, webhookdelivery.SubscriptionID(subID), webhookdelivery.StatusEQ(webhookdelivery.StatusDead))
	}
	now := r.now().UTC()
	if err := apitime.Within("since", *since, now.Add(apitime.Skew)); err != nil {
		return 0, err
	}
	if until != nil {
		if err := apitime.Within("until", *until, now.Add(apitime.Skew)); err != nil {
			return 0, err
		}
	}
	if err := CheckRange(since, until, "since", "until"); err != nil {
		return 0, err
	}
	if until == nil && !since.Before(now) {
		return 0, apperr.Invalid("since", "must be in the past when until is omitted (the range ends now)")
	}
	end := now
	if until != nil {
		end = *until
	}
	return webhooks.ReplayRange(ctx, c, sub, *since, end, r.now())
}

// requeue sets matching deliveries to be sent again from their first
// attempt. Deliveries are the worker's to write, so this runs as the
// system, on deliveries the caller was shown to own.
func (r *Resolver) requeue(ctx context.Context, c *ent.Client, where ...predicate.WebhookDelivery) error {
	err := c.WebhookDelivery.Update().Where(where...).
		SetStatus(webhookdelivery.StatusPending).SetAttempts(0).SetNextAttemptAt(r.now().UTC()).ClearDeadAt().
		Exec(rule.SystemContext(ctx))
	if err == nil {
		events.AfterCommit(ctx, events.Wake) // the worker would find nothing before then
	}
	return err
}
