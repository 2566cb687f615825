package graph

import (
	"context"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/webhookdelivery"
	"github.com/lendingpipe/svc/internal/apperr"
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
	records, err := webhooks.Records(ctx, c, ds.Nodes)
	return answer[DeliveryPage](withNodes(ds, records), err)
}

// replayDelivery queues one delivery of the viewer's subscription again,
// from its first attempt, keeping its X-Webhook-Id.
func (r *Resolver) replayDelivery(ctx context.Context, subID, deliveryID uuid.UUID) (*webhooks.DeliveryRecord, error) {
	return webhooks.ReplayDelivery(ctx, r.client(ctx), subID, deliveryID, r.now())
}

// replayDeliveries queues a subscription's dead-lettered deliveries again,
// or, with since, every event of [since, until) the subscription wants.
func (r *Resolver) replayDeliveries(ctx context.Context, subID uuid.UUID, since, until *time.Time) (int, error) {
	return webhooks.ReplayDeliveries(ctx, r.client(ctx), subID, since, until, r.now())
}
