package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/lendingpipe/svc/ent/agentpresence"
	"github.com/lendingpipe/svc/ent/apikey"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
)

const (
	presenceSubscription = "subscription { agentPresenceChanged { userId status callsToday dispositionCount } }"
	eventsSubscription   = "subscription { events { id event timestamp data } }"
)

// wsClient is a websocket client of one of the two protocols.
type wsClient struct {
	t     *testing.T
	conn  *websocket.Conn
	proto string
}

// dialWS opens a websocket to /graphql with proto ("graphql-transport-ws"
// or "graphql-ws"); header is sent on the upgrade.
func dialWS(t *testing.T, e *resttest.Env, proto string, header http.Header) *wsClient {
	t.Helper()
	dialer := websocket.Dialer{Subprotocols: []string{proto}}
	conn, resp, err := dialer.Dial("ws"+strings.TrimPrefix(e.Server.URL, "http")+"/graphql", header)
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	t.Cleanup(func() { conn.Close() })
	return &wsClient{t: t, conn: conn, proto: proto}
}

func (c *wsClient) send(m wsMessage) {
	c.t.Helper()
	if err := c.conn.WriteJSON(m); err != nil {
		c.t.Fatalf("sending %s: %v", m.Type, err)
	}
}

// read returns the next message, or the close error that ended the socket.
func (c *wsClient) read(timeout time.Duration) (wsMessage, error) {
	_ = c.conn.SetReadDeadline(time.Now().Add(timeout))
	for {
		_, data, err := c.conn.ReadMessage()
		if err != nil {
			return wsMessage{}, err
		}
		var m struct {
			wsMessage
			Payload json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			return wsMessage{}, fmt.Errorf("reading %s: %w", data, err)
		}
		m.Raw = data
		_ = json.Unmarshal(m.Payload, &m.wsMessage.Payload) // a list stays in Raw only
		if m.Type == "ka" {
			continue // graphql-ws keep-alive
		}
		return m.wsMessage, nil
	}
}

// init sends connection_init with key in its payload and returns the answer.
func (c *wsClient) init(key string) (wsMessage, error) {
	c.t.Helper()
	payload := map[string]any{}
	if key != "" {
		payload["Authorization"] = "Bearer " + key
	}
	c.send(wsMessage{Type: "connection_init", Payload: payload})
	return c.read(5 * time.Second)
}

// mustInit authenticates with key and expects the ack.
func (c *wsClient) mustInit(key string) {
	c.t.Helper()
	if ack, err := c.init(key); err != nil || ack.Type != "connection_ack" {
		c.t.Fatalf("got %+v, %v; want connection_ack", ack, err)
	}
}

// start sends an operation under id.
func (c *wsClient) start(id, query string) {
	c.t.Helper()
	typ := "subscribe"
	if c.proto == "graphql-ws" {
		typ = "start"
	}
	c.send(wsMessage{ID: id, Type: typ, Payload: map[string]any{"query": query}})
}

// mustBeOpen checks that the socket still answers a ping
// (graphql-transport-ws) and that nothing else arrived before the pong.
func (c *wsClient) mustBeOpen() {
	c.t.Helper()
	c.send(wsMessage{Type: "ping"})
	if m, err := c.read(5 * time.Second); err != nil || m.Type != "pong" {
		c.t.Fatalf("got %+v, %v; want the socket open and a pong", m, err)
	}
}

// closed reads until the socket closes and returns its close code and
// reason, with the messages read before.
func (c *wsClient) closed(timeout time.Duration) (code int, reason string, before []wsMessage) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		m, err := c.read(time.Until(deadline))
		var ce *websocket.CloseError
		switch {
		case errors.As(err, &ce):
			return ce.Code, ce.Text, before
		case err != nil:
			c.t.Fatalf("reading: %v (after %+v), want a close frame", err, before)
		}
		before = append(before, m)
	}
	c.t.Fatalf("the socket stayed open for %s (read %+v)", timeout, before)
	return 0, "", nil
}

