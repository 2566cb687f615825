// Package lending holds the lending half's flows: submitting a deal to a
// lender, its underwriting, the lender's decision, a withdrawal, the
// funding, and the commission's payments and clawbacks. Each is one
// function that reads top-down: take the lead, check, write, move the
// lead, withdraw the others, keep the rollups, emit the events. The
// GraphQL resolvers and the automation actions call these, in the caller's
// transaction; a flow called outside one runs in one of its own, so its
// rows commit together or not at all.
//
// What must hold on every write, whoever writes, stays in the ent hooks:
// field rules, the transition table (an application's status moves only as
// lendingrules.From allows), tenancy and privacy, the per-row events and
// the lenders report's rollups. The pure rules (the lender's box, a deal's
// terms) are internal/lendingrules'; the reads each database answers its
// own way are the store's (store.LockLead and the rest).
//
// It imports ent, the store and the helpers beside it, and the leaves.
package lending

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/stagesread"
	"github.com/lendingpipe/svc/internal/text"
	"github.com/lendingpipe/svc/internal/viewer"
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

// refError is the error of a reference to a row: a failure to read it
// (err), or the caller's mistake when it does not exist (nil).
func refError(err error, field, what string) error {
	if err != nil {
		return fmt.Errorf("checking %s: %w", field, err)
	}
	return apperr.Invalid(field, "no %s with this id exists in your organization", what)
}

// notFoundAsNil turns not-found into nil, which refError reports as the
// caller's mistake; other errors stay failures.
func notFoundAsNil(err error) error {
	if ent.IsNotFound(err) {
		return nil
	}
	return err
}

// moveLead moves the lead to its organization's first stage of slot when
// the lead's stage is in an earlier slot, and records the lead's
// conversion when convertedAt is given (a funding), in the same UPDATE when
// the lead moves. The move is an ordinary stage change: the lead hooks emit
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
		if err := c.Lead.Update().Where(lead.ID(l.ID)).SetConvertedAt(*convertedAt).Exec(sys); err != nil {
			return fmt.Errorf("recording the lead's conversion: %w", err)
		}
		return nil
	}
	// The hooks take the stages from here rather than reading them again,
	// and the lead ent reads back after the UPDATE, which only they use, is
	// narrowed to what they use of a stage move: the whole row, its JSON
	// columns decoded, cost more than the UPDATE.
	err = c.Lead.UpdateOne(l).SetStageID(target.ID).SetNillableConvertedAt(convertedAt).
		Select(lead.FieldOrgID, lead.FieldStageID, lead.FieldPrimaryAdvisorID).
		Exec(stagesread.With(sys, current, target))
	if err != nil {
		return fmt.Errorf("moving the lead to the %s stage: %w", slot, err)
	}
	return nil
}
