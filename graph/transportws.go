package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/lendingpipe/svc/internal/apperr"
)

// transportWSProtocol is the subprotocol of graphql-ws's PROTOCOL.md, which
// this file serves message by message; gqlgen's own transport departs from
// it (duplicate ids, ping before the ack, its close codes).
const transportWSProtocol = "graphql-transport-ws"

// writeTimeout bounds one message's write to a client that stopped
// reading: the socket ends rather than hold its operations.
const writeTimeout = 10 * time.Second

// transportConn is one graphql-transport-ws socket.
type transportConn struct {
	s       *wsSession
	conn    *websocket.Conn
	exec    graphql.GraphExecutor
	headers http.Header
	// ctx is the socket's; after the ack it carries the key's viewer.
	ctx  context.Context
	base context.Context // the socket's, which the session cancels to close it

	write    sync.Mutex  // one writer at a time; held while checking an operation is still wanted
	shutOnce sync.Once   // the close frame is sent once
	shutting atomic.Bool // sent: what the client still sends is ignored

	mu           sync.Mutex
	initReceived bool
	acked        bool
	ops          map[string]*transportOp // the running operations by id
}

// transportOp is one running operation. completed, set under the write
// lock, tells its goroutine the client no longer wants it.
type transportOp struct {
	cancel    context.CancelFunc
	completed bool
}

// serveTransportWS upgrades the request and serves the socket until it
// closes.
func serveTransportWS(w http.ResponseWriter, r *http.Request, s *wsSession, exec graphql.GraphExecutor) {
	upgrader := s.t.ws.Upgrader
	upgrader.Subprotocols = []string{transportWSProtocol}
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has answered the request with its HTTP error
	}
	c := &transportConn{s: s, conn: conn, exec: exec, headers: r.Header, ctx: r.Context(), base: r.Context(), ops: map[string]*transportOp{}}
	// PROTOCOL.md: without connection_init in time, 4408.
	initWait := time.AfterFunc(s.t.cfg.WSInitTimeout, func() {
		c.mu.Lock()
		received := c.initReceived
		c.mu.Unlock()
		if !received {
			s.close(CloseInitTimeout, "Connection initialisation timeout")
		}
	})
	defer initWait.Stop()
	// The session ends the socket by cancelling its context (a key
	// revoked, a refused scope, the timeout above).
	stop := context.AfterFunc(r.Context(), c.shut)
	defer stop()
	c.readMessages()
	s.cancel() // ends every operation
	c.shut()
	_ = conn.Close()
}

// readMessages handles the client's messages in order until the socket
// ends.
func (c *transportConn) readMessages() {
	for {
		_, data, err := c.conn.ReadMessage()
		if err != nil {
			return
		}
		if c.shutting.Load() {
			continue // closing: only the client's close frame matters now
		}
		m, err := parseClientMessage(data)
		if err != nil {
			c.s.close(CloseInvalidMessage, "Invalid message received: "+err.Error())
		} else {
			c.handle(m)
		}
		if c.base.Err() != nil {
			c.shut() // at once: no later message of the client's is handled
		}
	}
}

// handle acts on one valid message as PROTOCOL.md says.
func (c *transportConn) handle(m clientMessage) {
	switch m.Type {
	case "connection_init":
		c.connectionInit(m.Payload)
	case "ping": // allowed at any time, before the ack too
		c.send(transportMessage{Type: "pong", Payload: m.Payload})
	case "pong": // an answer, or a heartbeat: nothing to do
	case "subscribe":
		c.subscribe(m.ID, m.subscribe)
	case "complete":
		c.complete(m.ID)
	}
}

// connectionInit authenticates the socket's key and acknowledges it, once.
func (c *transportConn) connectionInit(payload json.RawMessage) {
	c.mu.Lock()
	again := c.initReceived
	c.initReceived = true
	c.mu.Unlock()
	if again {
		c.s.close(CloseTooManyInits, "Too many initialisation requests")
		return
	}
	var p transport.InitPayload
	_ = json.Unmarshal(payload, &p) // an object or null: parseClientMessage checked it
	ctx, _, err := c.s.init(c.ctx, p)
	if err != nil {
		c.s.cancel() // init chose the close code
		return
	}
	c.mu.Lock()
	c.ctx, c.acked = ctx, true
	c.mu.Unlock()
	c.send(transportMessage{Type: "connection_ack"})
}

