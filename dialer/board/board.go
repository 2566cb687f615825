// Package board tells the live agents boards of every replica which rows
// changed, once the change has committed. The flows that write what a board
// row is built from (dialer.RecordCall, dialer.UpdatePresence,
// dialer.AgentWritten, the lead flows) report here, so every surface that
// writes them (GraphQL, REST, the dialer connector, automations) updates
// the board, and a rolled-back change never does.
// Changes travel on the change bus of the writing client (internal/bus):
// the ids of the rows, which each replica reads for its own subscribers.
//
// It imports only the generated ent client, internal/bus and events.
package board

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/google/uuid"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/bus"
)

// Change names the rows of one organization that changed: its agents', and
// those of the agents whose current lead is one of Leads (its name shows).
type Change struct {
	OrgID  uuid.UUID   `json:"o"`
	Agents []uuid.UUID `json:"a,omitempty"`
	Leads  []uuid.UUID `json:"l,omitempty"`
}

// Listen calls fn with every replica's committed changes heard on b until
// stop is called. fn must not block.
func Listen(b *bus.Bus, fn func(Change)) (stop func()) {
	return b.Subscribe(bus.Board, func(raw []byte) {
		var c Change
		if err := json.Unmarshal(raw, &c); err != nil {
			slog.Warn("an unreadable agents board change", "err", err)
			return
		}
		fn(c)
	})
}

// Written publishes c on the bus of c's client once the transaction of
// ctx commits (at once outside one): a flow's report of the rows its
// writes through c altered.
func Written(ctx context.Context, c *gen.Client, ch Change) {
	b := c.Bus
	if b == nil {
		return
	}
	events.AfterCommit(ctx, func() { publish(b, ch) })
}

// maxIDs bounds the ids of one message, well inside a bus frame.
const maxIDs = 100

// publish sends c in messages of at most maxIDs ids.
func publish(b *bus.Bus, c Change) {
	for len(c.Agents)+len(c.Leads) > 0 {
		part := Change{OrgID: c.OrgID}
		n := min(len(c.Agents), maxIDs)
		part.Agents, c.Agents = c.Agents[:n], c.Agents[n:]
		n = min(len(c.Leads), maxIDs-len(part.Agents))
		part.Leads, c.Leads = c.Leads[:n], c.Leads[n:]
		raw, err := json.Marshal(part)
		if err != nil {
			slog.Warn("encoding an agents board change", "err", err)
			return
		}
		b.Publish(bus.Board, raw)
	}
}
