package webhooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent/webhookattempt"
	"github.com/lendingpipe/svc/ent/webhookdelivery"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/webhooks"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

// Finished deliveries past retention go, with their events and attempts;
// pending ones and recent ones stay. (Expired idempotency keys go too:
// rest's TestIdempotencyRetention.)
func TestRetention(t *testing.T) {
	e := newEnv(t)
	rc := webhookstest.NewReceiver(t, webhookstest.OK)
	e.subscribe(t, rc.URL, "lead.created")
	e.createLead(t, "Old")
	rc.Wait(t, 1)
	sys := rule.SystemContext(context.Background())
	count := func() (deliveries, attempts int) {
		d, _ := e.db.Client.WebhookDelivery.Query().Count(sys)
		a, _ := e.db.Client.WebhookAttempt.Query().Count(sys)
		return d, a
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if n, _ := e.db.Client.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusSucceeded)).Count(sys); n == 1 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n, err := webhooks.Purge(context.Background(), e.db.Client, time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("purging nothing recent: %d, %v", n, err)
	}
	if n, err := webhooks.Purge(context.Background(), e.db.Client, time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("purge = %d, %v; want the 1 finished event", n, err)
	}
	if d, a := count(); d != 0 || a != 0 {
		t.Errorf("after purge: %d deliveries, %d attempts remain", d, a)
	}
	if n, _ := e.db.Client.WebhookAttempt.Query().Where(webhookattempt.LatencyMsGTE(0)).Count(sys); n != 0 {
		t.Errorf("attempts remain")
	}
}
