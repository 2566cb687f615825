package rest_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/root"
)

// testRedisURL is the Redis the change bus tests use (SVC_TEST_REDIS_URL),
// or an address nothing is asked of (the bus connects only to listen).
func testRedisURL() string {
	if u := os.Getenv("SVC_TEST_REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:1/0"
}

// busReplicas starts two servers over one PostgreSQL database whose change
// bus is kind (a Redis one gets channels of its own).
func busReplicas(t *testing.T, kind string) []replica {
	t.Helper()
	if os.Getenv(storetest.EnvURL) == "" {
		t.Skip("needs PostgreSQL (SVC_TEST_DATABASE_URL): replicas share a database server")
	}
	url := storetest.URL(t)
	opts := store.Options{Bus: kind}
	if kind == store.BusRedis {
		if os.Getenv("SVC_TEST_REDIS_URL") == "" {
			t.Skip("needs Redis (SVC_TEST_REDIS_URL)")
		}
		opts.RedisURL, opts.RedisPrefix = testRedisURL(), "svc-test:"+uuid.NewString()+":"
	}
	cfg := replicaConfig(1_000_000)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	var out []replica
	for range 2 {
		db, err := store.Open(context.Background(), url, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if db.BusKind != kind {
			t.Fatalf("bus %q, want %q", db.BusKind, kind)
		}
		srv := httptest.NewServer(root.Handler(cfg, db, logger))
		t.Cleanup(srv.Close)
		out = append(out, replica{db: db, srv: srv})
	}
	return out
}

// wsClient is a graphql-transport-ws client of one subscription; one
// goroutine reads its messages (a websocket's read deadline, once past,
// breaks the connection).
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
	msgs chan map[string]any
}

func wsSubscribe(t *testing.T, baseURL, key, query string) *wsClient {
	t.Helper()
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
	conn, resp, err := d.Dial("ws"+strings.TrimPrefix(baseURL, "http")+"/graphql", nil)
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	t.Cleanup(func() { conn.Close() })
	c := &wsClient{t: t, conn: conn, msgs: make(chan map[string]any, 1024)}
	go func() {
		defer close(c.msgs)
		for {
			var m map[string]any
			if err := conn.ReadJSON(&m); err != nil {
				return
			}
			c.msgs <- m
		}
	}()
	c.write(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + key}})
	if m := c.read(5 * time.Second); m == nil || m["type"] != "connection_ack" {
		t.Fatalf("got %v, want connection_ack", m)
	}
	c.write(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{"query": query}})
	return c
}

func (c *wsClient) write(m map[string]any) {
	c.t.Helper()
	if err := c.conn.WriteJSON(m); err != nil {
		c.t.Fatal(err)
	}
}

// read returns the next message, or nil when none comes within d.
func (c *wsClient) read(d time.Duration) map[string]any {
	select {
	case m := <-c.msgs:
		return m
	case <-time.After(d):
		return nil
	}
}

// next is the data of the next "next" message for field, nil when none
// comes within d.
func (c *wsClient) next(field string, d time.Duration) map[string]any {
	c.t.Helper()
	m := c.read(d)
	if m == nil {
		return nil
	}
	if m["type"] != "next" {
		c.t.Fatalf("got %v, want a next message", m)
	}
	payload, _ := m["payload"].(map[string]any)
	data, _ := payload["data"].(map[string]any)
	got, _ := data[field].(map[string]any)
	if got == nil {
		c.t.Fatalf("got %v, want %s", m, field)
	}
	return got
}

// arrival is how long a change made on one replica may take to reach a
// subscriber on the other: generous, this is no speed target (BENCHMARKS.md
// has the measured latency).
const arrival = 5 * time.Second

// latencies logs the spread of the latencies measured.
func latencies(t *testing.T, what string, ds []time.Duration) {
	t.Helper()
	slices.Sort(ds)
	q := func(p float64) time.Duration { return ds[min(len(ds)-1, int(p*float64(len(ds))))] }
	t.Logf("%s: %d changes, p50 %s, p99 %s, max %s", what, len(ds), q(0.5).Round(100*time.Microsecond),
		q(0.99).Round(100*time.Microsecond), ds[len(ds)-1].Round(100*time.Microsecond))
}

