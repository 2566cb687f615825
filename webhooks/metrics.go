package webhooks

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/webhookdelivery"
	"github.com/lendingpipe/svc/internal/outbox"
	"github.com/lendingpipe/svc/internal/rule"
)

// counters of this process's deliveries since start.
type counters struct {
	sent, failed, deadLettered atomic.Int64
}

var metrics counters

func (c *counters) count(o outcome, dead bool) {
	if o.ok() {
		c.sent.Add(1)
		return
	}
	c.failed.Add(1)
	if dead {
		c.deadLettered.Add(1)
	}
}

// Metric is one sample in the Prometheus text format.
type Metric struct {
	Name, Kind, Help string // Kind: counter or gauge
	Value            int64
}

// WriteMetrics writes the delivery counters of this process and the queue
// depths of the database in the Prometheus text format, then extra.
func WriteMetrics(ctx context.Context, w io.Writer, c *ent.Client, extra ...Metric) error {
	sys := rule.SystemContext(ctx)
	pending, err := c.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPending)).Count(sys)
	if err != nil {
		return err
	}
	dead, err := c.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusDead)).Count(sys)
	if err != nil {
		return err
	}
	outbox, err := c.WebhookEvent.Query().Where(outbox.Undispatched()).Count(sys)
	if err != nil {
		return err
	}
	for _, m := range append([]Metric{
		{"svc_webhook_deliveries_sent_total", "counter", "Deliveries answered 2xx by this process.", metrics.sent.Load()},
		{"svc_webhook_delivery_failures_total", "counter", "Failed delivery attempts by this process.", metrics.failed.Load()},
		{"svc_webhook_dead_lettered_total", "counter", "Deliveries this process moved to the dead-letter queue.", metrics.deadLettered.Load()},
		{"svc_webhook_queue_depth", "gauge", "Deliveries waiting for an attempt.", int64(pending)},
		{"svc_webhook_dead_letter_depth", "gauge", "Deliveries in the dead-letter queue.", int64(dead)},
		{"svc_webhook_outbox_depth", "gauge", "Events not yet fanned out to subscriptions.", int64(outbox)},
	}, extra...) {
		if _, err := fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n%s %d\n", m.Name, m.Help, m.Name, m.Kind, m.Name, m.Value); err != nil {
			return err
		}
	}
	return nil
}