// wsErrorCode is extensions.code of the first error of an answer: of a
// result's errors, or of an error message's list.
func wsErrorCode(m wsMessage) string {
	errs, _ := m.Payload["errors"].([]any)
	if m.Type == "error" {
		var whole struct{ Payload []any }
		_ = json.Unmarshal(m.Raw, &whole)
		errs = whole.Payload
	}
	if len(errs) == 0 {
		return ""
	}
	first, _ := errs[0].(map[string]any)
	ext, _ := first["extensions"].(map[string]any)
	code, _ := ext["code"].(string)
	return code
}

// TestWebsocketAckCarriesNoKey: the ack must not echo the init payload,
// which holds the key.
func TestWebsocketAckCarriesNoKey(t *testing.T) {
	e := resttest.New(t)
	for _, proto := range []string{"graphql-transport-ws", "graphql-ws"} {
		t.Run(proto, func(t *testing.T) {
			c := dialWS(t, e, proto, nil)
			ack, err := c.init(e.Key)
			if err != nil || ack.Type != "connection_ack" {
				t.Fatalf("got %+v, %v; want connection_ack", ack, err)
			}
			if len(ack.Payload) != 0 {
				t.Errorf("ack payload = %v, want none", ack.Payload)
			}
		})
	}
}

// TestWebsocketRefusedKeyCloses4403: a key refused at connection_init
// closes the socket with 4403, PROTOCOL.md's code for a refused
// connection; on the upgrade it is an HTTP 401.
func TestWebsocketRefusedKeyCloses4403(t *testing.T) {
	e := resttest.New(t)
	ctx := rule.SystemContext(context.Background())
	revoked := e.NewKey(e.Org.ID, viewer.AllScopes...)
	expired := e.NewKey(e.Org.ID, viewer.AllScopes...)
	deleted := e.NewKey(e.Org.ID, viewer.AllScopes...)
	must(t, e.DB.Client.APIKey.Update().Where(apikey.Hash(store.Hash(revoked))).SetRevokedAt(time.Now()).Exec(ctx))
	must(t, e.DB.Client.APIKey.Update().Where(apikey.Hash(store.Hash(expired))).SetExpiresAt(time.Now().Add(-time.Minute)).Exec(ctx))
	_, err := e.DB.Client.APIKey.Delete().Where(apikey.Hash(store.Hash(deleted))).Exec(ctx)
	must(t, err)
	keys := map[string]string{
		"missing": "", "unknown": "svc_live_wrongwrongwrongwrongwrong",
		"revoked": revoked, "expired": expired, "deleted": deleted,
	}
	for _, proto := range []string{"graphql-transport-ws", "graphql-ws"} {
		for name, key := range keys {
			t.Run(proto+"/"+name, func(t *testing.T) {
				c := dialWS(t, e, proto, nil)
				if key == "" {
					c.send(wsMessage{Type: "connection_init"})
				} else {
					c.send(wsMessage{Type: "connection_init", Payload: map[string]any{"Authorization": "Bearer " + key}})
				}
				code, reason, before := c.closed(5 * time.Second)
				if code != graph.CloseForbidden {
					t.Errorf("close code %d (%q), want %d", code, reason, graph.CloseForbidden)
				}
				for _, m := range before {
					if m.Type == "connection_ack" {
						t.Errorf("the key was acknowledged")
					}
				}
			})
		}
	}
	t.Run("upgrade header", func(t *testing.T) {
		dialer := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
		_, resp, err := dialer.Dial("ws"+strings.TrimPrefix(e.Server.URL, "http")+"/graphql",
			http.Header{"Authorization": {"Bearer " + revoked}})
		if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("upgrade with a revoked key: %v, %v; want HTTP 401", err, resp)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestWebsocketKeyRechecked: an open socket closes with 4401 once its key
// is revoked, expires or is deleted, whichever way it authenticated.
func TestWebsocketKeyRechecked(t *testing.T) {
	e := resttest.New(t, func(c *rest.Config) { c.GraphQL.WSRecheckInterval = 50 * time.Millisecond })
	ctx := rule.SystemContext(context.Background())
	cases := []struct {
		name   string
		header bool // the key on the upgrade rather than in connection_init
		end    func(hash string) error
	}{
		{"revoked", false, func(h string) error {
			return e.DB.Client.APIKey.Update().Where(apikey.Hash(h)).SetRevokedAt(time.Now()).Exec(ctx)
		}},
		{"revoked, key on the upgrade", true, func(h string) error {
			return e.DB.Client.APIKey.Update().Where(apikey.Hash(h)).SetRevokedAt(time.Now()).Exec(ctx)
		}},
		{"expired", false, func(h string) error {
			return e.DB.Client.APIKey.Update().Where(apikey.Hash(h)).SetExpiresAt(time.Now()).Exec(ctx)
		}},
		{"deleted", false, func(h string) error {
			_, err := e.DB.Client.APIKey.Delete().Where(apikey.Hash(h)).Exec(ctx)
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			key := e.NewKey(e.Org.ID, viewer.AllScopes...)
			var header http.Header
			if tc.header {
				header = http.Header{"Authorization": {"Bearer " + key}}
			}
			c := dialWS(t, e, "graphql-transport-ws", header)
			c.mustInit(key)
			c.start("1", presenceSubscription)
			time.Sleep(150 * time.Millisecond) // a few re-checks pass while the key is valid
			c.mustBeOpen()
			must(t, tc.end(store.Hash(key)))
			code, reason, _ := c.closed(5 * time.Second)
			if code != graph.CloseUnauthorized {
				t.Errorf("close code %d (%q), want %d", code, reason, graph.CloseUnauthorized)
			}
		})
	}
}

// TestWebsocketOperationsShareRateLimit: each operation over the socket
// draws from its key's budget, the one its HTTP requests draw from.
func TestWebsocketOperationsShareRateLimit(t *testing.T) {
	e := resttest.New(t, func(c *rest.Config) { c.RateLimit, c.RateWindow = 4, time.Minute })
	for range 2 {
		if r := e.Get("/v1/dialer/agents", e.Key); r.Status != http.StatusOK {
			t.Fatalf("GET: %d %s", r.Status, r.Raw)
		}
	}
	c := dialWS(t, e, "graphql-transport-ws", nil)
	c.mustInit(e.Key)
	c.start("1", "query { agentsBoard { totalCount } }")
	c.start("2", "query { agentsBoard { totalCount } }")
	// The two run at once, so their messages may interleave: each must get
	// its result without an error, then complete, in whatever order.
	seen := map[string][]string{}
	for range 4 {
		m, err := c.read(5 * time.Second)
		if err != nil || wsErrorCode(m) != "" {
			t.Fatalf("within the budget: %+v, %v", m, err)
		}
		seen[m.ID] = append(seen[m.ID], m.Type)
	}
	for _, id := range []string{"1", "2"} {
		if got := strings.Join(seen[id], ","); got != "next,complete" {
			t.Fatalf("operation %s: messages %s, want next,complete", id, got)
		}
	}
	c.start("3", "query { agentsBoard { totalCount } }")
	if m, err := c.read(5 * time.Second); err != nil || m.Type != "error" || !strings.Contains(string(m.Raw), "RATE_LIMITED") {
		t.Errorf("operation 3 answered %s %s, %v; want an error message RATE_LIMITED", m.Type, m.Raw, err)
	}
	c.mustBeOpen() // PROTOCOL.md keeps 4429 for a second connection_init
	if r := e.Get("/v1/dialer/agents", e.Key); r.Status != http.StatusTooManyRequests {
		t.Errorf("GET after the socket spent the budget: %d, want 429", r.Status)
	}
}

// TestWebsocketSubscriptionCap: one key holds at most WSMaxSubscriptions
// subscriptions across its sockets; another key is not affected, and a
// closed subscription frees its place.
func TestWebsocketSubscriptionCap(t *testing.T) {
	e := resttest.New(t, func(c *rest.Config) { c.GraphQL.WSMaxSubscriptions = 2 })
	first := dialWS(t, e, "graphql-transport-ws", nil)
	first.mustInit(e.Key)
	first.start("1", presenceSubscription)
	second := dialWS(t, e, "graphql-ws", nil)
	second.mustInit(e.Key)
	second.start("1", eventsSubscription) // every kind of subscription counts
	time.Sleep(100 * time.Millisecond)

	other := dialWS(t, e, "graphql-transport-ws", nil)
	other.mustInit(e.NewKey(e.Org.ID, viewer.AllScopes...))
	other.start("1", presenceSubscription)

	third := dialWS(t, e, "graphql-transport-ws", nil)
	third.mustInit(e.Key)
	third.start("1", eventsSubscription)
	if m, err := third.read(5 * time.Second); err != nil || m.Type != "error" || m.ID != "1" ||
		!strings.Contains(string(m.Raw), "RATE_LIMITED") || !strings.Contains(string(m.Raw), "2 open subscriptions") {
		t.Errorf("the third subscription answered %s %s, %v; want an error message RATE_LIMITED naming the cap", m.Type, m.Raw, err)
	}
	third.mustBeOpen() // the refusal ends the operation, not the socket
	other.mustBeOpen()
	// A completed subscription frees its place: the key may open one again.
	first.send(wsMessage{ID: "1", Type: "complete"})
	first.mustBeOpen()
	time.Sleep(50 * time.Millisecond)
	third.start("2", presenceSubscription)
	third.mustBeOpen()
}

// TestWebsocketInitTimeout: a socket that never sends connection_init is
// closed.
func TestWebsocketInitTimeout(t *testing.T) {
	e := resttest.New(t, func(c *rest.Config) { c.GraphQL.WSInitTimeout = 100 * time.Millisecond })
	c := dialWS(t, e, "graphql-transport-ws", nil)
	start := time.Now()
	code, reason, _ := c.closed(3 * time.Second)
	if took := time.Since(start); took > time.Second || code != graph.CloseInitTimeout {
		t.Errorf("closed %d %q after %s, want %d within a second", code, reason, took, graph.CloseInitTimeout)
	}
}

// TestWebsocketForbiddenCloses4403: an operation refused for a scope the
// key lacks is answered FORBIDDEN, then the socket closes with 4403.
func TestWebsocketForbiddenCloses4403(t *testing.T) {
	e := resttest.New(t)
	c := dialWS(t, e, "graphql-transport-ws", nil)
	c.mustInit(e.NewKey(e.Org.ID, viewer.ScopeDialerWrite))
	c.start("1", "query { leads(first: 1) { totalCount } }")
	code, reason, before := c.closed(5 * time.Second)
	if code != graph.CloseForbidden {
		t.Errorf("close %d %q, want %d", code, reason, graph.CloseForbidden)
	}
	if len(before) == 0 || wsErrorCode(before[0]) != "FORBIDDEN" {
		t.Errorf("answered %+v, want a FORBIDDEN error first", before)
	}
}

// TestWebsocketRefusesMutations: a mutation over the socket is refused
// with BAD_REQUEST and commits nothing; the socket goes on serving.
func TestWebsocketRefusesMutations(t *testing.T) {
	e := resttest.New(t)
	agent := e.NewUser(e.Org.ID, "Mo", "Socket", "agent", "")
	for _, proto := range []string{"graphql-transport-ws", "graphql-ws"} {
		t.Run(proto, func(t *testing.T) {
			c := dialWS(t, e, proto, nil)
			c.mustInit(e.Key)
			c.start("1", fmt.Sprintf(`mutation { updatePresence(input: {userId: %q, status: online}) { status } }`, agent.ID))
			m, err := c.read(5 * time.Second)
			if err != nil || wsErrorCode(m) != "BAD_REQUEST" || !strings.Contains(string(m.Raw), "POST /graphql") {
				t.Fatalf("got %+v, %v; want a BAD_REQUEST error pointing at POST /graphql", m, err)
			}
			n, err := e.DB.Client.AgentPresence.Query().Where(agentpresence.UserID(agent.ID)).Count(rule.SystemContext(context.Background()))
			if err != nil || n != 0 {
				t.Fatalf("presence rows after a refused mutation: %d, %v", n, err)
			}
			if proto == "graphql-ws" { // graphql-transport-ws: no complete after an error
				if m, err := c.read(5 * time.Second); err != nil || m.Type != "complete" {
					t.Fatalf("got %+v, %v; want complete", m, err)
				}
			}
			c.start("2", "query { agentsBoard { totalCount } }")
			if m, err := c.read(5 * time.Second); err != nil || wsErrorCode(m) != "" {
				t.Fatalf("a query after the refusal: %+v, %v", m, err)
			}
		})
	}
}

// A query over the socket runs under the same deadline as one over HTTP,
// while a subscription on the same socket outlives it.
func TestWebsocketQueryDeadline(t *testing.T) {
	e := resttest.New(t, withGraphQL(graph.HandlerConfig{Timeout: time.Nanosecond}))
	for _, proto := range []string{"graphql-transport-ws", "graphql-ws"} {
		t.Run(proto, func(t *testing.T) {
			c := dialWS(t, e, proto, nil)
			c.mustInit(e.Key)
			c.start("1", "subscription { agentPresenceChanged { userId } }")
			c.start("2", "query { agentsBoard { totalCount } }")
			m, err := c.read(5 * time.Second)
			if err != nil || wsErrorCode(m) != "SERVICE_UNAVAILABLE" || !strings.Contains(fmt.Sprint(m.Payload), "deadline") {
				t.Fatalf("got %+v, %v; want SERVICE_UNAVAILABLE naming the deadline", m, err)
			}
			if m, err := c.read(5 * time.Second); err != nil || m.Type != "complete" || m.ID != "2" {
				t.Fatalf("got %+v, %v; want the query complete", m, err)
			}
			if proto == "graphql-transport-ws" { // the older protocol has no ping
				c.mustBeOpen()
			}
		})
	}
}

// TestWebsocketRefusedOperationsSpendRateBudget: an operation refused by
// parsing, validation or a bound is counted against the key's rate budget
// as one that runs, so refused operations cannot be sent for free.
func TestWebsocketRefusedOperationsSpendRateBudget(t *testing.T) {
	e := resttest.New(t, func(c *rest.Config) { c.RateLimit, c.RateWindow = 4, time.Minute })
	c := dialWS(t, e, "graphql-transport-ws", nil)
	c.mustInit(e.Key)
	refused := []string{
		"{ leads(first: 100000) { totalCount } }",
		"{ leads(first: 100000) { totalCount } }",
		"{ leads(first: ",
		"{ noSuchField }",
	}
	for i, query := range refused {
		id := fmt.Sprint(i + 1)
		c.start(id, query)
		// A refusal before the operation runs is an "error" message whose
		// payload is the list, and nothing follows it.
		m, err := c.read(5 * time.Second)
		if err != nil || m.Type != "error" || !strings.Contains(string(m.Raw), `"code"`) || strings.Contains(string(m.Raw), "RATE_LIMITED") {
			t.Fatalf("operation %s (%s): %s %s, %v; want it refused for what it asks", id, query, m.Type, m.Raw, err)
		}
	}
	c.start("5", "{ leads(first: 100000) { totalCount } }")
	if m, err := c.read(5 * time.Second); err != nil || m.Type != "error" || wsErrorCode(m) != "RATE_LIMITED" {
		t.Errorf("operation 5 answered %s %s, %v; want an error message RATE_LIMITED", m.Type, m.Raw, err)
	}
	c.mustBeOpen()
	if r := e.Get("/v1/dialer/agents", e.Key); r.Status != http.StatusTooManyRequests {
		t.Errorf("GET after refused operations spent the budget: %d, want 429", r.Status)
	}
}

// continuation is the opcode of a message's frames after its first.
const continuation = 0

// wsFrame is a masked client frame announcing a payload of announce bytes
// and carrying payload (zero mask: the payload travels as it is).
func wsFrame(fin bool, opcode byte, payload []byte, announce uint64) []byte {
	first := opcode
	if fin {
		first |= 0x80
	}
	var f []byte
	switch {
	case announce < 126:
		f = []byte{first, 0x80 | byte(announce)}
	case announce <= 0xffff:
		f = []byte{first, 0x80 | 126, byte(announce >> 8), byte(announce)}
	default:
		f = []byte{first, 0x80 | 127}
		for s := 56; s >= 0; s -= 8 {
			f = append(f, byte(announce>>s))
		}
	}
	f = append(f, 0, 0, 0, 0)
	return append(f, payload...)
}

// initOfSize is a connection_init message of exactly size bytes, carrying
// key when set.
func initOfSize(t *testing.T, key string, size int) []byte {
	t.Helper()
	payload := map[string]any{"pad": ""}
	if key != "" {
		payload["Authorization"] = "Bearer " + key
	}
	b, err := json.Marshal(wsMessage{Type: "connection_init", Payload: payload})
	must(t, err)
	payload["pad"] = strings.Repeat("x", size-len(b))
	b, err = json.Marshal(wsMessage{Type: "connection_init", Payload: payload})
	must(t, err)
	if len(b) != size {
		t.Fatalf("connection_init of %d bytes, want %d", len(b), size)
	}
	return b
}

// TestWebsocketMessageSizeLimit: every message a client sends, before
// authentication too, is bounded by the HTTP body limit; one over it closes
// the socket with 1009 as soon as its frame header says so, and a session
// within it works.
func TestWebsocketMessageSizeLimit(t *testing.T) {
	const limit = 4096
	e := resttest.New(t, func(c *rest.Config) { c.MaxBodyBytes = limit })
	over := initOfSize(t, "", limit+1)
	for _, tc := range []struct {
		name   string
		frames func(c *wsClient) [][]byte
	}{
		{"one frame", func(*wsClient) [][]byte {
			return [][]byte{wsFrame(true, websocket.TextMessage, over, uint64(len(over)))}
		}},
		{"fragments", func(*wsClient) [][]byte {
			return [][]byte{
				wsFrame(false, websocket.TextMessage, over[:limit/2], limit/2),
				wsFrame(true, websocket.PingMessage, nil, 0),
				wsFrame(false, continuation, over[limit/2:limit], limit/2),
				wsFrame(true, continuation, over[limit:], 1),
			}
		}},
		// Only the header of a 64 MiB frame is sent: the refusal cannot
		// wait for its payload.
		{"announced only", func(*wsClient) [][]byte {
			return [][]byte{wsFrame(true, websocket.TextMessage, []byte(`{"type":`), 64<<20)}
		}},
		{"after the ack", func(c *wsClient) [][]byte {
			c.mustInit(e.Key)
			return [][]byte{wsFrame(true, websocket.TextMessage, over, uint64(len(over)))}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialWS(t, e, "graphql-transport-ws", nil)
			for _, f := range tc.frames(c) {
				if _, err := c.conn.UnderlyingConn().Write(f); err != nil {
					t.Fatalf("writing: %v", err)
				}
			}
			code, reason, before := c.closed(5 * time.Second)
			if code != websocket.CloseMessageTooBig || !strings.Contains(reason, fmt.Sprint(limit)) {
				t.Errorf("close %d %q (after %+v), want %d naming %d bytes", code, reason, before, websocket.CloseMessageTooBig, limit)
			}
		})
	}
	t.Run("at the limit", func(t *testing.T) {
		c := dialWS(t, e, "graphql-transport-ws", nil)
		must(t, c.conn.WriteMessage(websocket.TextMessage, initOfSize(t, e.Key, limit)))
		if ack, err := c.read(5 * time.Second); err != nil || ack.Type != "connection_ack" {
			t.Fatalf("got %+v, %v; want connection_ack", ack, err)
		}
		c.start("1", "query { agentsBoard { totalCount } }")
		if m, err := c.read(5 * time.Second); err != nil || m.Type != "next" || wsErrorCode(m) != "" {
			t.Fatalf("operation: %+v, %v", m, err)
		}
		if m, err := c.read(5 * time.Second); err != nil || m.Type != "complete" {
			t.Fatalf("operation: %+v, %v; want complete", m, err)
		}
		c.mustBeOpen()
	})
}
