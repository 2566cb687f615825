package webhooks

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
)

// LiveBuffer is how many events a live subscriber may fall behind by. A
// subscriber whose buffer is full when the next event arrives is dropped
// (LiveSub.Overflowed) rather than let the server's memory grow or hold
// up the others; it may subscribe again and read what it missed through
// the API.
const LiveBuffer = 256

// Live fans the committed outbox events of every replica (announced on the
// client's change bus, events) out to this process's live
// subscribers, in the envelope webhooks deliver. Each announced batch of
// an organization with subscribers here is read once, by id, for all of
// them.
type Live struct {
	client *ent.Client

	listen sync.Once // joins the bus with the first subscription

	mu      sync.Mutex
	subs    map[uuid.UUID]map[*LiveSub]struct{}
	pending map[uuid.UUID]map[uuid.UUID]struct{} // announced ids not yet read, by organization
	reading bool
}

// NewLive returns a hub that reads events through client.
func NewLive(client *ent.Client) *Live {
	return &Live{client: client, subs: map[uuid.UUID]map[*LiveSub]struct{}{}, pending: map[uuid.UUID]map[uuid.UUID]struct{}{}}
}

// LiveSub is one subscriber: C yields its events until the subscription
// ends or it falls LiveBuffer events behind, when C is closed and
// Overflowed reports true.
type LiveSub struct {
	C          <-chan *Envelope
	ch         chan *Envelope
	wants      func(*ent.WebhookEvent) bool
	overflowed bool // set under Live.mu before ch is closed
}

// Overflowed reports whether the subscriber was dropped for falling
// behind; read it once C is closed.
func (s *LiveSub) Overflowed() bool { return s.overflowed }

// Subscribe starts a subscription to orgID's events that v may read and
// wants (nil: every event type v may read). stop ends it and closes C.
func (l *Live) Subscribe(v viewer.Viewer, types []string) (*LiveSub, func()) {
	ch := make(chan *Envelope, LiveBuffer)
	s := &LiveSub{C: ch, ch: ch, wants: func(ev *ent.WebhookEvent) bool {
		if ev.OnlyInstallationID != nil && *ev.OnlyInstallationID != v.InstallationID {
			return false // an app's endpoint paused is told to that app only
		}
		return (len(types) == 0 || event.Wants(types, ev.EventType)) && MayReceive(v, ev)
	}}
	// The first subscription waits for the bus to listen, and so does any
	// other arriving meanwhile (Once.Do returns when the first call has):
	// outside the lock, which announced takes.
	l.listen.Do(func() { events.ListenCommitted(l.client.Bus, l.announced) })
	l.mu.Lock()
	if l.subs[v.OrgID] == nil {
		l.subs[v.OrgID] = map[*LiveSub]struct{}{}
	}
	l.subs[v.OrgID][s] = struct{}{}
	l.mu.Unlock()
	var once sync.Once
	return s, func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.remove(v.OrgID, s) {
				close(s.ch)
			}
		})
	}
}

// remove takes s off orgID's subscribers, reporting whether it was there
// (a subscriber dropped for overflow is no longer). Call with l.mu held.
func (l *Live) remove(orgID uuid.UUID, s *LiveSub) bool {
	if _, ok := l.subs[orgID][s]; !ok {
		return false
	}
	delete(l.subs[orgID], s)
	if len(l.subs[orgID]) == 0 {
		delete(l.subs, orgID)
	}
	return true
}

// announced queues committed events for reading; one reader at a time
// reads the queued ids, so a burst of announcements is read in few
// queries.
func (l *Live) announced(c events.Committed) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.subs[c.OrgID]) == 0 {
		return // nobody here watches this organization's events
	}
	p := l.pending[c.OrgID]
	if p == nil {
		p = map[uuid.UUID]struct{}{}
		l.pending[c.OrgID] = p
	}
	for _, id := range c.IDs {
		p[id] = struct{}{}
	}
	if !l.reading {
		l.reading = true
		go l.read()
	}
}

// read publishes the queued events until none are left.
func (l *Live) read() {
	for {
		l.mu.Lock()
		pending := l.pending
		l.pending = map[uuid.UUID]map[uuid.UUID]struct{}{}
		if len(pending) == 0 {
			l.reading = false
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
		for orgID, ids := range pending {
			if err := l.publish(orgID, ids); err != nil {
				// The events stay in the outbox; live subscribers miss them.
				slog.Warn("reading events for live subscribers", "org_id", orgID, "err", err)
			}
		}
	}
}

// liveReadTimeout bounds the reads behind one batch of live events.
const liveReadTimeout = 5 * time.Second

// liveReadBatch bounds the ids of one read.
const liveReadBatch = 500

// publish reads orgID's events ids, in the order they occurred, and sends
// each to the subscribers that want it.
func (l *Live) publish(orgID uuid.UUID, set map[uuid.UUID]struct{}) error {
	ctx, cancel := context.WithTimeout(rule.SystemContext(context.Background()), liveReadTimeout)
	defer cancel()
	ids := make([]uuid.UUID, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	for len(ids) > 0 {
		batch := ids[:min(len(ids), liveReadBatch)]
		ids = ids[len(batch):]
		events, err := l.client.WebhookEvent.Query().
			Where(webhookevent.OrgID(orgID), webhookevent.IDIn(batch...)).
			Order(webhookevent.ByOccurredAt(), webhookevent.ByID()).All(ctx)
		if err != nil {
			return fmt.Errorf("loading %d events: %w", len(batch), err)
		}
		for _, ev := range events {
			l.send(orgID, ev)
		}
	}
	return nil
}

// send hands ev to each of orgID's subscribers that wants it; one whose
// buffer is full is dropped.
func (l *Live) send(orgID uuid.UUID, ev *ent.WebhookEvent) {
	env := &Envelope{ID: EventIDPrefix + ev.ID.String(), Event: ev.EventType, Timestamp: apitime.Of(ev.OccurredAt), Data: ev.Data}
	l.mu.Lock()
	defer l.mu.Unlock()
	for s := range l.subs[orgID] {
		if !s.wants(ev) {
			continue
		}
		select {
		case s.ch <- env:
		default:
			s.overflowed = true
			l.remove(orgID, s)
			close(s.ch)
		}
	}
}
