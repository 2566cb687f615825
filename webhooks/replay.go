package webhooks

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/ent/webhookdelivery"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/rule"
)

// The replays of GraphQL's replayWebhookDelivery and replayWebhookDeliveries
// (and so of REST's POST .../replay). c reads as ctx's viewer, so another
// organization's subscription or delivery is NOT_FOUND, and one without
// webhooks:manage FORBIDDEN; the deliveries themselves are the worker's rows
// and are written as the system, once the viewer was shown to own them.

// ReplayDelivery queues one delivery of subscription subID again, from its
// first attempt, keeping its X-Webhook-Id, and returns its record.
func ReplayDelivery(ctx context.Context, c *ent.Client, subID, deliveryID uuid.UUID, now time.Time) (*DeliveryRecord, error) {
	d, err := c.WebhookDelivery.Query().Where(webhookdelivery.ID(deliveryID), webhookdelivery.SubscriptionID(subID)).Only(ctx)
	if err != nil {
		return nil, err
	}
	if err := requeue(ctx, c, now, webhookdelivery.ID(d.ID)); err != nil {
		return nil, err
	}
	d, err = c.WebhookDelivery.Query().Where(webhookdelivery.ID(d.ID)).WithAttemptLog().Only(ctx)
	if err != nil {
		return nil, err
	}
	recs, err := Records(ctx, c, []*ent.WebhookDelivery{d})
	if err != nil {
		return nil, err
	}
	return recs[0], nil
}

// ReplayDeliveries queues subscription subID's dead-lettered deliveries
// again, or, with since, every event of [since, until) it wants (until
// defaults to now; see ReplayRange), and counts them.
func ReplayDeliveries(ctx context.Context, c *ent.Client, subID uuid.UUID, since, until *time.Time, now time.Time) (int, error) {
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
		return n, requeue(ctx, c, now, webhookdelivery.SubscriptionID(subID), webhookdelivery.StatusEQ(webhookdelivery.StatusDead))
	}
	end, err := replayEnd(*since, until, now.UTC())
	if err != nil {
		return 0, err
	}
	return ReplayRange(ctx, c, sub, *since, end, now)
}

// replayEnd checks a replay's range and says where it ends: until, or now.
func replayEnd(since time.Time, until *time.Time, now time.Time) (time.Time, error) {
	if err := apitime.Within("since", since, now.Add(apitime.Skew)); err != nil {
		return time.Time{}, err
	}
	if until == nil {
		if !since.Before(now) {
			return time.Time{}, apperr.Invalid("since", "must be in the past when until is omitted (the range ends now)")
		}
		return now, nil
	}
	if err := apitime.Within("until", *until, now.Add(apitime.Skew)); err != nil {
		return time.Time{}, err
	}
	if !until.After(since) {
		return time.Time{}, apperr.Invalid("until", "must be after since")
	}
	return *until, nil
}

// requeue sets matching deliveries to be sent again from their first
// attempt, and wakes the worker once c commits (it would find nothing
// before then).
func requeue(ctx context.Context, c *ent.Client, now time.Time, where ...predicate.WebhookDelivery) error {
	err := c.WebhookDelivery.Update().Where(where...).
		SetStatus(webhookdelivery.StatusPending).SetAttempts(0).SetNextAttemptAt(now.UTC()).ClearDeadAt().
		Exec(rule.SystemContext(ctx))
	if err == nil {
		events.AfterCommit(ctx, c.Signals.Wake)
	}
	return err
}

// Records pairs deliveries (already filtered to the viewer's organization)
// with their events, which only the worker's system context reads.
func Records(ctx context.Context, c *ent.Client, ds []*ent.WebhookDelivery) ([]*DeliveryRecord, error) {
	ids := make([]uuid.UUID, len(ds))
	for i, d := range ds {
		ids[i] = d.EventID
	}
	found, err := c.WebhookEvent.Query().Where(webhookevent.IDIn(ids...)).All(rule.SystemContext(ctx))
	if err != nil {
		return nil, err
	}
	byID := map[uuid.UUID]*ent.WebhookEvent{}
	for _, ev := range found {
		byID[ev.ID] = ev
	}
	out := make([]*DeliveryRecord, len(ds))
	for i, d := range ds {
		out[i] = Record(d, byID[d.EventID])
	}
	return out, nil
}

// ReplayRange queues sub's deliveries of the events that occurred in
// [since, until) again, from their first attempt, and counts them. A
// replay sends what the fan-out would send now: only the events sub's
// credential may read (Audience), so a replay never widens what a
// subscription receives. An app.webhook_paused is never replayed (it was
// about a pause that has passed). It wakes the worker once c commits.
func ReplayRange(ctx context.Context, c *ent.Client, sub *ent.WebhookSubscription, since, until, now time.Time) (int, error) {
	sys := rule.SystemContext(ctx)
	found, err := c.WebhookEvent.Query().Where(webhookevent.OrgID(sub.OrgID),
		webhookevent.OccurredAtGTE(since.UTC()), webhookevent.OccurredAtLT(until.UTC())).All(sys)
	if err != nil {
		return 0, fmt.Errorf("reading the events to replay: %w", err)
	}
	audience, err := AudienceOf(sys, c, []*ent.WebhookSubscription{sub}, now)
	if err != nil {
		return 0, err
	}
	now = now.UTC()
	n := 0
	for _, ev := range found {
		if ev.EventType == event.AppWebhookPaused || !audience.Receives(ev, sub) {
			continue
		}
		err := c.WebhookDelivery.Create().SetOrgID(sub.OrgID).SetEventID(ev.ID).SetSubscriptionID(sub.ID).
			SetNextAttemptAt(now).OnConflictColumns(webhookdelivery.FieldEventID, webhookdelivery.FieldSubscriptionID).
			Update(func(u *ent.WebhookDeliveryUpsert) {
				u.SetStatus(webhookdelivery.StatusPending).SetAttempts(0).SetNextAttemptAt(now).ClearDeadAt()
			}).Exec(sys)
		if err != nil {
			return n, fmt.Errorf("queueing a replayed delivery: %w", err)
		}
		n++
	}
	events.AfterCommit(ctx, c.Signals.Wake)
	return n, nil
}
