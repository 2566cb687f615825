package graph

import (
	"context"
	"maps"
	"strings"

	"entgo.io/ent/dialect/sql"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/dialer"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/agentpresence"
	"github.com/lendingpipe/svc/ent/callevent"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/viewer"
)

// recordCall stores a call event; its hook applies it to the lead.
func (r *Resolver) recordCall(ctx context.Context, in dialer.CallEventInput) (*ent.CallEvent, error) {
	c := r.client(ctx).CallEvent.Create().
		SetExternalCallID(in.ExternalCallID).SetUserID(in.UserID).SetNillableLeadID(in.LeadID).
		SetEventType(in.EventType).SetNillableDirection(in.Direction).
		SetNillableDurationSeconds(in.DurationSeconds).SetNillableDisposition(in.Disposition).
		SetNillableNotes(in.Notes).SetOccurredAt(in.OccurredAt.UTC())
	if in.Metadata != nil {
		c.SetMetadata(in.Metadata)
	}
	return c.Save(ctx)
}

// updatePresence sets an agent's status (one record per agent, keyed by the
// agent's user id) and answers the enriched row; the presence hook tells
// subscribers once the change has committed.
func (r *Resolver) updatePresence(ctx context.Context, in dialer.PresenceInput) (*dialer.AgentStatus, error) {
	c := r.client(ctx)
	prev, err := c.AgentPresence.Query().Where(agentpresence.UserID(in.UserID)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	now := r.now().UTC()
	next := dialer.NextPresence(prev, in, now)
	if prev == nil {
		err = c.AgentPresence.Create().SetID(in.UserID).SetUserID(in.UserID).
			SetStatus(next.Status).SetNillableCurrentCallID(next.CurrentCallID).
			SetNillableCurrentLeadID(onCallOnly(next, in.CurrentLeadID)).SetNillableCampaignName(in.CampaignName).
			SetStatusChangedAt(next.StatusChangedAt).SetNillableCallStartedAt(next.CallStartedAt).
			SetMetadata(orEmpty(in.Metadata)).Exec(ctx)
	} else {
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
		err = u.Exec(ctx)
	}
	if err != nil {
		return nil, err
	}
	if in.CurrentCallID != nil && next.CurrentCallID == nil {
		// Only on_call stores a call id, and ent checked it then. One sent
		// with another status is checked all the same (a value out of
		// bounds is a mistake, never silently dropped), after the write so
		// that a key without the scope is still refused first; the
		// operation's transaction takes the write back.
		if err := agentpresence.CurrentCallIDValidator(*in.CurrentCallID); err != nil {
			return nil, apperr.Invalid("currentCallId", "%s", err)
		}
	}
	return r.agentStatus(ctx, in.UserID)
}

// onCallOnly keeps a current lead only while the agent is on a call.
func onCallOnly(next dialer.PresenceState, lead *uuid.UUID) *uuid.UUID {
	if next.Status != agentpresence.StatusOnCall {
		return nil
	}
	return lead
}

// keepLead is the lead of the call: the one sent, or the one of the call
// already in progress.
func keepLead(prev *ent.AgentPresence, in dialer.PresenceInput, next dialer.PresenceState) *uuid.UUID {
	if in.CurrentLeadID != nil || prev.Status != agentpresence.StatusOnCall {
		return in.CurrentLeadID
	}
	if next.CurrentCallID != nil && prev.CurrentCallID != nil && *next.CurrentCallID == *prev.CurrentCallID {
		return prev.CurrentLeadID
	}
	return nil
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// agentStatus is one agent's board row.
func (r *Resolver) agentStatus(ctx context.Context, userID uuid.UUID) (*dialer.AgentStatus, error) {
	u, err := r.client(ctx).User.Get(ctx, userID)
	if err != nil {
		return nil, err
	}
	rows, err := dialer.Enrich(ctx, r.client(ctx), u.OrgID, []*ent.User{u}, r.now())
	if err != nil {
		return nil, err
	}
	return rows[0], nil
}

// presenceChanges streams the viewer's organization's presence changes
// until the subscription ends.
func (r *Resolver) presenceChanges(ctx context.Context) (<-chan *dialer.AgentStatus, error) {
	v, ok := viewer.FromContext(ctx)
	if !ok {
		return nil, apperr.New(apperr.Unauthorized, "authentication required")
	}
	ch, cancel := r.presence.Subscribe(v.OrgID)
	go func() {
		<-ctx.Done()
		cancel()
	}()
	return ch, nil
}

// attachRecording stores a recording URL on the latest event of a call.
func (r *Resolver) attachRecording(ctx context.Context, externalCallID, url string) (*ent.CallEvent, error) {
	if !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://") {
		return nil, apperr.Invalid("recordingUrl", "must be an http(s) URL")
	}
	c := r.client(ctx)
	ev, err := c.CallEvent.Query().Where(callevent.ExternalCallID(externalCallID)).
		Order(callevent.ByOccurredAt(sql.OrderDesc()), callevent.ByCreatedAt(sql.OrderDesc())).First(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.Invalid("externalCallId", "no call event with this externalCallId")
	}
	if err != nil {
		return nil, err
	}
	meta := orEmpty(maps.Clone(ev.Metadata))
	meta["recordingUrl"] = url
	return c.CallEvent.UpdateOne(ev).SetMetadata(meta).Save(ctx)
}

// markDoNotCall marks one lead, or every lead of the organization with the
// phone number, do-not-call.
func (r *Resolver) markDoNotCall(ctx context.Context, leadID *uuid.UUID, phone, reason *string) (*DoNotCallResult, error) {
	found, err := dialer.MarkDoNotCall(ctx, r.client(ctx), leadID, phone, reason, r.now())
	if err != nil {
		return nil, err
	}
	return &DoNotCallResult{Phone: phone, Reason: reason, Leads: found, LeadCount: len(found)}, nil
}

// firstLeads is GraphQL's page of a do-not-call result's leads; the
// operation's bounds (bounds.go) have refused a first over the page size
// and supplied it when absent.
func firstLeads(res *DoNotCallResult, first *int) []*ent.Lead {
	n := DefaultMaxPageSize
	if first != nil {
		n = max(*first, 0)
	}
	return res.Leads[:min(n, len(res.Leads))]
}
