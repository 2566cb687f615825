package webhooks_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/webhooks"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

// A delivery is the event's envelope with the lead's payload, signed with
// the subscription's secret under the headers receivers verify.
func TestDeliverySignedEnvelope(t *testing.T) {
	e := newEnv(t)
	rc := webhookstest.NewReceiver(t, webhookstest.OK)
	sub := e.subscribe(t, rc.URL, "lead.created")
	lead := e.createLeadWith(t, func(c *ent.LeadCreate) { c.SetBusinessName("Signed Co").SetEmail("s@signed.example") })
	d := rc.Wait(t, 1)[0]
	if d.Env.Event != "lead.created" || !strings.HasPrefix(d.Env.ID, "evt_") || time.Time(d.Env.Timestamp).IsZero() {
		t.Errorf("envelope = %+v", d.Env)
	}
	want := map[string]any{"leadId": lead.ID.String(), "businessName": "Signed Co", "email": "s@signed.example", "source": "manual",
		"priority": "normal", "orgId": e.org.ID.String(), "stageId": e.firstStage(t).ID.String(), "advisorId": nil}
	for k, v := range want {
		if d.Env.Data[k] != v {
			t.Errorf("data.%s = %v, want %v", k, d.Env.Data[k], v)
		}
	}
	if !strings.HasPrefix(d.Header.Get("X-Webhook-Id"), "msg_") || d.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers = %v", d.Header)
	}
	sig, ts := d.Header.Get("X-Webhook-Signature"), d.Header.Get("X-Webhook-Timestamp")
	if !strings.HasPrefix(sig, "sha256=") || !webhooks.Verify(sub.Secret, ts, sig, d.Body, time.Now()) {
		t.Errorf("signature %q over timestamp %q does not verify", sig, ts)
	}
	if webhooks.Verify("whsec_wrong", ts, sig, d.Body, time.Now()) {
		t.Errorf("a wrong secret verified")
	}
}
