// Package bus carries small messages about committed changes (the ids of
// changed rows, never the rows) to every replica of the service, so that
// each replica's live subscriptions hear of changes another replica made.
// Each replica then reads the rows it needs from the database, once for all
// of its subscribers.
//
// A Bus delivers a message to this process's subscribers at once, in the
// publishing goroutine, and hands it to its Transport for the other
// replicas: in memory (one replica, or SQLite), PostgreSQL's LISTEN/NOTIFY,
// or Redis pub/sub. Sending is asynchronous and best-effort: a publisher
// never waits for the network, a full queue or a lost connection drops
// messages (logged), and a subscriber may miss updates while the
// transport reconnects. Callers publish only after their transaction
// commits.
//
// It imports nothing of this service.
package bus

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Topic names a kind of message; each is a channel of the transport.
type Topic string

// The topics of this service.
const (
	Board  Topic = "board"  // agents board rows changed (board.Change)
	Events Topic = "events" // outbox events committed (their ids)
	// Notifications: notifications committed (their ids and users)
	Notifications Topic = "notifications"
)

// topics are the channels a listening transport subscribes to.
var topics = []Topic{Board, Events, Notifications}

// Transport carries frames to the other replicas. Send is called from one
// goroutine at a time; Listen runs until ctx ends, calling deliver for each
// frame received and ready each time it has (re)subscribed.
type Transport interface {
	Send(ctx context.Context, topic Topic, frame []byte) error
	Listen(ctx context.Context, deliver func(Topic, []byte), ready func())
	Close() error
}

const (
	// MaxFrame bounds a frame's bytes: PostgreSQL refuses a NOTIFY
	// payload of 8000 bytes or more.
	MaxFrame = 7900
	// queueSize bounds the messages waiting to be sent; past it they are
	// dropped rather than held in memory or holding up a writer.
	queueSize = 4096
	// sendTimeout bounds one frame's send.
	sendTimeout = 2 * time.Second
	// readyWait is how long the first subscription waits for the
	// transport to listen, so that a subscriber hears the changes
	// committed after it subscribed.
	readyWait = 3 * time.Second
	// idleCheck is how long a listener waits on a quiet connection
	// before checking that it is still there.
	idleCheck = 30 * time.Second
)

// Bus fans messages out to this process's subscribers and, through its
// transport, to the other replicas' buses. The zero of *Bus (nil) drops
// every message.
type Bus struct {
	t      Transport
	origin string // this bus's id: frames it sent come back and are skipped
	logger *slog.Logger

	mu        sync.Mutex
	subs      map[Topic]map[*func([]byte)]struct{}
	listening bool
	ready     chan struct{} // closed once the transport first listens
	// sending says the sender runs; closed that Close has begun, after
	// which no goroutine starts (done's Add must not race its Wait).
	sending, closed bool

	queue   chan message
	ctx     context.Context
	cancel  context.CancelFunc
	done    sync.WaitGroup
	dropped dropLog
}

type message struct {
	topic   Topic
	payload json.RawMessage
}

// frame is what travels: the sender's origin and one or more payloads.
type frame struct {
	Origin   string            `json:"o"`
	Payloads []json.RawMessage `json:"p"`
}

// New returns a bus over t; a nil t keeps messages in this process.
func New(t Transport, logger *slog.Logger) *Bus {
	if logger == nil {
		logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Bus{t: t, origin: uuid.NewString(), logger: logger, subs: map[Topic]map[*func([]byte)]struct{}{},
		ready: make(chan struct{}), queue: make(chan message, queueSize), ctx: ctx, cancel: cancel,
		dropped: dropLog{logger: logger}}
}

// Memory is a bus for one process.
func Memory() *Bus { return New(nil, nil) }

// Publish delivers payload, a small JSON value, to topic's subscribers
// here and queues it for the other replicas. It never blocks on the
// network; call it once the change has committed.
func (b *Bus) Publish(topic Topic, payload json.RawMessage) {
	if b == nil {
		return
	}
	b.deliver(topic, payload)
	if b.t == nil {
		return
	}
	if len(payload) > MaxFrame-len(b.origin)-16 {
		b.dropped.note("a message over the frame size")
		return
	}
	if !b.startSender() {
		return
	}
	select {
	case b.queue <- message{topic: topic, payload: payload}:
	default:
		b.dropped.note("the send queue is full")
	}
}

// Subscribe calls fn with every payload published on topic, here or by
// another replica, until stop is called. fn runs in the publishing (or
// receiving) goroutine: it must not block. The first subscription starts
// the transport's listening and waits a moment for it.
func (b *Bus) Subscribe(topic Topic, fn func([]byte)) (stop func()) {
	if b == nil {
		return func() {} // a client opened without a bus hears nothing
	}
	key := &fn
	b.mu.Lock()
	if b.subs[topic] == nil {
		b.subs[topic] = map[*func([]byte)]struct{}{}
	}
	b.subs[topic][key] = struct{}{}
	start := b.t != nil && !b.listening && !b.closed
	b.listening = b.listening || start
	if start {
		b.done.Add(1)
		go b.listen()
	}
	b.mu.Unlock()
	if start {
		select {
		case <-b.ready:
		case <-time.After(readyWait):
			b.logger.Warn("the change bus is not listening yet; live subscribers may miss other replicas' changes until it does")
		}
	}
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.subs[topic], key)
	}
}

