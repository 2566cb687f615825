package dialer

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/agentpresence"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/store"
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

// UpdatePresence sets an agent's status (one record per agent, keyed by
// the agent's user id), tells the agents boards that the agent's row
// changed (once the change commits), and answers the agent's board row.
// The presence hooks (ent/schema/dialer_hooks.go, checkPresenceRefs)
// keep the agent and the current lead within the caller's organization.
func UpdatePresence(ctx context.Context, c *ent.Client, in PresenceInput, now time.Time) (*AgentStatus, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*AgentStatus, error) {
		p, err := writePresence(ctx, c, in, now.UTC())
		if err != nil {
			return nil, err
		}
		if err := checkCallID(in); err != nil {
			return nil, err
		}
		boardChanged(ctx, c, p.OrgID, p.UserID)
		return agentStatus(ctx, c, in.UserID, now)
	})
}

// writePresence creates the agent's presence or moves it to the next
// state (NextPresence), and answers the row as written.
func writePresence(ctx context.Context, c *ent.Client, in PresenceInput, now time.Time) (*ent.AgentPresence, error) {
	prev, err := c.AgentPresence.Query().Where(agentpresence.UserID(in.UserID)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	next := NextPresence(prev, in, now)
	if prev == nil {
		metadata := in.Metadata
		if metadata == nil {
			metadata = map[string]any{}
		}
		return c.AgentPresence.Create().SetID(in.UserID).SetUserID(in.UserID).
			SetStatus(next.Status).SetNillableCurrentCallID(next.CurrentCallID).
			SetNillableCurrentLeadID(onCallOnly(next, in.CurrentLeadID)).SetNillableCampaignName(in.CampaignName).
			SetStatusChangedAt(next.StatusChangedAt).SetNillableCallStartedAt(next.CallStartedAt).
			SetMetadata(metadata).Save(ctx)
	}
	u := c.AgentPresence.UpdateOne(prev).SetStatus(next.Status).SetStatusChangedAt(next.StatusChangedAt)
	// Set or clear, never both: PostgreSQL rejects two assignments to a column.
	if next.CurrentCallID == nil {
		u.ClearCurrentCallID()
	} else {
		u.SetCurrentCallID(*next.CurrentCallID)
	}
	if next.CallStartedAt == nil {
		u.ClearCallStartedAt()
	} else {
		u.SetCallStartedAt(*next.CallStartedAt)
	}
	if lead := onCallOnly(next, keepLead(prev, in, next)); lead == nil {
		u.ClearCurrentLeadID()
	} else {
		u.SetCurrentLeadID(*lead)
	}
	if in.CampaignName != nil {
		u.SetCampaignName(*in.CampaignName)
	}
	if in.Metadata != nil {
		u.SetMetadata(in.Metadata)
	}
	return u.Save(ctx)
}

// checkCallID checks a call id sent with a status other than on_call. Only
// on_call stores a call id, and ent checked it then. One sent with another
// status is checked all the same (a value out of bounds is a mistake,
// never silently dropped), after the write so that a key without the
// scope is still refused first; the transaction takes the write back.
func checkCallID(in PresenceInput) error {
	if in.CurrentCallID == nil || in.Status == agentpresence.StatusOnCall {
		return nil
	}
	if err := agentpresence.CurrentCallIDValidator(*in.CurrentCallID); err != nil {
		return apperr.Invalid("currentCallId", "%s", err)
	}
	return nil
}

// onCallOnly keeps a current lead only while the agent is on a call.
func onCallOnly(next PresenceState, lead *uuid.UUID) *uuid.UUID {
	if next.Status != agentpresence.StatusOnCall {
		return nil
	}
	return lead
}

// keepLead is the lead of the call: the one sent, or the one of the call
// already in progress.
func keepLead(prev *ent.AgentPresence, in PresenceInput, next PresenceState) *uuid.UUID {
	if in.CurrentLeadID != nil || prev.Status != agentpresence.StatusOnCall {
		return in.CurrentLeadID
	}
	if next.CurrentCallID != nil && prev.CurrentCallID != nil && *next.CurrentCallID == *prev.CurrentCallID {
		return prev.CurrentLeadID
	}
	return nil
}

// agentStatus is one agent's board row.
func agentStatus(ctx context.Context, c *ent.Client, userID uuid.UUID, now time.Time) (*AgentStatus, error) {
	u, err := c.User.Get(ctx, userID)
	if err != nil {
		return nil, err
	}
	rows, err := Enrich(ctx, c, u.OrgID, []*ent.User{u}, now)
	if err != nil {
		return nil, err
	}
	return rows[0], nil
}
