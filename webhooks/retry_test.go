package webhooks_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent/webhookdelivery"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

// Retries follow the schedule, keep their X-Webhook-Id, and the 5th
// failure moves the delivery to the dead-letter queue.
func TestRetryScheduleAndDeadLetter(t *testing.T) {
	schedule := []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond, 400 * time.Millisecond}
	e := newEnv(t, retries(schedule...))
	rc := webhookstest.NewReceiver(t, func(int) int { return http.StatusInternalServerError })
	e.subscribe(t, rc.URL, "lead.created")
	e.createLead(t, "Unlucky")
	got := rc.Wait(t, 5)
	id := got[0].Header.Get("X-Webhook-Id")
	for i := 1; i < 5; i++ {
		if got[i].Header.Get("X-Webhook-Id") != id {
			t.Errorf("attempt %d has X-Webhook-Id %q, want %q", i+1, got[i].Header.Get("X-Webhook-Id"), id)
		}
		if gap := got[i].At.Sub(got[i-1].At); gap < schedule[i] {
			t.Errorf("attempt %d came %s after the previous one, want at least %s", i+1, gap, schedule[i])
		}
		if string(got[i].Body) != string(got[0].Body) {
			t.Errorf("attempt %d body differs", i+1)
		}
	}
	if !e.awaitDeliveries(t, webhookdelivery.StatusDead, 1, 5*time.Second) {
		t.Fatalf("the delivery did not reach the dead-letter queue")
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(rc.Wait(t, 5)); n != 5 {
		t.Errorf("receiver got %d attempts, want exactly 5", n)
	}
}

func TestRetrySucceeds(t *testing.T) {
	e := newEnv(t, retries(0, 50*time.Millisecond, 50*time.Millisecond, 50*time.Millisecond, 50*time.Millisecond))
	rc := webhookstest.NewReceiver(t, func(n int) int {
		if n < 3 {
			return http.StatusBadGateway
		}
		return http.StatusNoContent
	})
	e.subscribe(t, rc.URL, "lead.created")
	e.createLead(t, "Third time")
	rc.Wait(t, 3)
	if !e.awaitDeliveries(t, webhookdelivery.StatusSucceeded, 1, 5*time.Second) {
		t.Fatal("delivery not marked succeeded after a 204")
	}
}

