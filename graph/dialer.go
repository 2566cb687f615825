package graph

import (
	"context"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/dialer"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/viewer"
)

// recordCall records a call event through the dialer's flow.
func (r *Resolver) recordCall(ctx context.Context, in dialer.CallEventInput) (*ent.CallEvent, error) {
	return dialer.RecordCall(ctx, r.client(ctx), in)
}

// updatePresence sets an agent's status through the dialer's flow and
// answers the agent's board row.
func (r *Resolver) updatePresence(ctx context.Context, in dialer.PresenceInput) (*dialer.AgentStatus, error) {
	return dialer.UpdatePresence(ctx, r.client(ctx), in, r.now())
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

// attachRecording stores a recording URL on the latest event of a call,
// through the dialer's flow.
func (r *Resolver) attachRecording(ctx context.Context, externalCallID, url string) (*ent.CallEvent, error) {
	return dialer.AttachRecording(ctx, r.client(ctx), externalCallID, url)
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