// changes is how many changes each cross-replica test measures (the
// figure in BENCHMARKS.md uses 200).
func changes() int {
	if testing.Short() {
		return 20
	}
	return 200
}

// A dashboard on replica B sees the agents board changes a dialer posts to
// replica A, over PostgreSQL's LISTEN/NOTIFY or Redis.
func TestAgentsBoardAcrossReplicas(t *testing.T) {
	for _, kind := range []string{store.BusPostgres, store.BusRedis} {
		t.Run(kind, func(t *testing.T) {
			reps := busReplicas(t, kind)
			org, key := resttest.OrgWithKey(t, reps[0].db, "Board", viewer.AllScopes...)
			agent, err := store.CreateUser(context.Background(), reps[0].db.Client, store.UserSpec{
				OrgID: org.ID, First: "Ada", Last: "Agent", Email: "ada@example.com", Role: "agent"})
			if err != nil {
				t.Fatal(err)
			}
			_, otherKey := resttest.OrgWithKey(t, reps[0].db, "Other", viewer.AllScopes...)
			const q = "subscription { agentPresenceChanged { userId status currentCallId } }"
			sub := wsSubscribe(t, reps[1].srv.URL, key, q)
			other := wsSubscribe(t, reps[1].srv.URL, otherKey, q)
			post := func(call string) {
				code, body := send(t, "POST", reps[0].srv.URL+"/v1/dialer/presence", key, nil,
					fmt.Sprintf(`{"userId":%q,"status":"on_call","currentCallId":%q}`, agent.ID, call))
				if code != http.StatusOK {
					t.Fatalf("presence: %d %v", code, body)
				}
			}
			warmUp(t, sub, "agentPresenceChanged", func() { post("warm-up") })

			var ds []time.Duration
			for i := range changes() {
				call := fmt.Sprintf("c-%d", i)
				sent := time.Now()
				post(call)
				for {
					got := sub.next("agentPresenceChanged", arrival)
					if got == nil {
						t.Fatalf("change %d did not reach replica B within %s", i, arrival)
					}
					if got["currentCallId"] == call {
						break // an earlier change's row may still arrive first
					}
				}
				ds = append(ds, time.Since(sent))
			}
			latencies(t, "agents board across replicas over "+kind, ds)
			if m := other.read(200 * time.Millisecond); m != nil {
				t.Errorf("another organization's subscriber received %v", m)
			}
		})
	}
}

// warmUp repeats change until sub hears of it: the subscription starts
// on the server some time after the client sent it.
func warmUp(t *testing.T, sub *wsClient, field string, change func()) {
	t.Helper()
	for range 25 {
		change()
		if sub.next(field, 200*time.Millisecond) != nil {
			// Drain what the other warm-up changes sent.
			for sub.next(field, 100*time.Millisecond) != nil {
			}
			return
		}
	}
	t.Fatal("the subscription heard none of 25 changes")
}

