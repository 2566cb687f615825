package graph_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

type wsMessage struct {
	ID      string         `json:"id,omitempty"`
	Type    string         `json:"type"`
	Payload map[string]any `json:"payload,omitempty"`
	// Raw is the whole message as read: an error message's payload is a
	// list, which Payload cannot hold.
	Raw json.RawMessage `json:"-"`
}

// subscribe opens a graphql-transport-ws subscription to presence changes,
// authenticating in the connection_init payload as a browser would.
func subscribe(t *testing.T, e *resttest.Env, key string) *websocket.Conn {
	t.Helper()
	dialer := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
	conn, resp, err := dialer.Dial("ws"+strings.TrimPrefix(e.Server.URL, "http")+"/graphql", nil)
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	t.Cleanup(func() { conn.Close() })
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(conn.WriteJSON(wsMessage{Type: "connection_init", Payload: map[string]any{"Authorization": "Bearer " + key}}))
	var ack wsMessage
	must(conn.ReadJSON(&ack))
	if ack.Type != "connection_ack" {
		t.Fatalf("got %+v, want connection_ack", ack)
	}
	must(conn.WriteJSON(wsMessage{ID: "1", Type: "subscribe", Payload: map[string]any{
		"query": "subscription { agentPresenceChanged { userId firstName status currentCallId callsToday } }",
	}}))
	return conn
}

func TestPresenceSubscription(t *testing.T) {
	e := resttest.New(t)
	agent := e.NewUser(e.Org.ID, "Lia", "Live", "agent", "")
	conn := subscribe(t, e, e.Key)
	_, otherKey := e.NewOrg("Other", viewer.AllScopes...)
	otherConn := subscribe(t, e, otherKey)
	// The subscription registers on its own goroutine, so a change made
	// before it listens is not heard: change the presence (a new call id
	// each time, so each is a change) until the subscriber hears one.
	heard := make(chan wsMessage, 1)
	go func() {
		var msg wsMessage
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if err := conn.ReadJSON(&msg); err == nil {
			heard <- msg
		}
		close(heard)
	}()
	sent := time.Now()
	var msg wsMessage
	calls := map[string]bool{}
	for attempt := 0; ; attempt++ {
		call := fmt.Sprintf("c-%d", attempt)
		calls[call] = true
		r := e.Post("/v1/dialer/presence", e.Key, map[string]any{"userId": agent.ID, "status": "on_call", "currentCallId": call})
		if r.Status != http.StatusOK {
			t.Fatalf("presence: %d %s", r.Status, r.Raw)
		}
		select {
		case m, ok := <-heard:
			if !ok {
				t.Fatalf("no update received within 10 s")
			}
			msg = m
		case <-time.After(200 * time.Millisecond):
			continue
		}
		break
	}
	t.Logf("presence change reached the subscriber %s after the first POST was sent", time.Since(sent).Round(time.Millisecond))
	data, _ := msg.Payload["data"].(map[string]any)
	got, _ := data["agentPresenceChanged"].(map[string]any)
	if msg.Type != "next" || got["userId"] != agent.ID.String() || got["status"] != "on_call" || !calls[fmt.Sprint(got["currentCallId"])] {
		t.Fatalf("got %+v", msg)
	}
	// Another organization's subscriber hears nothing.
	_ = otherConn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if err := otherConn.ReadJSON(&msg); err == nil {
		t.Errorf("another organization received %+v", msg)
	}
}

func TestSubscriptionNeedsAKey(t *testing.T) {
	e := resttest.New(t)
	dialer := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
	conn, _, err := dialer.Dial("ws"+strings.TrimPrefix(e.Server.URL, "http")+"/graphql", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.WriteJSON(wsMessage{Type: "connection_init", Payload: map[string]any{"Authorization": "Bearer svc_live_wrongwrongwrongwrongwrong"}}); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	var msg wsMessage
	err = conn.ReadJSON(&msg)
	if err == nil && msg.Type == "connection_ack" {
		t.Fatalf("an unknown key was acknowledged")
	}
}
