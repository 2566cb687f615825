package rest_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/root"
)

// PostgreSQL goes away under load (a toxiproxy between the server and the
// database closes every connection and refuses new ones for a second):
// meanwhile the server answers 503 SERVICE_UNAVAILABLE, never 500; it
// recovers by itself; and every lead it acknowledged exists.
func TestDatabaseOutageUnderLoad(t *testing.T) {
	if os.Getenv(storetest.EnvURL) == "" {
		t.Skip("needs PostgreSQL (SVC_TEST_DATABASE_URL)")
	}
	direct := storetest.URL(t)
	u, _ := url.Parse(direct)
	proxy := toxiproxy.NewProxy(toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop()), "pg", "127.0.0.1:0", u.Host)
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	defer proxy.Stop()
	u.Host = proxy.Listen
	ctx := context.Background()
	db, err := store.Open(ctx, u.String(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, key := resttest.OrgWithKey(t, db, "Outage", viewer.AllScopes...)
	srv := httptest.NewServer(root.Handler(rest.Config{RateLimit: 1_000_000, RateWindow: time.Minute, MaxBodyBytes: 1 << 20},
		db, slog.New(slog.NewTextHandler(io.Discard, nil))))
	defer srv.Close()

	var (
		mu       sync.Mutex
		acked    []string
		statuses = map[int]int{}
		stop     atomic.Bool
		wg       sync.WaitGroup
		seq      atomic.Int64
	)
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				n := seq.Add(1)
				code, body := send(t, "POST", srv.URL+"/v1/leads", key, map[string]string{"Idempotency-Key": fmt.Sprint("outage-", n)},
					fmt.Sprintf(`{"businessName":"Outage %d"}`, n))
				mu.Lock()
				statuses[code]++
				if code == http.StatusCreated {
					acked = append(acked, body["data"].(map[string]any)["id"].(string))
				}
				mu.Unlock()
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	proxy.Stop() // every connection closed, new ones refused
	time.Sleep(time.Second)
	if code, _ := send(t, "GET", srv.URL+"/readyz", "", nil, ""); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz during the outage: %d", code)
	}
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	recovered := time.Now().Add(15 * time.Second)
	for {
		if code, _ := send(t, "GET", srv.URL+"/v1/leads", key, nil, ""); code == http.StatusOK {
			break
		}
		if time.Now().After(recovered) {
			t.Fatal("the server did not recover within 15 s of the database's return")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	stop.Store(true)
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	t.Logf("statuses: %v", statuses)
	if statuses[http.StatusInternalServerError] > 0 {
		t.Errorf("%d requests failed with 500 during the outage, want 503", statuses[http.StatusInternalServerError])
	}
	if statuses[http.StatusServiceUnavailable] == 0 {
		t.Error("no request met the outage; the test proved nothing")
	}
	check, err := store.Open(ctx, direct, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	for _, id := range acked {
		n, err := check.Client.Lead.Query().Where(lead.ID(uuid.MustParse(id))).Count(rule.SystemContext(ctx))
		if err != nil || n != 1 {
			t.Fatalf("acknowledged lead %s: %d rows, %v", id, n, err)
		}
	}
	if len(acked) == 0 {
		t.Fatal("nothing was acknowledged")
	}
}
