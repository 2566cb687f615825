package rest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

// A dead-lettered delivery is listed with its attempts and can be replayed
// one by one, all together, or by time range; metrics count what happened.
func TestDeadLetterQueueAndReplay(t *testing.T) {
	e := resttest.New(t, fastRetries(0, time.Millisecond, time.Millisecond, time.Millisecond, time.Millisecond))
	rc := webhookstest.NewReceiver(t, func(int) int { return http.StatusInternalServerError })
	sub, _ := subscribe(t, e, rc.URL, "lead.created")
	start := time.Now().UTC().Add(-time.Second)
	createLead(t, e, e.Key, map[string]any{"businessName": "First"})
	createLead(t, e, e.Key, map[string]any{"businessName": "Second"})
	rc.Wait(t, 10)
	var dead []map[string]any
	deadline := time.Now().Add(5 * time.Second)
	for len(dead) < 2 && time.Now().Before(deadline) {
		r := e.Get("/v1/app-webhooks/"+sub+"/deliveries?status=dead", e.Key)
		mustStatus(t, r, http.StatusOK)
		dead = r.Items()
		time.Sleep(20 * time.Millisecond)
	}
	if len(dead) != 2 {
		t.Fatalf("dead-letter queue has %d deliveries, want 2", len(dead))
	}
	a := dead[0]["attributes"].(map[string]any)
	log := a["attemptLog"].([]any)
	if !strings.HasPrefix(dead[0]["id"].(string), "msg_") || a["attempts"] != 5.0 || len(log) != 5 || a["eventType"] != "lead.created" {
		t.Fatalf("dead delivery = %v", dead[0])
	}
	if first := log[0].(map[string]any); first["statusCode"] != 500.0 || first["latencyMs"] == nil {
		t.Errorf("attempt = %v", first)
	}

	rc.SetRespond(webhookstest.OK)
	t.Run("One", func(t *testing.T) {
		r := e.Post("/v1/app-webhooks/"+sub+"/deliveries/"+dead[0]["id"].(string)+"/replay", e.Key, nil)
		mustStatus(t, r, http.StatusAccepted)
		got := rc.Wait(t, 11)
		if got[10].Header.Get("X-Webhook-Id") != dead[0]["id"] {
			t.Errorf("replay used X-Webhook-Id %q, want %q", got[10].Header.Get("X-Webhook-Id"), dead[0]["id"])
		}
	})
	t.Run("AllDead", func(t *testing.T) {
		r := e.Post("/v1/app-webhooks/"+sub+"/replay", e.Key, map[string]any{})
		mustStatus(t, r, http.StatusAccepted)
		if r.Attr("queued") != 1.0 {
			t.Errorf("queued = %v, want the 1 still dead", r.Attr("queued"))
		}
		rc.Wait(t, 12)
	})
	t.Run("TimeRange", func(t *testing.T) {
		r := e.Post("/v1/app-webhooks/"+sub+"/replay", e.Key, map[string]any{"since": start.Format(time.RFC3339Nano)})
		mustStatus(t, r, http.StatusAccepted)
		if r.Attr("queued") != 2.0 {
			t.Errorf("queued = %v, want both events", r.Attr("queued"))
		}
		rc.Wait(t, 14)
	})
	t.Run("Errors", func(t *testing.T) {
		mustError(t, e.Get("/v1/app-webhooks/"+sub+"/deliveries?status=lost", e.Key), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "status")
		mustError(t, e.Post("/v1/app-webhooks/"+sub+"/replay", e.Key, map[string]any{"until": time.Now()}), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "since")
		_, otherKey := e.NewOrg("Other", viewer.AllScopes...)
		mustError(t, e.Get("/v1/app-webhooks/"+sub+"/deliveries", otherKey), http.StatusNotFound, "NOT_FOUND", "")
		mustError(t, e.Post("/v1/app-webhooks/"+sub+"/deliveries/"+dead[0]["id"].(string)+"/replay", otherKey, nil), http.StatusNotFound, "NOT_FOUND", "")
	})
	t.Run("Metrics", func(t *testing.T) {
		resp, err := http.Get(e.Server.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		names := []string{"svc_webhook_deliveries_sent_total", "svc_webhook_delivery_failures_total",
			"svc_webhook_dead_lettered_total", "svc_webhook_queue_depth", "svc_webhook_dead_letter_depth"}
		if e.DB.Dialect == dialect.SQLite {
			names = append(names, "svc_sqlite_transactions_total", "svc_sqlite_commits_total")
		}
		for _, name := range names {
			if !strings.Contains(string(body), "\n"+name+" ") {
				t.Errorf("metrics lack %s:\n%s", name, body)
			}
		}
	})
}
