package dialer

import (
	"sync"

	"github.com/google/uuid"
)

// Broker fans presence changes out to the GraphQL subscribers of the same
// organization in this process. A slow subscriber misses updates rather
// than holding up the publisher (the next update carries the full state).
type Broker struct {
	mu   sync.Mutex
	subs map[uuid.UUID]map[chan *AgentStatus]struct{}
}

// NewBroker returns an empty broker.
func NewBroker() *Broker {
	return &Broker{subs: map[uuid.UUID]map[chan *AgentStatus]struct{}{}}
}

// Subscribe returns a channel of orgID's presence changes and a func that
// ends the subscription and closes the channel.
func (b *Broker) Subscribe(orgID uuid.UUID) (<-chan *AgentStatus, func()) {
	ch := make(chan *AgentStatus, 16)
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
