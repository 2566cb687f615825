package rest_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent/rule"
	"github.com/lendingpipe/svc/ent/webhookdelivery"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
)

func deliveries(t *testing.T, e *resttest.Env, status webhookdelivery.Status) int {
	t.Helper()
	n, err := e.DB.Client.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(status)).Count(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Retries follow the schedule, keep their X-Webhook-Id, and the 5th
// failure moves the delivery to the dead-letter queue.
func TestRetryScheduleAndDeadLetter(t *testing.T) {
	schedule := []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond, 400 * time.Millisecond}
	e := resttest.New(t, fastRetries(schedule...))
	rc := newReceiver(t, func(int) int { return http.StatusInternalServerError })
	subscribe(t, e, rc.URL, "lead.created")
	createLead(t, e, e.Key, map[string]any{"businessName": "Unlucky"})
	got := rc.wait(t, 5)
	id := got[0].header.Get("X-Webhook-Id")
	for i := 1; i < 5; i++ {
		if got[i].header.Get("X-Webhook-Id") != id {
			t.Errorf("attempt %d has X-Webhook-Id %q, want %q", i+1, got[i].header.Get("X-Webhook-Id"), id)
		}
		if gap := got[i].at.Sub(got[i-1].at); gap < schedule[i] {
			t.Errorf("attempt %d came %s after the previous one, want at least %s", i+1, gap, schedule[i])
		}
		if string(got[i].body) != string(got[0].body) {
			t.Errorf("attempt %d body differs", i+1)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for deliveries(t, e, webhookdelivery.StatusDead) != 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if deliveries(t, e, webhookdelivery.StatusDead) != 1 {
		t.Fatalf("the delivery did not reach the dead-letter queue")
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(rc.wait(t, 5)); n != 5 {
		t.Errorf("receiver got %d attempts, want exactly 5", n)
	}
}

func TestRetrySucceeds(t *testing.T) {
	e := resttest.New(t, fastRetries(0, 50*time.Millisecond, 50*time.Millisecond, 50*time.Millisecond, 50*time.Millisecond))
	rc := newReceiver(t, func(n int) int {
		if n < 3 {
			return http.StatusBadGateway
		}
		return http.StatusNoContent
	})
	subscribe(t, e, rc.URL, "lead.created")
	createLead(t, e, e.Key, map[string]any{"businessName": "Third time"})
	rc.wait(t, 3)
	deadline := time.Now().Add(5 * time.Second)
	for deliveries(t, e, webhookdelivery.StatusSucceeded) != 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if deliveries(t, e, webhookdelivery.StatusSucceeded) != 1 {
		t.Fatal("delivery not marked succeeded after a 204")
	}
}

// 50 consecutive failures pause the subscription; the organization's other
// endpoint hears app.webhook_paused; PATCH isActive true resumes it.
func TestAutoPauseAndResume(t *testing.T) {
	e := resttest.New(t, fastRetries(0, time.Millisecond, time.Millisecond, time.Millisecond, time.Millisecond))
	failing := newReceiver(t, func(int) int { return http.StatusInternalServerError })
	watcher := newReceiver(t, ok)
	id, _ := subscribe(t, e, failing.URL, "lead.created")
	subscribe(t, e, watcher.URL, "app.webhook_paused")
	for range 10 { // 10 events x 5 attempts = 50 failures
		createLead(t, e, e.Key, map[string]any{"businessName": "Doomed"})
	}
	paused := watcher.wait(t, 1)[0]
	if paused.env.Event != "app.webhook_paused" || paused.env.Data["subscriptionId"] != id || paused.env.Data["consecutiveFailures"] != 50.0 {
		t.Fatalf("paused event = %+v", paused.env)
	}
	if n := len(failing.wait(t, 50)); n != 50 {
		t.Errorf("failing endpoint got %d attempts before the pause, want exactly 50", n)
	}
	list := e.Get("/v1/app-webhooks", e.Key).Items()
	var sub map[string]any
	for _, it := range list {
		if it["id"] == id {
			sub = it["attributes"].(map[string]any)
		}
	}
	if sub["isActive"] != false || sub["pausedReason"] == nil || sub["pausedAt"] == nil {
		t.Fatalf("subscription = %v", sub)
	}
	if at, _ := paused.env.Data["pausedAt"].(string); at != sub["pausedAt"] || !millisUTC.MatchString(at) {
		t.Errorf("event pausedAt = %q, subscription pausedAt = %v: want the same, to the millisecond", at, sub["pausedAt"])
	}
	// Paused: new events are not sent to it.
	createLead(t, e, e.Key, map[string]any{"businessName": "While paused"})
	time.Sleep(200 * time.Millisecond)
	if n := len(failing.wait(t, 50)); n != 50 {
		t.Errorf("a paused subscription got %d attempts", n)
	}
	// Resume.
	failing.setRespond(ok)
	r := e.Patch("/v1/app-webhooks/"+id, e.Key, map[string]any{"isActive": true})
	mustStatus(t, r, http.StatusOK)
	if r.Attr("isActive") != true || r.Attr("consecutiveFailures") != 0.0 || r.Attr("pausedReason") != nil {
		t.Errorf("resumed = %s", r.Raw)
	}
	createLead(t, e, e.Key, map[string]any{"businessName": "After resume"})
	failing.wait(t, 51)
}

func TestGonePausesAtOnce(t *testing.T) {
	e := resttest.New(t)
	rc := newReceiver(t, func(int) int { return http.StatusGone })
	id, _ := subscribe(t, e, rc.URL, "lead.created")
	createLead(t, e, e.Key, map[string]any{"businessName": "Gone"})
	rc.wait(t, 1)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		for _, it := range e.Get("/v1/app-webhooks", e.Key).Items() {
			a := it["attributes"].(map[string]any)
			if it["id"] == id && a["isActive"] == false {
				if a["pausedReason"] != "the endpoint answered 410 Gone" {
					t.Errorf("reason = %v", a["pausedReason"])
				}
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("a 410 did not pause the subscription")
}

func TestRetryAfterHonoured(t *testing.T) {
	e := resttest.New(t, fastRetries(0, 10*time.Millisecond, 10*time.Millisecond, 10*time.Millisecond, 10*time.Millisecond))
	rc := newReceiverWithHeader(t, func(n int) int {
		if n == 1 {
			return http.StatusTooManyRequests
		}
		return http.StatusOK
	}, http.Header{"Retry-After": {"1"}})
	subscribe(t, e, rc.URL, "lead.created")
	createLead(t, e, e.Key, map[string]any{"businessName": "Slow down"})
	got := rc.wait(t, 2)
	if gap := got[1].at.Sub(got[0].at); gap < time.Second {
		t.Errorf("retried after %s despite Retry-After: 1", gap)
	}
}

// A receiver that hangs until the timeout holds one delivery slot, not the
// deliveries of other endpoints behind it.
func TestSlowReceiverDoesNotHoldOthers(t *testing.T) {
	e := resttest.New(t, func(c *rest.Config) { c.Webhooks.Timeout = 3 * time.Second })
	release := make(chan struct{})
	slow := newReceiver(t, func(int) int { <-release; return http.StatusOK })
	t.Cleanup(func() { close(release) })
	fast := newReceiver(t, ok)
	subscribe(t, e, slow.URL, "lead.created")
	createLead(t, e, e.Key, map[string]any{"businessName": "Stuck"})
	time.Sleep(100 * time.Millisecond) // the slow delivery is in flight
	subscribe(t, e, fast.URL, "lead.created")
	sent := time.Now()
	createLead(t, e, e.Key, map[string]any{"businessName": "Not stuck"})
	fast.wait(t, 1)
	if waited := time.Since(sent); waited > 2*time.Second {
		t.Errorf("the fast endpoint waited %s behind the slow one", waited)
	}
}

// A receiver that resets the connection, then one that never answers
// within the delivery timeout: both are failed attempts (recorded with
// their error) that are retried under the same X-Webhook-Id, and the
// delivery succeeds once the receiver behaves.
func TestReceiverResetsAndTimeouts(t *testing.T) {
	e := resttest.New(t, fastRetries(0, 50*time.Millisecond, 50*time.Millisecond, 50*time.Millisecond, 50*time.Millisecond),
		func(c *rest.Config) { c.Webhooks.Timeout = 200 * time.Millisecond })
	var attempts atomic.Int32
	ids := make(chan string, 10)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ids <- r.Header.Get("X-Webhook-Id")
		switch attempts.Add(1) {
		case 1: // reset: close the TCP connection without an answer
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.(*net.TCPConn).SetLinger(0)
				conn.Close()
			}
		case 2: // too slow: answer after the timeout
			time.Sleep(500 * time.Millisecond)
		}
	}))
	defer recv.Close()
	subscribe(t, e, recv.URL, "lead.created")
	createLead(t, e, e.Key, map[string]any{"businessName": "Flaky receiver"})
	deadline := time.Now().Add(10 * time.Second)
	for deliveries(t, e, webhookdelivery.StatusSucceeded) != 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if deliveries(t, e, webhookdelivery.StatusSucceeded) != 1 {
		t.Fatalf("not delivered after a reset and a timeout (%d attempts)", attempts.Load())
	}
	first := <-ids
	for range 2 {
		if id := <-ids; id != first {
			t.Fatalf("a retry changed X-Webhook-Id: %s then %s", first, id)
		}
	}
	d, err := e.DB.Client.WebhookDelivery.Query().WithAttemptLog().Only(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Edges.AttemptLog) != 3 || d.Edges.AttemptLog[0].Error == nil || d.Edges.AttemptLog[1].Error == nil {
		t.Fatalf("attempt log: %d attempts, want 3 with the first two failed and explained", len(d.Edges.AttemptLog))
	}
}
