package dialer

import (
	"context"
	"fmt"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/agentpresence"
	"github.com/lendingpipe/svc/ent/callevent"
)

// callLead is how long before the status turned on_call a call event may
// have been recorded and still be the call in progress: dialers often send
// call_started a moment before the status report.
const callLead = time.Minute

// fillCurrentCalls completes the presences of agents on a call whose
// dialer reported the status without the call: the call in progress is the
// agent's latest call event since the call started, unless that event
// ended it. The presences are this read's copies; nothing is stored.
func fillCurrentCalls(ctx context.Context, c *ent.Client, orgID uuid.UUID, presences []*ent.AgentPresence) error {
	missing := map[uuid.UUID]*ent.AgentPresence{}
	var users []uuid.UUID
	earliest := time.Time{}
	for _, p := range presences {
		if p.Status != agentpresence.StatusOnCall || p.CurrentCallID != nil {
			continue
		}
		missing[p.UserID] = p
		users = append(users, p.UserID)
		if since := callSince(p); earliest.IsZero() || since.Before(earliest) {
			earliest = since
		}
	}
	if len(users) == 0 {
		return nil
	}
	events, err := c.CallEvent.Query().
		Where(callevent.OrgID(orgID), callevent.UserIDIn(users...), callevent.OccurredAtGTE(earliest)).
		Order(callevent.ByOccurredAt(sql.OrderDesc()), callevent.ByCreatedAt(sql.OrderDesc())).All(ctx)
	if err != nil {
		return fmt.Errorf("loading current calls: %w", err)
	}
	for _, ev := range events {
		p, ok := missing[ev.UserID]
		if !ok || ev.OccurredAt.Before(callSince(p)) {
			continue
		}
		delete(missing, ev.UserID)
		if endsCall(ev.EventType) {
			continue
		}
		id := ev.ExternalCallID
		p.CurrentCallID = &id
		if p.CurrentLeadID == nil {
			p.CurrentLeadID = ev.LeadID
		}
	}
	return nil
}

// callSince is the earliest time a call event may belong to p's call.
func callSince(p *ent.AgentPresence) time.Time {
	start := p.StatusChangedAt
	if p.CallStartedAt != nil {
		start = *p.CallStartedAt
	}
	return start.Add(-callLead)
}

// endsCall says whether an event of type t leaves the agent with no call.
func endsCall(t callevent.EventType) bool {
	return t == callevent.EventTypeCallEnded || t == callevent.EventTypeDisposition
}
