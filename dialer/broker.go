package dialer

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/dialer/board"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/agentpresence"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/rule"
)

// Broker fans board rows out to the GraphQL subscribers of the same
// organization in this process. While it has subscribers it hears every
// replica's committed changes on the client's change bus (package board),
// and reads each changed row of a subscribed organization once for all of
// them. A slow subscriber misses updates
// rather than holding up the publisher (the next update carries the full
// state).
type Broker struct {
	client *ent.Client
	now    func() time.Time

	// listen joins the bus with the first subscription; the broker listens
	// from then on (a change of an organization with no subscriber here
	// costs a map lookup).
	listen sync.Once

	mu      sync.Mutex
	subs    map[uuid.UUID]map[chan *AgentStatus]struct{}
	pending map[uuid.UUID]*rows // changes not yet read, by organization
	reading bool
}

// rows are the changed rows of one organization.
type rows struct{ agents, leads map[uuid.UUID]struct{} }

// NewBroker returns an empty broker that reads rows from client.
func NewBroker(client *ent.Client, now func() time.Time) *Broker {
	return &Broker{client: client, now: now, subs: map[uuid.UUID]map[chan *AgentStatus]struct{}{},
		pending: map[uuid.UUID]*rows{}}
}

// Subscribe returns a channel of orgID's changed board rows and a func that
// ends the subscription and closes the channel.
func (b *Broker) Subscribe(orgID uuid.UUID) (<-chan *AgentStatus, func()) {
	ch := make(chan *AgentStatus, 16)
	// The first subscription waits for the bus to listen, and so does any
	// other arriving meanwhile (Once.Do returns when the first call has):
	// outside the lock, which changed takes.
	b.listen.Do(func() { board.Listen(b.client.Bus, b.changed) })
	b.mu.Lock()
	if b.subs[orgID] == nil {
		b.subs[orgID] = map[chan *AgentStatus]struct{}{}
	}
	b.subs[orgID][ch] = struct{}{}
	b.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs[orgID], ch)
			if len(b.subs[orgID]) == 0 {
				delete(b.subs, orgID)
			}
			b.mu.Unlock()
			close(ch)
		})
	}
}

// Publish sends s to every subscriber of its organization.
func (b *Broker) Publish(s *AgentStatus) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs[s.orgID] {
		select {
		case ch <- s:
		default: // full: this subscriber will get the next one
		}
	}
}

// changed queues a committed change; one reader at a time reads the
// queued rows, so a burst is read once and the last row published is the
// latest committed.
func (b *Broker) changed(c board.Change) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.subs[c.OrgID]) == 0 {
		return // nobody here watches this organization's board
	}
	p := b.pending[c.OrgID]
	if p == nil {
		p = &rows{agents: map[uuid.UUID]struct{}{}, leads: map[uuid.UUID]struct{}{}}
		b.pending[c.OrgID] = p
	}
	for _, id := range c.Agents {
		p.agents[id] = struct{}{}
	}
	for _, id := range c.Leads {
		p.leads[id] = struct{}{}
	}
	if !b.reading {
		b.reading = true
		go b.read()
	}
}

// read publishes the queued rows until none are left.
func (b *Broker) read() {
	for {
		b.mu.Lock()
		pending := b.pending
		b.pending = map[uuid.UUID]*rows{}
		if len(pending) == 0 {
			b.reading = false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		for orgID, p := range pending {
			if err := b.publishRows(orgID, p); err != nil {
				// Subscribers keep the previous row until the next change.
				slog.Warn("publishing agents board rows", "org_id", orgID, "err", err)
			}
		}
	}
}

// publishTimeout bounds the reads behind one batch of published rows.
const publishTimeout = 5 * time.Second

// publishRows reads the changed rows of orgID as committed and publishes them.
func (b *Broker) publishRows(orgID uuid.UUID, p *rows) error {
	// A hung query must not stop the board: the reader gives up on this
	// batch, and the next change publishes the rows again.
	ctx, cancel := context.WithTimeout(rule.SystemContext(context.Background()), publishTimeout)
	defer cancel()
	ids := make([]uuid.UUID, 0, len(p.agents))
	for id := range p.agents {
		ids = append(ids, id)
	}
	if len(p.leads) > 0 {
		leads := make([]uuid.UUID, 0, len(p.leads))
		for id := range p.leads {
			leads = append(leads, id)
		}
		// A presence's id is its agent's user id.
		onCall, err := b.client.AgentPresence.Query().
			Where(agentpresence.OrgID(orgID), agentpresence.CurrentLeadIDIn(leads...)).IDs(ctx)
		if err != nil {
			return fmt.Errorf("finding the agents on the renamed leads: %w", err)
		}
		ids = append(ids, onCall...)
	}
	if len(ids) == 0 {
		return nil
	}
	users, err := b.client.User.Query().Where(user.OrgID(orgID), user.IDIn(ids...)).All(ctx)
	if err != nil {
		return fmt.Errorf("loading the changed agents: %w", err)
	}
	statuses, err := Enrich(ctx, b.client, orgID, users, b.now())
	if err != nil {
		return err
	}
	for _, s := range statuses {
		b.Publish(s)
	}
	return nil
}
