package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/root"
	"github.com/lendingpipe/svc/webhooks"
	"github.com/lendingpipe/svc/webhooks/autorun"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

// replica is one `svc serve` process's worth of server: its own pool,
// HTTP surface, delivery worker and automation runner.
type replica struct {
	db  *store.DB
	srv *httptest.Server
}

func startReplicas(t *testing.T, url string, n int, cfg rest.Config) []replica {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	var out []replica
	for range n {
		db, err := store.Open(ctx, url, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		srv := httptest.NewServer(root.Handler(cfg, db, logger))
		t.Cleanup(srv.Close)
		wg.Go(func() { autorun.Background(ctx, db, cfg.Webhooks, time.Now, logger) })
		out = append(out, replica{db: db, srv: srv})
	}
	return out
}

func replicaConfig(limit int) rest.Config {
	hooks := webhooks.DefaultConfig()
	hooks.AllowPrivate, hooks.AllowHTTP, hooks.Poll = true, true, 20*time.Millisecond
	return rest.Config{RateLimit: limit, RateWindow: time.Minute, MaxBodyBytes: 1 << 20, Webhooks: hooks,
		RedisURL: os.Getenv("SVC_TEST_REDIS_URL"), RedisPrefix: "svc-test:" + uuid.NewString()}
}

func send(t *testing.T, method, url, key string, header map[string]string, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, nil
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// Two replicas on one PostgreSQL: leads posted to both are each delivered
// once (delivery claims are shared through the database), and an
// Idempotency-Key sent to both creates one lead (so is idempotency).
func TestTwoReplicasOverHTTP(t *testing.T) {
	if os.Getenv(storetest.EnvURL) == "" {
		t.Skip("needs PostgreSQL (SVC_TEST_DATABASE_URL): replicas share a database server")
	}
	reps := startReplicas(t, storetest.URL(t), 2, replicaConfig(1_000_000))
	_, key := resttest.OrgWithKey(t, reps[0].db, "Replicated", viewer.AllScopes...)
	recv := webhookstest.NewReceiver(t, webhookstest.OK)
	if code, body := send(t, "POST", reps[1].srv.URL+"/v1/app-webhooks", key, nil,
		`{"url":"`+recv.URL+`","events":["lead.created"]}`); code != http.StatusCreated {
		t.Fatalf("subscribing: %d %v", code, body)
	}

	const n = 200
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			code, body := send(t, "POST", reps[i%2].srv.URL+"/v1/leads", key, nil, fmt.Sprintf(`{"businessName":"Replica %d"}`, i))
			if code != http.StatusCreated {
				t.Errorf("lead %d: %d %v", i, code, body)
			}
		})
	}
	// The same key on both replicas at once: one lead, and the other answer
	// is its replay or 409 while the first runs.
	idem := map[string]string{"Idempotency-Key": "replicas-" + uuid.NewString()}
	codes := make([]int, 2)
	for i := range 2 {
		wg.Go(func() {
			codes[i], _ = send(t, "POST", reps[i].srv.URL+"/v1/leads", key, idem, `{"businessName":"Once Only"}`)
		})
	}
	wg.Wait()
	for _, c := range codes {
		if c != http.StatusCreated && c != http.StatusConflict {
			t.Fatalf("idempotent pair answered %v", codes)
		}
	}
	_, list := send(t, "GET", reps[0].srv.URL+"/v1/leads?search=once+only", key, nil, "")
	if total := list["meta"].(map[string]any)["total"]; total != 1.0 {
		t.Fatalf("the idempotent pair made %v leads", total)
	}

	got := recv.Wait(t, n+1)
	time.Sleep(300 * time.Millisecond) // a duplicate would arrive now
	got = recv.Wait(t, n+1)
	ids, leads := map[string]bool{}, map[string]bool{}
	for _, d := range got {
		ids[d.Header.Get("X-Webhook-Id")] = true
		leads[fmt.Sprint(d.Env.Data["leadId"])] = true
	}
	if len(got) != n+1 || len(ids) != n+1 || len(leads) != n+1 {
		t.Fatalf("%d deliveries, %d distinct ids, %d distinct leads; want %d of each", len(got), len(ids), len(leads), n+1)
	}
}

// With SVC_REDIS_URL the replicas share one rate limit: 10 requests a
// minute in all, whichever replica they reach.
func TestRateLimitSharedThroughRedis(t *testing.T) {
	if os.Getenv("SVC_TEST_REDIS_URL") == "" {
		t.Skip("needs Redis (SVC_TEST_REDIS_URL)")
	}
	reps := startReplicas(t, storetest.URL(t), 2, replicaConfig(10))
	_, key := resttest.OrgWithKey(t, reps[0].db, "Limited", viewer.AllScopes...)
	for i := range 10 {
		if code, body := send(t, "GET", reps[i%2].srv.URL+"/v1/leads", key, nil, ""); code != http.StatusOK {
			t.Fatalf("request %d: %d %v", i, code, body)
		}
	}
	for i := range 2 {
		code, body := send(t, "GET", reps[i].srv.URL+"/v1/leads", key, nil, "")
		if code != http.StatusTooManyRequests {
			t.Fatalf("the 11th request on replica %d: %d %v", i, code, body)
		}
	}
}
