package graph

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/google/uuid"
	"github.com/gorilla/websocket"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Close codes a socket ends with, kept in this one place. The 44xx are
// graphql-transport-ws's (graphql-ws PROTOCOL.md), with the meaning it gives
// them; the reference client gives up on 4400, 4401, 4409 and 4429, and
// retries 4403 and 4408 a few times with backoff.
const (
	CloseInvalidMessage = 4400 // a message of a type or shape the protocol does not define
	// CloseUnauthorized: subscribe before connection_ack (the protocol's
	// meaning), or the socket's key revoked, expired or deleted while open.
	CloseUnauthorized = 4401
	// CloseForbidden: connection_init refused (the key missing, invalid,
	// revoked, expired or deleted), as the protocol recommends for a
	// refused connection; or an operation refused for a scope the key
	// lacks, which sending again cannot change.
	CloseForbidden        = 4403
	CloseInitTimeout      = 4408 // no connection_init within SVC_WS_INIT_TIMEOUT
	CloseSubscriberExists = 4409 // subscribe with the id of an operation still running
	CloseTooManyInits     = 4429 // a second connection_init
)

// WebsocketKeys is what the HTTP surface lends websocket sessions so that
// they obey its rules for their API key (graph cannot import rest).
type WebsocketKeys interface {
	// Recheck authenticates authorization again against a key record read
	// at most maxAge ago; a key no longer valid is apperr.Unauthorized.
	Recheck(ctx context.Context, authorization string, maxAge time.Duration) error
	// Allow counts one operation against the rate budget of the key in
	// ctx, the one its HTTP requests draw from; a spent budget is
	// apperr.RateLimited.
	Allow(ctx context.Context) error
}

// websocketSessions serves subscriptions over graphql-transport-ws
// (transportws.go) and, for older clients, gqlgen's graphql-ws. A websocket
// whose upgrade carried no Authorization header authenticates with the
// connection_init payload's "Authorization" (browsers cannot set headers).
type websocketSessions struct {
	ws   transport.Websocket
	cfg  HandlerConfig
	auth Authenticator
	subs *keySubscriptions
	// logger reports an operation that panicked before gqlgen's own
	// recover covered it.
	logger *slog.Logger
}

func websocketTransport(cfg HandlerConfig, auth Authenticator, logger *slog.Logger) graphql.Transport {
	return &websocketSessions{
		ws: transport.Websocket{
			KeepAlivePingInterval: 10 * time.Second,
			InitTimeout:           cfg.WSInitTimeout,
			// Credentials travel in headers or the init payload, never in
			// cookies, so another origin gains nothing by connecting.
			Upgrader: websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }},
		},
		cfg:    cfg,
		auth:   auth,
		subs:   &keySubscriptions{max: cfg.WSMaxSubscriptions, open: map[uuid.UUID]int{}},
		logger: logger,
	}
}

func (t *websocketSessions) Supports(r *http.Request) bool { return t.ws.Supports(r) }

// Do runs one socket: its session sees the connection_init, every
// operation, and the close frame, whose code it chooses.
func (t *websocketSessions) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	s := &wsSession{t: t, authorization: r.Header.Get("Authorization"), cancel: cancel}
	w, r = hijackWriter{ResponseWriter: w, s: s}, r.WithContext(ctx)
	if wantsTransportWS(r) {
		serveTransportWS(w, r, s, exec)
		return
	}
	ws := t.ws
	ws.InitFunc = s.init
	ws.Do(w, r, sessionExecutor{GraphExecutor: exec, s: s})
}

// wantsTransportWS reports whether the client's first protocol of the two
// served is graphql-transport-ws, the one the upgrade then agrees on.
func wantsTransportWS(r *http.Request) bool {
	for _, p := range websocket.Subprotocols(r) {
		switch p {
		case transportWSProtocol:
			return true
		case "graphql-ws":
			return false
		}
	}
	return false
}

// wsSession is one socket's state.
type wsSession struct {
	t             *websocketSessions
	authorization string // from the upgrade request, if it carried one
	cancel        context.CancelFunc

	mu        sync.Mutex
	closeCode int
	reason    string
}

// init authenticates connection_init. The ack carries no payload: the
// payload holds the key, which must not travel back.
func (s *wsSession) init(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
	authorization := s.authorization
	if authorization == "" {
		authorization = p.Authorization()
	}
	ctx, err := s.t.auth(ctx, authorization)
	if err != nil {
		s.setClose(initCloseCode(err), AppError(err).Message)
		return ctx, nil, err
	}
	if s.t.cfg.WSKeys != nil {
		go s.recheck(ctx, authorization)
	}
	return ctx, nil, nil
}

