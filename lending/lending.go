// Package lending holds the lending half's flows: submitting a deal to a
// lender, its underwriting, the lender's decision, a withdrawal, the
// funding, and the commission's payments and clawbacks. Each is one
// function that reads top-down: take the lead, check, write, move the
// lead, withdraw the others, keep the rollups, emit the events. The
// GraphQL resolvers and the automation actions call these, in the caller's
// transaction; a flow called outside one runs in one of its own, so its
// rows commit together or not at all.
//
// Every effect of a flow is a step of it: the decision's time, the lenders
// report's rollups (analytics/rollup), the lead's counts, the events.
// Applications are written by these flows alone. What must hold on every
// write, whoever writes, stays in the ent hooks: field rules, the
// transition table (an application's status moves only as lendingrules.From
// allows; ent/schema/lending_hooks.go, moveApplication), tenancy and
// privacy, and the lead's own events (ent/schema/lead_events.go). The
// pure rules (the lender's box, a deal's terms) are internal/lendingrules';
// the reads each database answers its own way are the store's
// (store.LockLead and the rest).
//
// It imports ent, the store and the helpers beside it, the lead flows
// (leads: a lending flow moves its lead through them), and the leaves.
package lending

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/text"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
)

// writer is the organization the caller writes lending records in, once
// the caller may write them: asked first, so a caller who may not learns
// nothing of the rows it names.
func writer(ctx context.Context) (uuid.UUID, error) {
	return rule.RequireOrg(ctx, viewer.ScopeLendingWrite, "writing a lending record")
}

// named is a text input and the name the API gives it.
type named struct {
	name  string
	value any
}

// refuseNUL refuses text holding a NUL character, as every write does
// (text.RefuseNUL), before a flow reads anything by it: PostgreSQL refuses
// a NUL in a query's text. The first field holding one is named.
func refuseNUL(fields ...named) error {
	for _, f := range fields {
		if text.HasNUL(f.value) {
			return text.NULError(f.name)
		}
	}
	return nil
}

// moveLead moves the lead to its organization's first stage of slot when
// the lead's stage is in an earlier slot, and records the lead's
// conversion when convertedAt is given (a funding), in the same UPDATE when
// the lead moves (leads.MoveLocked). The move is an ordinary stage change:
// it is counted as every stage move is, and the lead hooks emit
// lead.status_changed and lead.stage_changed with the same actor as a
// manual move. The conversion is the funding's news (deal.funded), not a
// lead.updated of its own.
//
// l, taken by store.LockLead in the same transaction, is the lead before
// the update that the lead hooks compare with.
func moveLead(ctx context.Context, c *ent.Client, l *ent.Lead, slot string, convertedAt *time.Time) error {
	sys := rule.SystemContext(ctx)
	current, target, err := store.SlotStages(sys, c, l, slot)
	if err != nil {
		return err
	}
	if !lendingrules.Advances(string(current.SemanticSlot), slot) || target == nil {
		// Not earlier, or the organization has no stage for the slot.
		if convertedAt == nil {
			return nil
		}
		if err := leads.RecordConversion(sys, c, l.ID, *convertedAt); err != nil {
			return fmt.Errorf("recording the lead's conversion: %w", err)
		}
		return nil
	}
	if err := leads.MoveLocked(sys, c, l, current, target, convertedAt); err != nil {
		return fmt.Errorf("moving the lead to the %s stage: %w", slot, err)
	}
	return nil
}
