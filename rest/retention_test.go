package rest_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent/rule"
	"github.com/lendingpipe/svc/ent/webhookattempt"
	"github.com/lendingpipe/svc/ent/webhookdelivery"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks"
)

// Finished deliveries past retention go, with their events and attempts;
// pending ones and recent ones stay. Expired idempotency keys go.
func TestRetention(t *testing.T) {
	e := resttest.New(t)
	rc := newReceiver(t, ok)
	subscribe(t, e, rc.URL, "lead.created")
	e.Do(resttest.Request{Method: "POST", Path: "/v1/leads", Key: e.Key, Body: map[string]any{"businessName": "Old"},
		Header: map[string]string{"Idempotency-Key": "old-key"}})
	rc.wait(t, 1)
	sys := rule.SystemContext(context.Background())
	count := func() (deliveries, attempts int) {
		d, _ := e.DB.Client.WebhookDelivery.Query().Count(sys)
		a, _ := e.DB.Client.WebhookAttempt.Query().Count(sys)
		return d, a
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if n, _ := e.DB.Client.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusSucceeded)).Count(sys); n == 1 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n, err := webhooks.Purge(context.Background(), e.DB.Client, time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("purging nothing recent: %d, %v", n, err)
	}
	if n, err := webhooks.Purge(context.Background(), e.DB.Client, time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("purge = %d, %v; want the 1 finished event", n, err)
	}
	if d, a := count(); d != 0 || a != 0 {
		t.Errorf("after purge: %d deliveries, %d attempts remain", d, a)
	}
	if n, _ := e.DB.Client.WebhookAttempt.Query().Where(webhookattempt.LatencyMsGTE(0)).Count(sys); n != 0 {
		t.Errorf("attempts remain")
	}
	if n, err := e.DB.PurgeIdempotency(context.Background(), time.Now().Add(25*time.Hour)); err != nil || n != 1 {
		t.Errorf("idempotency purge = %d, %v; want 1", n, err)
	}
	mustStatus(t, e.Get("/v1/leads", e.Key), http.StatusOK)
}
