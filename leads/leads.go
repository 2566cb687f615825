// Package leads holds a lead's flows: creating leads, updating one or
// many, moving one to a stage, assigning it. Each is one function that
// reads top-down: check, defaults, write, counts, board rows. The GraphQL
// resolvers, the REST handlers, the dialer's do-not-call, the automation
// actions, the CSV import and the lending flows call these, in the
// caller's transaction; a flow called outside one runs in one of its own,
// so its rows commit together or not at all.
//
// What must hold on every write, whoever writes, stays in the ent hooks:
// tenancy and privacy, the field rules, references into the lead's own
// organization, and each mutation's webhook events
// (ent/schema/lead_events.go), written in its transaction.
//
// It imports ent, the store, the rollups, the agents board and the leaves.
package leads

import (
	"context"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
)

// writable is nil when the caller may write leads: asked first, so a
// caller who may not is refused before a flow reads anything for it.
func writable(ctx context.Context) error {
	return rule.Require(ctx, viewer.ScopeLeadsWrite)
}

// onBoard reports whether m changes what an agents board shows of a lead:
// its business and contact names, shown for an agent's current lead.
func onBoard(m *ent.LeadMutation) bool {
	for _, f := range []string{lead.FieldBusinessName, lead.FieldContactFirstName, lead.FieldContactLastName} {
		if _, set := m.Field(f); set || m.FieldCleared(f) {
			return true
		}
	}
	return false
}