// recheck closes the socket once its key is no longer valid (revoked,
// expired, deleted), as its HTTP requests would start failing.
func (s *wsSession) recheck(ctx context.Context, authorization string) {
	interval := s.t.cfg.WSRecheckInterval
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		err := s.t.cfg.WSKeys.Recheck(ctx, authorization, interval)
		// A failed lookup (the database unreachable) is no verdict on the
		// key: it is checked again at the next tick.
		if e := AppError(err); err != nil && e.Code == apperr.Unauthorized {
			s.close(CloseUnauthorized, e.Message)
			return
		}
	}
}

// setClose chooses the code of the close frame the transport sends next.
func (s *wsSession) setClose(code int, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closeCode == 0 {
		s.closeCode, s.reason = code, reason
	}
}

// close ends the socket with code: the transport closes it when its
// context ends, and the connection rewrites the close frame it sends.
func (s *wsSession) close(code int, reason string) {
	s.setClose(code, reason)
	s.cancel()
}

// closeFrame is the close frame chosen for this socket, nil for none.
func (s *wsSession) closeFrame() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closeCode == 0 {
		return nil
	}
	payload := websocket.FormatCloseMessage(s.closeCode, truncateReason(s.reason))
	return append([]byte{0x80 | websocket.CloseMessage, byte(len(payload))}, payload...)
}

