package schema

import (
	"context"
	"fmt"
	"slices"

	"entgo.io/ent"
	"github.com/google/uuid"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/callevent"
	"github.com/lendingpipe/svc/ent/hook"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
)

// DNCDispositions mark the lead do-not-call when a call ends with them.
var DNCDispositions = []string{"do_not_call", "dnc"}

func (CallEvent) Hooks() []ent.Hook {
	// The dialer report's rollups and the agents board's row are the
	// dialer flows' steps (dialer.RecordCall, dialer.AttachRecording).
	return []ent.Hook{
		hook.On(checkOccurredAt, ent.OpCreate|ent.OpUpdate|ent.OpUpdateOne),
		hook.On(callEventEffects, ent.OpCreate),
		hook.On(keepCallCounted, ent.OpUpdate|ent.OpUpdateOne),
		hook.On(boundMetadata, ent.OpCreate|ent.OpUpdate|ent.OpUpdateOne),
	}
}

func (AgentPresence) Hooks() []ent.Hook {
	// The agents board's row is the presence flow's step
	// (dialer.UpdatePresence).
	return []ent.Hook{
		hook.On(checkPresenceRefs, ent.OpCreate|ent.OpUpdate|ent.OpUpdateOne),
		hook.On(boundMetadata, ent.OpCreate|ent.OpUpdate|ent.OpUpdateOne),
	}
}

// callCounted are the fields of a call event the dialer rollups count by:
// once recorded, they do not change.
var callCounted = []string{callevent.FieldOrgID, callevent.FieldUserID, callevent.FieldExternalCallID,
	callevent.FieldEventType, callevent.FieldDurationSeconds, callevent.FieldDisposition, callevent.FieldOccurredAt}

// keepCallCounted refuses a change to what the dialer rollups counted of
// an event.
func keepCallCounted(next ent.Mutator) ent.Mutator {
	return hook.CallEventFunc(func(ctx context.Context, m *gen.CallEventMutation) (gen.Value, error) {
		if touches(m, callCounted...) {
			return nil, apperr.Invalid("callEvent", "a recorded call event's call, agent, type, duration, disposition and time do not change")
		}
		return next.Mutate(ctx, m)
	})
}

// touches reports whether m sets or clears one of fields.
func touches(m ent.Mutation, fields ...string) bool {
	for _, f := range fields {
		if _, set := m.Field(f); set || m.FieldCleared(f) {
			return true
		}
	}
	return false
}

// boundMetadata keeps a metadata map (a connector's vendor fields among
// them) within bounds.Metadata, whichever surface wrote it.
func boundMetadata(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		if v, ok := m.Field("metadata"); ok {
			if md, ok := v.(map[string]any); ok {
				if err := bounds.Metadata.Check("metadata", md); err != nil {
					return nil, err
				}
			}
		}
		return next.Mutate(ctx, m)
	})
}

// callEventEffects checks that agent and lead belong to the caller's
// organization, then applies the call to the lead in the same transaction:
// lastContactedAt, and do-not-call for a DNC disposition. The lead changes
// through its own mutation, so its hooks (and the outbox's lead.updated)
// see it like any other update.
func callEventEffects(next ent.Mutator) ent.Mutator {
	return hook.CallEventFunc(func(ctx context.Context, m *gen.CallEventMutation) (gen.Value, error) {
		orgID, _ := m.OrgID()
		userID, _ := m.UserID()
		if err := userInOrg(ctx, m.Client(), orgID, userID, "userId"); err != nil {
			return nil, err
		}
		leadID, hasLead := m.LeadID()
		var called *gen.Lead
		if hasLead {
			// Read once: the check and applyCallToLead share it, and
			// updating from the loaded lead gives the lead's hooks its old
			// values without reading it again.
			var err error
			called, err = m.Client().Lead.Query().Where(lead.ID(leadID), lead.OrgID(orgID)).Only(rule.SystemContext(ctx))
			if err != nil {
				if gen.IsNotFound(err) {
					err = nil
				}
				return nil, refError(err, "leadId", "lead")
			}
		}
		v, err := next.Mutate(ctx, m)
		if err != nil || !hasLead {
			return v, err
		}
		ev := v.(*gen.CallEvent)
		if err := applyCallToLead(ctx, m.Client(), called, ev); err != nil {
			return nil, err
		}
		return ev, nil
	})
}

// applyCallToLead updates l, the called lead as read in this transaction.
func applyCallToLead(ctx context.Context, c *gen.Client, l *gen.Lead, ev *gen.CallEvent) error {
	u := c.Lead.UpdateOne(l)
	changed := false
	if l.LastContactedAt == nil || ev.OccurredAt.After(*l.LastContactedAt) {
		u.SetLastContactedAt(ev.OccurredAt)
		changed = true
	}
	if ev.Disposition != nil && slices.Contains(DNCDispositions, *ev.Disposition) && !l.IsDoNotCall {
		reason := *ev.Disposition
		if ev.Notes != nil && *ev.Notes != "" {
			reason = *ev.Notes
		}
		u.SetIsDoNotCall(true).SetDncReason(truncate(reason, 500)).SetDncAt(ev.OccurredAt)
		changed = true
	}
	if !changed {
		return nil
	}
	if err := u.Exec(rule.SystemContext(ctx)); err != nil {
		return fmt.Errorf("updating the called lead: %w", err)
	}
	return nil
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}

// checkPresenceRefs keeps presence within the caller's organization.
func checkPresenceRefs(next ent.Mutator) ent.Mutator {
	return hook.AgentPresenceFunc(func(ctx context.Context, m *gen.AgentPresenceMutation) (gen.Value, error) {
		orgID, ok := m.OrgID()
		if v, isViewer := viewer.FromContext(ctx); !ok && isViewer {
			orgID = v.OrgID
		}
		if userID, ok := m.UserID(); ok {
			if err := userInOrg(ctx, m.Client(), orgID, userID, "userId"); err != nil {
				return nil, err
			}
		}
		if leadID, ok := m.CurrentLeadID(); ok {
			if err := leadInOrg(ctx, m.Client(), orgID, leadID, "currentLeadId"); err != nil {
				return nil, err
			}
		}
		return next.Mutate(ctx, m)
	})
}

func userInOrg(ctx context.Context, c *gen.Client, orgID, id uuid.UUID, field string) error {
	n, err := c.User.Query().Where(user.ID(id), user.OrgID(orgID)).Count(rule.SystemContext(ctx))
	if err != nil || n == 0 {
		return refError(err, field, "user")
	}
	return nil
}

func leadInOrg(ctx context.Context, c *gen.Client, orgID, id uuid.UUID, field string) error {
	n, err := c.Lead.Query().Where(lead.ID(id), lead.OrgID(orgID)).Count(rule.SystemContext(ctx))
	if err != nil || n == 0 {
		return refError(err, field, "lead")
	}
	return nil
}