// subscribe starts the operation id, after the ack and under an id no
// running operation holds (PROTOCOL.md: 4401, 4409).
func (c *transportConn) subscribe(id string, p subscribePayload) {
	received := graphql.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.acked {
		c.s.close(CloseUnauthorized, "Unauthorized")
		return
	}
	if _, ok := c.ops[id]; ok {
		c.s.close(CloseSubscriberExists, fmt.Sprintf("Subscriber for %s already exists", id))
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	op := &transportOp{cancel: cancel}
	c.ops[id] = op
	params := &graphql.RawParams{
		Query: p.Query, OperationName: p.OperationName, Variables: p.Variables, Extensions: p.Extensions,
		Headers: c.headers, ReadTime: graphql.TraceTiming{Start: received, End: graphql.Now()},
	}
	go func() {
		defer c.done(id, op)
		defer c.recoverOp(ctx, id, op)
		c.run(ctx, id, op, params)
	}()
}

// recoverOp keeps a panic in one operation from ending the process: the
// operation's goroutine is the socket's own, so nothing above it would
// recover a panic raised while the operation is admitted (parsed,
// bounded, counted), before gqlgen's recover covers its execution. The
// client is told INTERNAL_ERROR for that id, without the panic's text.
func (c *transportConn) recoverOp(ctx context.Context, id string, op *transportOp) {
	p := recover()
	if p == nil {
		return
	}
	c.s.t.logger.ErrorContext(ctx, "graphql websocket operation panicked", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	refusal := gqlerror.List{codedError(apperr.Internal, "internal error")}
	c.sendFor(op, transportMessage{ID: id, Type: "error", Payload: mustJSON(refusal)})
}

// run answers one operation: next for each result, then complete; or one
// error message when it is refused before it runs or a subscription ends
// in error (PROTOCOL.md: no complete follows an error).
func (c *transportConn) run(ctx context.Context, id string, op *transportOp, params *graphql.RawParams) {
	ctx = graphql.StartOperationTrace(ctx)
	responses, ctx, refused := c.s.operation(ctx, c.exec, params)
	if refused != nil {
		c.sendFor(op, transportMessage{ID: id, Type: "error", Payload: mustJSON(refused)})
		return
	}
	ctx, failed := withSubscriptionErrors(ctx)
	defer func() {
		if r := recover(); r != nil {
			err := graphql.GetOperationContext(ctx).Recover(ctx, r)
			c.sendFor(op, transportMessage{ID: id, Type: "error", Payload: mustJSON(gqlerror.List{presentError(ctx, err)})})
		}
	}()
	for {
		r := responses(ctx)
		if r == nil {
			break
		}
		if !c.sendFor(op, transportMessage{ID: id, Type: "next", Payload: mustJSON(r)}) {
			return
		}
	}
	if errs := failed.list(); len(errs) > 0 {
		c.sendFor(op, transportMessage{ID: id, Type: "error", Payload: mustJSON(errs)})
		return
	}
	c.sendFor(op, transportMessage{ID: id, Type: "complete"})
}

// done forgets a finished operation, so that its id may be used again.
func (c *transportConn) done(id string, op *transportOp) {
	op.cancel()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ops[id] == op { // not a later operation under the same id
		delete(c.ops, id)
	}
}

// complete stops the operation id for a client that no longer wants it:
// nothing more is sent for it, complete included. An unknown id is one
// already finished (PROTOCOL.md: ignored).
func (c *transportConn) complete(id string) {
	c.mu.Lock()
	op, ok := c.ops[id]
	delete(c.ops, id)
	c.mu.Unlock()
	if !ok {
		return
	}
	c.write.Lock()
	op.completed = true
	c.write.Unlock()
	op.cancel()
}

// sendFor sends m unless the client completed op; false when it did or
// the socket failed.
func (c *transportConn) sendFor(op *transportOp, m transportMessage) bool {
	c.write.Lock()
	defer c.write.Unlock()
	return !op.completed && c.writeLocked(m)
}

func (c *transportConn) send(m transportMessage) {
	c.write.Lock()
	defer c.write.Unlock()
	c.writeLocked(m)
}

// writeLocked writes m; a client that does not take it within
// writeTimeout loses the socket.
func (c *transportConn) writeLocked(m transportMessage) bool {
	_ = c.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	if err := c.conn.WriteJSON(m); err != nil {
		c.s.cancel()
		return false
	}
	return true
}

// shut sends the close frame the session chose, if it chose one, and gives
// the client lingerTime to answer it before the reading ends: closing the
// connection at once could reset it and lose the frame that says why.
func (c *transportConn) shut() {
	c.shutOnce.Do(func() {
		c.shutting.Store(true)
		c.s.mu.Lock()
		code, reason := c.s.closeCode, c.s.reason
		c.s.mu.Unlock()
		if code == 0 {
			code = websocket.CloseNormalClosure
		}
		deadline := time.Now().Add(lingerTime)
		_ = c.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, truncateReason(reason)), deadline)
		_ = c.conn.SetReadDeadline(deadline)
	})
}

