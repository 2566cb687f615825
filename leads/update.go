package leads

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/rollup"
	"github.com/lendingpipe/svc/dialer/board"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
)

// Update changes the lead's fields as in says; in.AppendTags adds to the
// tags it has. The hooks emit lead.updated naming the fields changed.
func Update(ctx context.Context, c *ent.Client, id uuid.UUID, in ent.UpdateLeadInput) (*ent.Lead, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Lead, error) {
		return update(ctx, c, id, in)
	})
}

// BulkUpdate changes each of the leads ids as Update changes one, each
// with its own events, all or none: the first lead that cannot change
// rolls them all back.
func BulkUpdate(ctx context.Context, c *ent.Client, ids []uuid.UUID, in ent.UpdateLeadInput) ([]*ent.Lead, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) ([]*ent.Lead, error) {
		updated := make([]*ent.Lead, 0, len(ids))
		for _, id := range ids {
			l, err := update(ctx, c, id, in)
			if err != nil {
				return nil, fmt.Errorf("updating lead %s: %w", id, err)
			}
			updated = append(updated, l)
		}
		return updated, nil
	})
}

func update(ctx context.Context, c *ent.Client, id uuid.UUID, in ent.UpdateLeadInput) (*ent.Lead, error) {
	if err := writable(ctx); err != nil {
		return nil, err
	}
	// entgql's generated Mutate appends input.Tags instead of
	// input.AppendTags, so the append is applied here instead.
	appendTags := in.AppendTags
	in.AppendTags = nil
	u := c.Lead.UpdateOneID(id).SetInput(in)
	if len(appendTags) > 0 {
		u.AppendTags(appendTags)
	}
	l, err := u.Save(ctx)
	if err != nil {
		return nil, err
	}
	// An update moves no lead between stages (MoveStage does): no counts.
	if onBoard(u.Mutation()) {
		board.Written(ctx, c, board.Change{OrgID: l.OrgID, Leads: []uuid.UUID{l.ID}})
	}
	// The activity entry and the notifications of an update go here.
	return l, nil
}

// MoveStage moves the lead to the stage stageID and moves it between the
// stages' counts; the hooks emit lead.status_changed and
// lead.stage_changed. Moving a lead to the stage it is in changes nothing
// and emits nothing.
func MoveStage(ctx context.Context, c *ent.Client, id, stageID uuid.UUID) (*ent.Lead, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Lead, error) {
		l, err := c.Lead.Get(ctx, id)
		if err != nil || l.StageID == stageID {
			return l, err
		}
		moved, err := c.Lead.UpdateOne(l).SetStageID(stageID).Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := rollup.LeadMoved(ctx, c, l.OrgID, l.StageID, moved.StageID); err != nil {
			return nil, err
		}
		// A stage shows on no agents board row.
		// The activity entry and the notifications of a move go here.
		return moved, nil
	})
}

// Assign makes advisorID the lead's primary advisor; the hooks emit
// lead.assigned.
func Assign(ctx context.Context, c *ent.Client, id, advisorID uuid.UUID) (*ent.Lead, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Lead, error) {
		if err := writable(ctx); err != nil {
			return nil, err
		}
		l, err := c.Lead.UpdateOneID(id).SetPrimaryAdvisorID(advisorID).Save(ctx)
		if err != nil {
			return nil, err
		}
		// The advisor is counted nowhere and shows on no agents board row.
		// The activity entry and the notifications of an assignment go here.
		return l, nil
	})
}

// MarkDoNotCall marks l, read by the caller, do-not-call since at, with
// reason when given; the hooks emit lead.updated.
func MarkDoNotCall(ctx context.Context, c *ent.Client, l *ent.Lead, at time.Time, reason *string) (*ent.Lead, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Lead, error) {
		if err := writable(ctx); err != nil {
			return nil, err
		}
		return c.Lead.UpdateOne(l).SetIsDoNotCall(true).SetDncAt(at).SetNillableDncReason(reason).Save(ctx)
	})
}

// MoveLocked moves l, which the caller read and locked in this
// transaction (store.LockLead), from its stage current to target, and
// records its conversion when convertedAt is given, in one UPDATE: a
// lending flow's move of its lead, an ordinary stage change to the hooks,
// which take the stages' labels from current and target rather than
// reading them again.
func MoveLocked(ctx context.Context, c *ent.Client, l *ent.Lead, current, target *ent.PipelineStage, convertedAt *time.Time) error {
	sys := rule.SystemContext(ctx)
	// The lead ent reads back after the UPDATE, which only the hooks use,
	// is narrowed to what they use of a stage move: the whole row, its
	// JSON columns decoded, costs more than the UPDATE.
	moved, err := c.Lead.UpdateOne(l).SetStageID(target.ID).SetNillableConvertedAt(convertedAt).
		Select(lead.FieldOrgID, lead.FieldStageID, lead.FieldPrimaryAdvisorID).
		Save(WithStagesRead(sys, current, target))
	if err != nil {
		return err
	}
	return rollup.LeadMoved(sys, c, l.OrgID, l.StageID, moved.StageID)
}

// RecordConversion records that the lead converted at at (a funding that
// does not move it): no news of its own, the funding's deal.funded is.
func RecordConversion(ctx context.Context, c *ent.Client, id uuid.UUID, at time.Time) error {
	return c.Lead.Update().Where(lead.ID(id)).SetConvertedAt(at).Exec(rule.SystemContext(ctx))
}
