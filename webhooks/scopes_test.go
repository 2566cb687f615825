package webhooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/webhookdelivery"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

// A subscription with no recorded credential (no key, no installation) is
// not the system's: it reads nothing, so the fan-out makes no delivery
// for it, while a key's subscription gets the same event.
func TestSubscriptionWithoutCredentialReceivesNothing(t *testing.T) {
	e := newEnv(t)
	keyed := webhookstest.NewReceiver(t, webhookstest.OK)
	e.subscribe(t, keyed.URL, "lead.created")
	sys := rule.SystemContext(context.Background())
	unknown, err := e.db.Client.WebhookSubscription.Create().SetOrgID(e.org.ID).SetURL(keyed.URL + "/unknown").
		SetEvents([]string{"*"}).SetSecret("whsec_" + uuid.NewString()).Save(sys)
	if err != nil {
		t.Fatal(err)
	}
	e.createLead(t, "Nobody's Co")
	keyed.Wait(t, 1)
	awaitDispatched(t, e)
	n, err := e.db.Client.WebhookDelivery.Query().Where(webhookdelivery.SubscriptionID(unknown.ID)).Count(sys)
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("the subscription without a credential got %d deliveries; want none", n)
	}
}

// awaitDispatched waits until the worker has fanned out every event of
// the outbox: their deliveries are made in the same transaction.
func awaitDispatched(tb testing.TB, e *env) {
	tb.Helper()
	sys := rule.SystemContext(context.Background())
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		n, err := e.db.Client.WebhookEvent.Query().Where(webhookevent.Dispatched(false)).Count(sys)
		if err != nil {
			tb.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
	tb.Fatal("the worker did not fan the outbox's events out within 10s")
}