// startSender starts the sender with the first message, unless the bus
// is closing; it reports whether messages may be queued.
func (b *Bus) startSender() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	if !b.sending {
		b.sending = true
		b.done.Add(1)
		go b.send()
	}
	return true
}

// closeFlush is how long Close waits for queued messages to be sent: a
// command that writes and exits still tells the running servers.
const closeFlush = time.Second

// Close sends what is queued (for at most closeFlush), stops sending and
// listening, and closes the transport.
func (b *Bus) Close() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	b.closed = true
	sending := b.sending
	b.mu.Unlock()
	for deadline := time.Now().Add(closeFlush); sending && len(b.queue) > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	b.cancel()
	b.done.Wait()
	if b.t != nil {
		return b.t.Close()
	}
	return nil
}

// deliver calls topic's subscribers in this process.
func (b *Bus) deliver(topic Topic, payload []byte) {
	b.mu.Lock()
	fns := make([]func([]byte), 0, len(b.subs[topic]))
	for fn := range b.subs[topic] {
		fns = append(fns, *fn)
	}
	b.mu.Unlock()
	for _, fn := range fns {
		fn(payload)
	}
}

// listen runs the transport, delivering the other replicas' frames.
func (b *Bus) listen() {
	defer b.done.Done()
	var once sync.Once
	b.t.Listen(b.ctx, b.received, func() { once.Do(func() { close(b.ready) }) })
}

// received unpacks a frame from the transport.
func (b *Bus) received(topic Topic, raw []byte) {
	var f frame
	if err := json.Unmarshal(raw, &f); err != nil {
		b.logger.Warn("an unreadable message on the change bus", "topic", topic, "err", err)
		return
	}
	if f.Origin == b.origin {
		return // delivered here when it was published
	}
	for _, p := range f.Payloads {
		b.deliver(topic, p)
	}
}

// send packs the queued messages into frames, as many as fit in one, and
// sends them: a burst of commits costs a few frames, not one per commit.
func (b *Bus) send() {
	defer b.done.Done()
	for {
		var first message
		select {
		case <-b.ctx.Done():
			return
		case first = <-b.queue:
		}
		batch := []message{first}
	drain:
		for len(batch) < queueSize {
			select {
			case m := <-b.queue:
				batch = append(batch, m)
			default:
				break drain
			}
		}
		for _, f := range b.frames(batch) {
			ctx, cancel := context.WithTimeout(b.ctx, sendTimeout)
			err := b.t.Send(ctx, f.topic, f.payload)
			cancel()
			if err != nil && !errors.Is(err, context.Canceled) {
				b.dropped.note("sending failed: " + err.Error())
			}
		}
	}
}

// frames groups batch by topic into frames of at most MaxFrame bytes.
func (b *Bus) frames(batch []message) []message {
	var out []message
	byTopic := map[Topic][]json.RawMessage{}
	var order []Topic
	for _, m := range batch {
		if _, ok := byTopic[m.topic]; !ok {
			order = append(order, m.topic)
		}
		byTopic[m.topic] = append(byTopic[m.topic], m.payload)
	}
	for _, topic := range order {
		f := frame{Origin: b.origin}
		size := len(b.origin) + 16
		flush := func() {
			if len(f.Payloads) > 0 {
				raw, _ := json.Marshal(f)
				out = append(out, message{topic: topic, payload: raw})
			}
			f.Payloads, size = nil, len(b.origin)+16
		}
		for _, p := range byTopic[topic] {
			if size+len(p)+1 > MaxFrame {
				flush()
			}
			f.Payloads = append(f.Payloads, p)
			size += len(p) + 1
		}
		flush()
	}
	return out
}

// dropLog logs dropped messages at most once a dropLogEvery, with how
// many were dropped since.
type dropLog struct {
	logger *slog.Logger
	mu     sync.Mutex
	last   time.Time
	count  int
}

const dropLogEvery = 10 * time.Second

func (d *dropLog) note(why string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.count++
	if time.Since(d.last) < dropLogEvery {
		return
	}
	d.logger.Warn("change bus messages dropped; live subscribers on other replicas may miss updates",
		"count", d.count, "last_reason", why)
	d.last, d.count = time.Now(), 0
}

// backoff is the wait before reconnect attempt n (from 0): 100 ms
// doubling to 5 s.
func backoff(n int) time.Duration {
	d := 100 * time.Millisecond << min(n, 6)
	return min(d, 5*time.Second)
}

// sleep waits d or until ctx ends, reporting whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