// 50 consecutive failures pause the subscription; the organization's other
// endpoint hears app.webhook_paused; PATCH isActive true resumes it.
// Resuming is an operation of the API, so this test runs the whole server.
func TestAutoPauseAndResume(t *testing.T) {
	e := resttest.New(t, func(c *rest.Config) {
		c.Webhooks.Schedule = []time.Duration{0, time.Millisecond, time.Millisecond, time.Millisecond, time.Millisecond}
	})
	failing := webhookstest.NewReceiver(t, func(int) int { return http.StatusInternalServerError })
	watcher := webhookstest.NewReceiver(t, webhookstest.OK)
	id := restSubscribe(t, e, failing.URL, "lead.created")
	restSubscribe(t, e, watcher.URL, "app.webhook_paused")
	for range 10 { // 10 events x 5 attempts = 50 failures
		restCreateLead(t, e, "Doomed")
	}
	paused := watcher.Wait(t, 1)[0]
	if paused.Env.Event != "app.webhook_paused" || paused.Env.Data["subscriptionId"] != id || paused.Env.Data["consecutiveFailures"] != 50.0 {
		t.Fatalf("paused event = %+v", paused.Env)
	}
	if n := len(failing.Wait(t, 50)); n != 50 {
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
	if at, _ := paused.Env.Data["pausedAt"].(string); at != sub["pausedAt"] || !millisUTC.MatchString(at) {
		t.Errorf("event pausedAt = %q, subscription pausedAt = %v: want the same, to the millisecond", at, sub["pausedAt"])
	}
	// Paused: new events are not sent to it.
	restCreateLead(t, e, "While paused")
	time.Sleep(200 * time.Millisecond)
	if n := len(failing.Wait(t, 50)); n != 50 {
		t.Errorf("a paused subscription got %d attempts", n)
	}
	// Resume.
	failing.SetRespond(webhookstest.OK)
	r := e.Patch("/v1/app-webhooks/"+id, e.Key, map[string]any{"isActive": true})
	if r.Status != http.StatusOK {
		t.Fatalf("resuming: %d %s", r.Status, r.Raw)
	}
	if r.Attr("isActive") != true || r.Attr("consecutiveFailures") != 0.0 || r.Attr("pausedReason") != nil {
		t.Errorf("resumed = %s", r.Raw)
	}
	restCreateLead(t, e, "After resume")
	failing.Wait(t, 51)
}

func TestGonePausesAtOnce(t *testing.T) {
	e := newEnv(t)
	rc := webhookstest.NewReceiver(t, func(int) int { return http.StatusGone })
	sub := e.subscribe(t, rc.URL, "lead.created")
	e.createLead(t, "Gone")
	rc.Wait(t, 1)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		s, err := e.db.Client.WebhookSubscription.Get(rule.SystemContext(context.Background()), sub.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !s.IsActive {
			if s.PausedReason == nil || *s.PausedReason != "the endpoint answered 410 Gone" {
				t.Errorf("reason = %v", s.PausedReason)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("a 410 did not pause the subscription")
}

func TestRetryAfterHonoured(t *testing.T) {
	e := newEnv(t, retries(0, 10*time.Millisecond, 10*time.Millisecond, 10*time.Millisecond, 10*time.Millisecond))
	rc := webhookstest.NewReceiverWithHeader(t, func(n int) int {
		if n == 1 {
			return http.StatusTooManyRequests
		}
		return http.StatusOK
	}, http.Header{"Retry-After": {"1"}})
	e.subscribe(t, rc.URL, "lead.created")
	e.createLead(t, "Slow down")
	got := rc.Wait(t, 2)
	if gap := got[1].At.Sub(got[0].At); gap < time.Second {
		t.Errorf("retried after %s despite Retry-After: 1", gap)
	}
}

// A receiver that hangs until the timeout holds one delivery slot, not the
// deliveries of other endpoints behind it.
func TestSlowReceiverDoesNotHoldOthers(t *testing.T) {
	e := newEnv(t, func(c *webhooks.Config) { c.Timeout = 3 * time.Second })
	release := make(chan struct{})
	slow := webhookstest.NewReceiver(t, func(int) int { <-release; return http.StatusOK })
	t.Cleanup(func() { close(release) })
	fast := webhookstest.NewReceiver(t, webhookstest.OK)
	e.subscribe(t, slow.URL, "lead.created")
	e.createLead(t, "Stuck")
	time.Sleep(100 * time.Millisecond) // the slow delivery is in flight
	e.subscribe(t, fast.URL, "lead.created")
	sent := time.Now()
	e.createLead(t, "Not stuck")
	fast.Wait(t, 1)
	if waited := time.Since(sent); waited > 2*time.Second {
		t.Errorf("the fast endpoint waited %s behind the slow one", waited)
	}
}

// A receiver that resets the connection, then one that never answers
// within the delivery timeout: both are failed attempts (recorded with
// their error) that are retried under the same X-Webhook-Id, and the
// delivery succeeds once the receiver behaves.
func TestReceiverResetsAndTimeouts(t *testing.T) {
	e := newEnv(t, retries(0, 50*time.Millisecond, 50*time.Millisecond, 50*time.Millisecond, 50*time.Millisecond),
		func(c *webhooks.Config) { c.Timeout = 200 * time.Millisecond })
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
	e.subscribe(t, recv.URL, "lead.created")
	e.createLead(t, "Flaky receiver")
	if !e.awaitDeliveries(t, webhookdelivery.StatusSucceeded, 1, 10*time.Second) {
		t.Fatalf("not delivered after a reset and a timeout (%d attempts)", attempts.Load())
	}
	first := <-ids
	for range 2 {
		if id := <-ids; id != first {
			t.Fatalf("a retry changed X-Webhook-Id: %s then %s", first, id)
		}
	}
	d, err := e.db.Client.WebhookDelivery.Query().WithAttemptLog().Only(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Edges.AttemptLog) != 3 || d.Edges.AttemptLog[0].Error == nil || d.Edges.AttemptLog[1].Error == nil {
		t.Fatalf("attempt log: %d attempts, want 3 with the first two failed and explained", len(d.Edges.AttemptLog))
	}
}
