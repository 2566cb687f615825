package webhooks

import (
	"context"
	"time"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/webhookdelivery"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/rule"
)

// Retention is how long events, deliveries and attempts are kept once
// every delivery of the event has finished (succeeded or dead-lettered).
const Retention = 30 * 24 * time.Hour

// Purge deletes the events that occurred before cutoff and have no pending
// delivery; their deliveries and attempts go with them (ON DELETE CASCADE).
func Purge(ctx context.Context, c *ent.Client, cutoff time.Time) (int, error) {
	return c.WebhookEvent.Delete().Where(
		webhookevent.Dispatched(true),
		webhookevent.OccurredAtLT(cutoff.UTC()),
		webhookevent.Not(webhookevent.HasDeliveriesWith(webhookdelivery.StatusEQ(webhookdelivery.StatusPending))),
	).Exec(rule.SystemContext(ctx))
}