// truncateReason fits a close reason in a control frame (125 bytes, two of
// them the code) without splitting a character.
func truncateReason(s string) string {
	const maxReason = 123
	if len(s) <= maxReason {
		return s
	}
	s = s[:maxReason]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// initCloseCode is the close code of a refused connection_init: 4403 for
// the key (PROTOCOL.md's code for a refused connection), 1011 for the
// server's own failure, which the client may retry.
func initCloseCode(err error) int {
	switch AppError(err).Code {
	case apperr.Unauthorized, apperr.Forbidden:
		return CloseForbidden
	}
	return websocket.CloseInternalServerErr
}

// sessionExecutor admits each operation of a graphql-ws socket as the HTTP
// surface admits a request (graphql-transport-ws sockets call
// wsSession.operation directly).
type sessionExecutor struct {
	graphql.GraphExecutor
	s *wsSession
}

// CreateOperationContext counts the operation against the key's rate
// budget before parsing, validation and the bounds run, so that operations
// refused there cost the client as they cost the server.
func (e sessionExecutor) CreateOperationContext(ctx context.Context, params *graphql.RawParams) (*graphql.OperationContext, gqlerror.List) {
	if err := e.s.allow(ctx); err != nil {
		oc := &graphql.OperationContext{RawQuery: params.Query, OperationName: params.OperationName,
			Variables: params.Variables, Headers: params.Headers, RecoverFunc: graphql.DefaultRecover}
		return oc, gqlerror.List{presentError(ctx, err)}
	}
	return inputErrors{e.GraphExecutor}.CreateOperationContext(ctx, params)
}

func (e sessionExecutor) DispatchOperation(ctx context.Context, oc *graphql.OperationContext) (graphql.ResponseHandler, context.Context) {
	if err := e.s.admit(ctx, oc.Operation); err != nil {
		return answerOnce(presentError(ctx, err)), ctx
	}
	return e.s.dispatch(ctx, e.GraphExecutor, oc)
}

// operation admits one graphql-transport-ws operation as the HTTP surface
// admits a request (rate budget, parsing, validation, bounds, the rules of
// admit) and starts it. refused is its answer when it was refused before
// it ran.
func (s *wsSession) operation(ctx context.Context, exec graphql.GraphExecutor, params *graphql.RawParams) (responses graphql.ResponseHandler, _ context.Context, refused gqlerror.List) {
	if err := s.allow(ctx); err != nil {
		return nil, ctx, gqlerror.List{presentError(ctx, err)}
	}
	oc, errs := inputErrors{exec}.CreateOperationContext(ctx, params)
	if errs != nil {
		return nil, ctx, exec.DispatchError(graphql.WithOperationContext(ctx, oc), errs).Errors
	}
	ctx = graphql.WithOperationContext(ctx, oc)
	if err := s.admit(ctx, oc.Operation); err != nil {
		return nil, ctx, gqlerror.List{presentError(ctx, err)}
	}
	responses, ctx = s.dispatch(ctx, exec, oc)
	return responses, ctx, nil
}

// allow counts one operation against the key's rate budget, refused
// operations included, before it is parsed.
func (s *wsSession) allow(ctx context.Context) error {
	if keys := s.t.cfg.WSKeys; keys != nil {
		return keys.Allow(ctx)
	}
	return nil
}

// dispatch runs an admitted operation: a query under the deadline of one
// over HTTP, a subscription as long as its client wants it.
func (s *wsSession) dispatch(ctx context.Context, exec graphql.GraphExecutor, oc *graphql.OperationContext) (graphql.ResponseHandler, context.Context) {
	if oc.Operation.Operation != ast.Query {
		responses, ctx := exec.DispatchOperation(ctx, oc)
		return s.closeIfForbidden(responses), ctx
	}
	ctx, cancel := withOperationDeadline(ctx, s.t.cfg.Timeout)
	responses, ctx := exec.DispatchOperation(ctx, oc)
	answer := s.closeIfForbidden(responses)
	return func(ctx context.Context) *graphql.Response {
		defer cancel() // a query answers once
		return answer(ctx)
	}, ctx
}

// admit refuses mutations and holds a subscription within the key's cap
// until ctx (the operation's) ends. A refusal ends the operation, not the
// socket: the key's other operations go on.
func (s *wsSession) admit(ctx context.Context, op *ast.OperationDefinition) error {
	switch op.Operation {
	case ast.Mutation:
		// A mutation's transaction and events belong to one request and
		// one response; a socket may answer many times.
		return apperr.New(apperr.BadRequest, "mutations are not accepted over the websocket; use POST /graphql")
	case ast.Subscription:
		v, _ := viewer.FromContext(ctx)
		release, ok := s.t.subs.acquire(v.KeyID)
		if !ok {
			return apperr.New(apperr.RateLimited, "this API key already has %d open subscriptions, the most it may hold; complete one first", s.t.subs.max)
		}
		context.AfterFunc(ctx, release)
	}
	return nil
}

// answerOnce answers an operation once with err.
func answerOnce(err *gqlerror.Error) graphql.ResponseHandler {
	answered := false
	return func(context.Context) *graphql.Response {
		if answered {
			return nil
		}
		answered = true
		return &graphql.Response{Errors: gqlerror.List{err}}
	}
}

// closeIfForbidden closes the socket with 4403 after an operation refused
// as a whole for a scope the key lacks: sending it again cannot succeed.
func (s *wsSession) closeIfForbidden(next graphql.ResponseHandler) graphql.ResponseHandler {
	forbidden := ""
	return func(ctx context.Context) *graphql.Response {
		if forbidden != "" {
			s.close(CloseForbidden, forbidden)
			return nil
		}
		r := next(ctx)
		if r != nil && (len(r.Data) == 0 || string(r.Data) == "null") {
			for _, e := range r.Errors {
				if e.Extensions["code"] == apperr.Forbidden {
					forbidden = e.Message
				}
			}
		}
		return r
	}
}

// keySubscriptions counts the open subscriptions of each API key across
// every socket of this process.
type keySubscriptions struct {
	max  int
	mu   sync.Mutex
	open map[uuid.UUID]int
}

// acquire holds one of key's subscriptions until release is called.
func (k *keySubscriptions) acquire(key uuid.UUID) (release func(), ok bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.open[key] >= k.max {
		return nil, false
	}
	k.open[key]++
	var once sync.Once
	return func() {
		once.Do(func() {
			k.mu.Lock()
			defer k.mu.Unlock()
			if k.open[key]--; k.open[key] <= 0 {
				delete(k.open, key)
			}
		})
	}, true
}

// hijackWriter hands the websocket library a connection whose close frame
// the session chooses: the transport always closes with 1000, which
// clients answer by reconnecting.
type hijackWriter struct {
	http.ResponseWriter
	s *wsSession
}

func (h hijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := h.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("the response writer cannot be hijacked")
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		return nil, nil, err
	}
	return &closeCodeConn{Conn: conn, s: h.s, frames: frameLimit{max: h.s.t.cfg.WSMaxMessageBytes}}, rw, nil
}

// errMessageTooBig ends the reading of a socket whose client sent a message
// over WSMaxMessageBytes.
var errMessageTooBig = errors.New("websocket message over the size limit")

// lingerTime is how long a socket closed for a message too big keeps
// discarding what its client still sends, so that the close frame reaches
// the client rather than a connection reset.
const lingerTime = time.Second

