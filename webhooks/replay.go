package webhooks

import (
	"context"
	"fmt"
	"time"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/webhookdelivery"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/rule"
)

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
	events.AfterCommit(ctx, events.Wake)
	return n, nil
}
