package events

import (
	"encoding/json"
	"log/slog"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/bus"
)

// Committed names events of one organization that have committed: the
// live events subscriptions of every replica read them by id.
type Committed struct {
	OrgID uuid.UUID   `json:"o"`
	IDs   []uuid.UUID `json:"i"`
}

// maxAnnounced bounds the ids of one message, well inside a bus frame.
const maxAnnounced = 100

// announce publishes the ids of events, which have committed, on b, in
// messages of one organization and at most maxAnnounced ids.
func announce(b *bus.Bus, events []*ent.WebhookEventCreate) {
	if b == nil || len(events) == 0 {
		return
	}
	var orgs []uuid.UUID
	byOrg := map[uuid.UUID][]uuid.UUID{}
	for _, ev := range events {
		id, ok := ev.Mutation().ID()
		org, _ := ev.Mutation().OrgID()
		if !ok {
			continue
		}
		if _, seen := byOrg[org]; !seen {
			orgs = append(orgs, org)
		}
		byOrg[org] = append(byOrg[org], id)
	}
	for _, org := range orgs {
		for ids := byOrg[org]; len(ids) > 0; {
			n := min(len(ids), maxAnnounced)
			raw, err := json.Marshal(Committed{OrgID: org, IDs: ids[:n]})
			if err != nil {
				slog.Warn("encoding committed event ids", "err", err)
				return
			}
			b.Publish(bus.Events, raw)
			ids = ids[n:]
		}
	}
}

// ListenCommitted calls fn with every replica's committed events heard on
// b until stop is called. fn must not block.
func ListenCommitted(b *bus.Bus, fn func(Committed)) (stop func()) {
	return b.Subscribe(bus.Events, func(raw []byte) {
		var c Committed
		if err := json.Unmarshal(raw, &c); err != nil {
			slog.Warn("an unreadable committed events message", "err", err)
			return
		}
		fn(c)
	})
}
