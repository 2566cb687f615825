package dialer

import (
	"time"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/agentpresence"
)

// PresenceState is the stored part of an agent's presence.
type PresenceState struct {
	Status          agentpresence.Status
	CurrentCallID   *string
	CallStartedAt   *time.Time
	StatusChangedAt time.Time
}

// NextPresence applies an update to the previous state (nil for an agent
// with none). SPEC 3.2 shows no restrictions, so every move is allowed; the
// call fields are normalised so the board never shows a contradiction:
//   - only on_call keeps a current call: any other status clears it;
//   - on_call without a currentCallId keeps the call already in progress
//     (an agent re-reported on the same call), else has no call id;
//   - callStartedAt is set when a call starts (entering on_call, or a new
//     call id while on_call) and kept while the same call goes on;
//   - statusChangedAt moves only when the status changes.
func NextPresence(prev *ent.AgentPresence, in PresenceInput, now time.Time) PresenceState {
	next := PresenceState{Status: in.Status, StatusChangedAt: now}
	if prev != nil && prev.Status == in.Status {
		next.StatusChangedAt = prev.StatusChangedAt
	}
	if in.Status != agentpresence.StatusOnCall {
		return next
	}
	wasOnCall := prev != nil && prev.Status == agentpresence.StatusOnCall
	next.CurrentCallID = in.CurrentCallID
	if next.CurrentCallID == nil && wasOnCall {
		next.CurrentCallID = prev.CurrentCallID
	}
	sameCall := wasOnCall && equalPtr(prev.CurrentCallID, next.CurrentCallID)
	if sameCall && prev.CallStartedAt != nil {
		next.CallStartedAt = prev.CallStartedAt
	} else {
		next.CallStartedAt = &now
	}
	return next
}

func equalPtr(a, b *string) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}