// A subscriber on replica B gets the events of leads created through
// replica A, of the types it asked for only; another organization's
// subscriber and a key without leads:read get none of them; a mutation
// rolled back sends nothing.
func TestEventsAcrossReplicas(t *testing.T) {
	for _, kind := range []string{store.BusPostgres, store.BusRedis} {
		t.Run(kind, func(t *testing.T) {
			reps := busReplicas(t, kind)
			org, key := resttest.OrgWithKey(t, reps[0].db, "Events", viewer.AllScopes...)
			_, otherKey := resttest.OrgWithKey(t, reps[0].db, "Other", viewer.AllScopes...)
			lendingKey, _, err := store.CreateAPIKey(context.Background(), reps[0].db.Client, org.ID, "live", "lending", []string{viewer.ScopeLendingRead})
			if err != nil {
				t.Fatal(err)
			}
			const fields = "{ id event timestamp data }"
			created := wsSubscribe(t, reps[1].srv.URL, key, `subscription { events(types: ["lead.created"]) `+fields+` }`)
			other := wsSubscribe(t, reps[1].srv.URL, otherKey, `subscription { events `+fields+` }`)
			lendingOnly := wsSubscribe(t, reps[1].srv.URL, lendingKey, `subscription { events `+fields+` }`)
			create := func(name string) string {
				code, body := send(t, "POST", reps[0].srv.URL+"/v1/leads", key, nil, fmt.Sprintf(`{"businessName":%q}`, name))
				if code != http.StatusCreated {
					t.Fatalf("lead: %d %v", code, body)
				}
				return body["data"].(map[string]any)["id"].(string)
			}
			warmUp(t, created, "events", func() { create("Warm-up") })

			var ds []time.Duration
			for i := range changes() {
				name := fmt.Sprintf("Replicated %d", i)
				sent := time.Now()
				id := create(name)
				// An update, whose lead.updated the subscriber did not ask for.
				if code, body := send(t, "PATCH", reps[0].srv.URL+"/v1/leads/"+id, key, nil, fmt.Sprintf(`{"businessName":%q}`, name+" renamed")); code != http.StatusOK {
					t.Fatalf("patch: %d %v", code, body)
				}
				got := created.next("events", arrival)
				if got == nil {
					t.Fatalf("lead.created %d did not reach replica B within %s", i, arrival)
				}
				ds = append(ds, time.Since(sent))
				data, _ := got["data"].(map[string]any)
				if got["event"] != "lead.created" || data["leadId"] != id || data["businessName"] != name ||
					!strings.HasPrefix(got["id"].(string), "evt_") || got["timestamp"] == "" {
					t.Fatalf("got %v, want lead.created of %s", got, id)
				}
			}
			latencies(t, "lead.created events across replicas over "+kind, ds)

			// Rolled back: the second field fails, and the first's lead and
			// its event with it.
			code, body := send(t, "POST", reps[0].srv.URL+"/graphql", key, nil,
				`{"query":"mutation { a: createLead(input: {businessName: \"Rolled back\"}) { id } b: updateLead(id: \"`+uuid.NewString()+`\", input: {businessName: \"x\"}) { id } }"}`)
			if code != http.StatusOK || body["errors"] == nil {
				t.Fatalf("the failing mutation answered %d %v", code, body)
			}
			last := create("After the rollback")
			if got := created.next("events", arrival); got == nil || got["data"].(map[string]any)["leadId"] != last {
				t.Fatalf("after the rollback got %v, want the next lead's event (%s)", got, last)
			}
			for name, c := range map[string]*wsClient{"another organization": other, "a key without leads:read": lendingOnly} {
				if m := c.read(200 * time.Millisecond); m != nil {
					t.Errorf("%s received %v", name, m)
				}
			}
		})
	}
}

// The bus is chosen by the settings: Redis when a Redis URL is set,
// PostgreSQL's on PostgreSQL, memory otherwise.
func TestBusChoice(t *testing.T) {
	sqlite := t.TempDir() + "/svc.db"
	cases := []struct {
		url  string
		opts store.Options
		want string
	}{
		{sqlite, store.Options{}, store.BusMemory},
		{sqlite, store.Options{RedisURL: testRedisURL()}, store.BusRedis},
		{sqlite, store.Options{Bus: store.BusMemory, RedisURL: testRedisURL()}, store.BusMemory},
	}
	if os.Getenv(storetest.EnvURL) != "" {
		pg := storetest.URL(t)
		cases = append(cases, struct {
			url  string
			opts store.Options
			want string
		}{pg, store.Options{}, store.BusPostgres})
	}
	var wg sync.WaitGroup
	for _, c := range cases {
		db, err := store.Open(context.Background(), c.url, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if db.BusKind != c.want {
			t.Errorf("%s %+v: bus %q, want %q", c.url, c.opts, db.BusKind, c.want)
		}
		wg.Go(func() { db.Close() })
	}
	wg.Wait()
	for _, bad := range []store.Options{{Bus: store.BusPostgres}, {Bus: store.BusRedis}, {Bus: "kafka"}} {
		if _, err := store.Open(context.Background(), sqlite, bad); err == nil {
			t.Errorf("%+v on SQLite: no error", bad)
		}
	}
}
