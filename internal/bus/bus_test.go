package bus_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/redis/go-redis/v9"

	"github.com/lendingpipe/svc/internal/bus"
)

// recorder is a transport that keeps what is sent; block holds Send until
// its context ends.
type recorder struct {
	mu     sync.Mutex
	frames [][]byte
	block  bool
}

func (r *recorder) Send(ctx context.Context, _ bus.Topic, frame []byte) error {
	if r.block {
		<-ctx.Done()
		return ctx.Err()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.frames = append(r.frames, frame)
	return nil
}

func (r *recorder) Listen(ctx context.Context, _ func(bus.Topic, []byte), ready func()) {
	ready()
	<-ctx.Done()
}

func (r *recorder) Close() error { return nil }

// payloads unpacks the recorded frames.
func (r *recorder) payloads(t *testing.T) []string {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, f := range r.frames {
		if len(f) > bus.MaxFrame {
			t.Errorf("a frame of %d bytes, over %d", len(f), bus.MaxFrame)
		}
		var fr struct{ P []json.RawMessage }
		if err := json.Unmarshal(f, &fr); err != nil {
			t.Fatal(err)
		}
		for _, p := range fr.P {
			out = append(out, string(p))
		}
	}
	return out
}

// A burst of messages is packed into frames under the size limit, in
// order, and delivered here at once.
func TestFramesStayUnderTheLimit(t *testing.T) {
	rec := &recorder{}
	b := bus.New(rec, nil)
	defer b.Close()
	var local []string
	b.Subscribe(bus.Board, func(p []byte) { local = append(local, string(p)) })
	var want []string
	for i := range 1000 {
		p := fmt.Sprintf(`{"n":%d,"pad":%q}`, i, strings.Repeat("x", 90))
		want = append(want, p)
		b.Publish(bus.Board, json.RawMessage(p))
	}
	if fmt.Sprint(local) != fmt.Sprint(want) {
		t.Errorf("this process's subscriber got %d messages, want the %d published in order", len(local), len(want))
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(rec.payloads(t)) < len(want) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	got := rec.payloads(t)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("sent %d payloads, want the %d published in order", len(got), len(want))
	}
	if n := len(rec.frames); n >= len(want)/2 {
		t.Errorf("%d frames for %d messages: a burst was not packed", n, len(want))
	}
}

// A transport that never answers holds up no publisher: the queue fills
// and further messages are dropped.
func TestPublishNeverWaitsForTheTransport(t *testing.T) {
	b := bus.New(&recorder{block: true}, nil)
	defer b.Close()
	for i := range 20000 {
		b.Publish(bus.Events, json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)))
	}
}

// A PostgreSQL listener whose connection is killed connects and listens
// again, and hears the messages sent after.
func TestPostgresListenerReconnects(t *testing.T) {
	url := os.Getenv("SVC_TEST_DATABASE_URL")
	if url == "" {
		t.Skip("needs PostgreSQL (SVC_TEST_DATABASE_URL)")
	}
	// A search_path of its own: channels of their own.
	name := "bus_" + fmt.Sprint(time.Now().UnixNano())
	dsn := url + "&search_path=" + name + "&application_name=" + name
	if !strings.Contains(url, "?") {
		dsn = strings.Replace(dsn, "&", "?", 1)
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sender := bus.New(bus.NewPostgres(db, dsn, nil), nil)
	defer sender.Close()
	listener := bus.New(bus.NewPostgres(db, dsn, nil), nil)
	defer listener.Close()
	hearsAfterLoss(t, sender, listener, func() int64 {
		res, err := db.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, name)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := res.RowsAffected()
		return n
	})
}

// A Redis listener whose connection is killed subscribes again and hears
// the messages sent after.
func TestRedisListenerReconnects(t *testing.T) {
	url := os.Getenv("SVC_TEST_REDIS_URL")
	if url == "" {
		t.Skip("needs Redis (SVC_TEST_REDIS_URL)")
	}
	// Channels and a client name of its own, so that only this test's
	// listener is killed and only its messages are heard.
	name := fmt.Sprint("bus_", time.Now().UnixNano())
	newBus := func(clientName string) *bus.Bus {
		t.Helper()
		u := url + "?client_name=" + clientName
		if strings.Contains(url, "?") {
			u = url + "&client_name=" + clientName
		}
		tr, err := bus.NewRedis(u, name+":", nil)
		if err != nil {
			t.Fatal(err)
		}
		return bus.New(tr, nil)
	}
	sender := newBus(name + "_sender")
	defer sender.Close()
	listener := newBus(name + "_listener")
	defer listener.Close()
	admin, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(admin)
	defer rdb.Close()
	hearsAfterLoss(t, sender, listener, func() int64 {
		list, err := rdb.ClientList(context.Background()).Result()
		if err != nil {
			t.Fatal(err)
		}
		var killed int64
		for _, line := range strings.Split(list, "\n") {
			var id string
			for _, f := range strings.Fields(line) {
				if v, ok := strings.CutPrefix(f, "id="); ok {
					id = v
				}
				if f == "name="+name+"_listener" && id != "" {
					n, err := rdb.Do(context.Background(), "CLIENT", "KILL", "ID", id).Int64()
					if err != nil {
						t.Fatal(err)
					}
					killed += n
				}
			}
		}
		return killed
	})
}

// hearsAfterLoss checks that listener hears what sender publishes, then
// that it hears it again after kill has ended its connection (kill says
// how many connections it ended).
func hearsAfterLoss(t *testing.T, sender, listener *bus.Bus, kill func() int64) {
	t.Helper()
	got := make(chan string, 100)
	listener.Subscribe(bus.Events, func(p []byte) { got <- string(p) })
	hears := func(what string) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for i := 0; time.Now().Before(deadline); i++ {
			sender.Publish(bus.Events, json.RawMessage(fmt.Sprintf(`{"%s":%d}`, what, i)))
			select {
			case p := <-got:
				if strings.Contains(p, what) {
					return
				}
			case <-time.After(200 * time.Millisecond):
			}
		}
		t.Fatalf("the listener did not hear %s", what)
	}
	hears("before")
	if kill() == 0 {
		t.Fatal("found no listening connection to end")
	}
	hears("after")
}
