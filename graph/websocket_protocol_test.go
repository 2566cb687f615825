package graph_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks"
)

// TestWebsocketProtocolCloseCodes: graphql-transport-ws closes with the
// codes of graphql-ws's PROTOCOL.md, never 1000 (which clients take for a
// normal close) or 1002.
func TestWebsocketProtocolCloseCodes(t *testing.T) {
	e := resttest.New(t)
	subscribe := func(id string) wsMessage {
		return wsMessage{ID: id, Type: "subscribe", Payload: map[string]any{"query": presenceSubscription}}
	}
	for _, tc := range []struct {
		name   string
		steps  func(c *wsClient)
		code   int
		reason string
	}{
		{"not JSON", func(c *wsClient) {
			c.mustInit(e.Key)
			must(t, c.conn.WriteMessage(websocket.TextMessage, []byte("not json")))
		}, graph.CloseInvalidMessage, "Invalid message"},
		{"unknown type", func(c *wsClient) {
			c.mustInit(e.Key)
			c.send(wsMessage{ID: "1", Type: "start", Payload: map[string]any{"query": presenceSubscription}})
		}, graph.CloseInvalidMessage, "start"},
		{"subscribe without id", func(c *wsClient) {
			c.mustInit(e.Key)
			c.send(subscribe(""))
		}, graph.CloseInvalidMessage, "id"},
		{"subscribe without query", func(c *wsClient) {
			c.mustInit(e.Key)
			c.send(wsMessage{ID: "1", Type: "subscribe", Payload: map[string]any{"variables": map[string]any{}}})
		}, graph.CloseInvalidMessage, "query"},
		{"connection_init payload not an object", func(c *wsClient) {
			must(t, c.conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"connection_init","payload":"Bearer x"}`)))
		}, graph.CloseInvalidMessage, "payload"},
		{"subscribe before the ack", func(c *wsClient) {
			c.send(subscribe("1"))
		}, graph.CloseUnauthorized, "Unauthorized"},
		{"second connection_init", func(c *wsClient) {
			c.mustInit(e.Key)
			c.send(wsMessage{Type: "connection_init", Payload: map[string]any{"Authorization": "Bearer " + e.Key}})
		}, graph.CloseTooManyInits, "Too many initialisation requests"},
		{"duplicate id", func(c *wsClient) {
			c.mustInit(e.Key)
			c.send(subscribe("dup"))
			c.send(subscribe("dup"))
		}, graph.CloseSubscriberExists, "Subscriber for dup already exists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialWS(t, e, "graphql-transport-ws", nil)
			tc.steps(c)
			code, reason, before := c.closed(5 * time.Second)
			if code != tc.code || !strings.Contains(reason, tc.reason) {
				t.Errorf("close %d %q (after %+v), want %d naming %q", code, reason, before, tc.code, tc.reason)
			}
		})
	}
}

// TestWebsocketPingBeforeInit: PROTOCOL.md allows a ping at any time; it is
// answered with a pong carrying its payload, and the socket stays open.
func TestWebsocketPingBeforeInit(t *testing.T) {
	e := resttest.New(t)
	c := dialWS(t, e, "graphql-transport-ws", nil)
	c.send(wsMessage{Type: "ping", Payload: map[string]any{"n": "1"}})
	if m, err := c.read(5 * time.Second); err != nil || m.Type != "pong" || m.Payload["n"] != "1" {
		t.Fatalf("got %+v, %v; want a pong with the ping's payload", m, err)
	}
	c.mustInit(e.Key)
	c.mustBeOpen()
}

// TestWebsocketCompleteStopsSubscription: a client's complete stops the
// subscription, sends nothing more for it (no complete either), frees its
// id for a new operation and its place under the key's cap.
func TestWebsocketCompleteStopsSubscription(t *testing.T) {
	e := resttest.New(t)
	c := dialWS(t, e, "graphql-transport-ws", nil)
	c.mustInit(e.Key)
	c.start("1", presenceSubscription)
	c.mustBeOpen()
	c.send(wsMessage{ID: "1", Type: "complete"})
	c.mustBeOpen() // nothing for "1" arrived before the pong
	time.Sleep(100 * time.Millisecond)
	c.mustBeOpen()
	c.start("1", "query { agentsBoard { totalCount } }") // the id is free again
	for _, want := range []string{"next", "complete"} {
		if m, err := c.read(5 * time.Second); err != nil || m.ID != "1" || m.Type != want || wsErrorCode(m) != "" {
			t.Fatalf("got %+v, %v; want %s for the reused id", m, err, want)
		}
	}
	c.send(wsMessage{ID: "unknown", Type: "complete"}) // PROTOCOL.md: ignored
	c.mustBeOpen()
}

// TestWebsocketErrorEndsOperation: an operation refused before it runs
// (here, validation) is answered with one error message holding the list of
// errors, and no complete follows it.
func TestWebsocketErrorEndsOperation(t *testing.T) {
	e := resttest.New(t)
	c := dialWS(t, e, "graphql-transport-ws", nil)
	c.mustInit(e.Key)
	c.start("1", "{ noSuchField }")
	m, err := c.read(5 * time.Second)
	if err != nil || m.Type != "error" || m.ID != "1" || wsErrorCode(m) == "" {
		t.Fatalf("got %s %s, %v; want an error message with a coded list", m.Type, m.Raw, err)
	}
	c.mustBeOpen() // the pong comes next: no complete for "1"
}

// panickingKeys fails as a defect would, while an operation is admitted.
type panickingKeys struct{}

func (panickingKeys) Recheck(context.Context, string, time.Duration) error { return nil }
func (panickingKeys) Allow(context.Context) error                          { panic("rate budget broken") }

// A panic while an operation is admitted answers that operation
// INTERNAL_ERROR, without the panic's text, and leaves the process and the
// socket serving.
func TestWebsocketPanicAnswersInternal(t *testing.T) {
	db := storetest.Open(t)
	org, _ := resttest.OrgWithKey(t, db, "Panic Co", viewer.AllScopes...)
	as := viewer.Viewer{OrgID: org.ID, Scopes: viewer.AllScopes}
	auth := func(ctx context.Context, _ string) (context.Context, error) { return viewer.NewContext(ctx, as), nil }
	h := graph.NewHandler(graph.NewResolver(db, time.Now, webhooks.DefaultConfig()), graph.HandlerConfig{WSKeys: panickingKeys{}},
		slog.New(slog.NewTextHandler(io.Discard, nil)), auth)
	mux := http.NewServeMux()
	mux.Handle("/graphql", h)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := dialWS(t, &resttest.Env{T: t, Server: srv}, "graphql-transport-ws", nil)
	c.mustInit("svc_live_any")
	c.start("1", "{ __typename }")
	m, err := c.read(5 * time.Second)
	if err != nil || m.Type != "error" || m.ID != "1" || wsErrorCode(m) != "INTERNAL_ERROR" {
		t.Fatalf("got %s %s, %v; want an INTERNAL_ERROR error message for 1", m.Type, m.Raw, err)
	}
	if strings.Contains(string(m.Raw), "rate budget") {
		t.Errorf("the panic's text reached the client: %s", m.Raw)
	}
	c.mustBeOpen()
}