// closeCodeConn replaces the server's close frame with the session's
// choice, when it made one, and stops reading at the header of a client
// frame that takes its message over the size limit: the websocket library
// has no limit of its own until it is handed the connection, and would
// otherwise buffer and decode a message of any size, before authentication
// too.
type closeCodeConn struct {
	net.Conn
	s      *wsSession
	frames frameLimit  // used by the one reading goroutine only
	tooBig atomic.Bool // a message over the limit was refused
}

func (c *closeCodeConn) Read(b []byte) (int, error) {
	if c.tooBig.Load() {
		return 0, errMessageTooBig
	}
	n, err := c.Conn.Read(b)
	pass, ok := c.frames.scan(b[:n])
	if ok {
		return n, err
	}
	c.tooBig.Store(true)
	c.s.setClose(websocket.CloseMessageTooBig, fmt.Sprintf("a websocket message may hold at most %d bytes", c.frames.max))
	if pass > 0 {
		return pass, nil // the frames before it; the next read fails
	}
	return 0, errMessageTooBig
}

// Close half-closes a socket refused for a message too big and discards,
// for a moment and at most one more message's worth, what its client still
// sends: closing with unread data would reset the connection and lose the
// close frame that says why.
func (c *closeCodeConn) Close() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok && c.tooBig.Load() {
		if cw.CloseWrite() == nil && c.Conn.SetReadDeadline(time.Now().Add(lingerTime)) == nil {
			_, _ = io.CopyN(io.Discard, c.Conn, c.frames.max)
		}
	}
	return c.Conn.Close()
}

func (c *closeCodeConn) Write(b []byte) (int, error) {
	if isCloseFrame(b) {
		if frame := c.s.closeFrame(); frame != nil {
			if _, err := c.Conn.Write(frame); err != nil {
				return 0, err
			}
			return len(b), nil
		}
	}
	return c.Conn.Write(b)
}

// isCloseFrame reports whether b is exactly one unmasked close frame, the
// way the websocket library writes it (one write per control frame).
func isCloseFrame(b []byte) bool {
	return len(b) >= 2 && b[0] == 0x80|websocket.CloseMessage && b[1]&0x80 == 0 && int(b[1]) == len(b)-2
}

// frameLimit follows the frame headers of the bytes a client sends to bound
// the payload of each message (its frames summed; control frames apart)
// before any of it is buffered.
type frameLimit struct {
	max     int64
	header  [14]byte // the most a frame header takes
	have    int      // bytes of the next frame's header read so far
	left    uint64   // payload bytes of the current frame still to come
	message uint64   // payload bytes of the current data message so far
}

// scan follows b, the next bytes of the stream. When a frame takes its
// message over max it returns false and how many bytes of b come before
// that frame's header.
func (f *frameLimit) scan(b []byte) (int, bool) {
	start := 0
	for i := 0; i < len(b); {
		if f.left > 0 {
			step := min(uint64(len(b)-i), f.left)
			i += int(step)
			f.left -= step
			continue
		}
		if f.have == 0 {
			start = i
		}
		f.header[f.have] = b[i]
		f.have++
		i++
		if f.have < frameHeaderLen(f.header[:f.have]) {
			continue
		}
		f.have = 0
		length := framePayloadLen(f.header[:])
		if f.header[0]&0x08 == 0 { // a data frame (text, binary, continuation)
			if length > uint64(f.max)-f.message {
				return start, false
			}
			f.message += length
			if f.header[0]&0x80 != 0 { // FIN: the message is whole
				f.message = 0
			}
		}
		f.left = length
	}
	return len(b), true
}

// frameHeaderLen is the length of the frame header that h begins (RFC 6455
// section 5.2), or 2 while h is too short to tell.
func frameHeaderLen(h []byte) int {
	if len(h) < 2 {
		return 2
	}
	n := 2
	switch h[1] & 0x7f {
	case 126:
		n += 2
	case 127:
		n += 8
	}
	if h[1]&0x80 != 0 { // masked, as every client frame is
		n += 4
	}
	return n
}

// framePayloadLen is the payload length a whole frame header h announces.
func framePayloadLen(h []byte) uint64 {
	switch n := h[1] & 0x7f; n {
	case 126:
		return uint64(binary.BigEndian.Uint16(h[2:4]))
	case 127:
		return binary.BigEndian.Uint64(h[2:10])
	default:
		return uint64(n)
	}
}