// transportMessage is a message of the protocol, as the server sends it.
type transportMessage struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encoding a websocket message: %v", err)) // our own types always encode
	}
	return b
}

// clientMessage is a message a client may send, checked against
// PROTOCOL.md's shapes.
type clientMessage struct {
	Type      string
	ID        string          // subscribe and complete
	Payload   json.RawMessage // connection_init, ping, pong: an object or null
	subscribe subscribePayload
}

type subscribePayload struct {
	Query         string         `json:"query"`
	OperationName string         `json:"operationName"`
	Variables     map[string]any `json:"variables"`
	Extensions    map[string]any `json:"extensions"`
}

// parseClientMessage reads one message, or says why it is no message a
// client may send (PROTOCOL.md "Invalid message": 4400).
func parseClientMessage(data []byte) (clientMessage, error) {
	var raw struct {
		Type    *string         `json:"type"`
		ID      *string         `json:"id"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return clientMessage{}, errors.New("a message is a JSON object with a string type")
	}
	if raw.Type == nil {
		return clientMessage{}, errors.New("the message has no type")
	}
	if string(bytes.TrimSpace(raw.Payload)) == "null" {
		raw.Payload = nil // as absent
	}
	m := clientMessage{Type: *raw.Type, Payload: raw.Payload}
	switch m.Type {
	case "connection_init", "ping", "pong":
		if !objectOrNull(raw.Payload) {
			return m, fmt.Errorf("the payload of %s is an object, null or absent", m.Type)
		}
	case "subscribe", "complete":
		if raw.ID == nil || *raw.ID == "" {
			return m, fmt.Errorf("%s needs a non-empty string id", m.Type)
		}
		m.ID = *raw.ID
		if m.Type == "subscribe" {
			p, err := parseSubscribePayload(raw.Payload)
			if err != nil {
				return m, err
			}
			m.subscribe = p
		}
	default:
		return m, fmt.Errorf("a client sends no message of type %q", m.Type)
	}
	return m, nil
}

// parseSubscribePayload reads a subscribe payload: query a string;
// operationName a string, variables and extensions objects, each null or
// absent. Numbers stay as written, as over HTTP.
func parseSubscribePayload(raw json.RawMessage) (subscribePayload, error) {
	var p struct {
		Query         *string        `json:"query"`
		OperationName *string        `json:"operationName"`
		Variables     map[string]any `json:"variables"`
		Extensions    map[string]any `json:"extensions"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if !isObject(raw) || dec.Decode(&p) != nil || p.Query == nil {
		return subscribePayload{}, errors.New("the payload of subscribe is an object with a string query, and a string operationName, object variables and object extensions when present")
	}
	out := subscribePayload{Query: *p.Query, Variables: p.Variables, Extensions: p.Extensions}
	if p.OperationName != nil {
		out.OperationName = *p.OperationName
	}
	return out, nil
}

func objectOrNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null" || isObject(raw)
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// subscriptionErrors collects the errors a subscription ends with, sent as
// its error message after its last result.
type subscriptionErrors struct {
	mu   sync.Mutex
	errs gqlerror.List
}

type subscriptionErrorsKey struct{}

func withSubscriptionErrors(ctx context.Context) (context.Context, *subscriptionErrors) {
	e := &subscriptionErrors{}
	return context.WithValue(ctx, subscriptionErrorsKey{}, e), e
}

func (e *subscriptionErrors) list() gqlerror.List {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.errs
}

// endSubscriptionWith ends the subscription of ctx with err once its
// channel closes, on either protocol.
func endSubscriptionWith(ctx context.Context, err *gqlerror.Error) {
	if e, ok := ctx.Value(subscriptionErrorsKey{}).(*subscriptionErrors); ok {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.errs = append(e.errs, err)
		return
	}
	transport.AddSubscriptionError(ctx, err) // gqlgen's graphql-ws sessions
}
