package leads

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/rollup"
	"github.com/lendingpipe/svc/dialer/board"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Update changes the lead's fields as in says; in.AppendTags adds to the
// tags it has, and removeTags takes these away from them. A change of its
// requested amount moves its stage's requested sum. The hooks emit
// lead.updated naming the fields changed.
func Update(ctx context.Context, c *ent.Client, id uuid.UUID, in ent.UpdateLeadInput, removeTags ...string) (*ent.Lead, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Lead, error) {
		return update(ctx, c, id, in, removeTags)
	})
}

// MaxBulk is the most leads one bulk change names (PRODUCT 10.7).
const MaxBulk = 500

// BulkChange is what a bulk change does to each of its leads: a move to
// StageID, an assignment to PrimaryAdvisorID, and an update of Priority
// and the tags (AddTags added, RemoveTags taken away), each only when given.
type BulkChange struct {
	StageID          *uuid.UUID
	PrimaryAdvisorID *uuid.UUID
	Priority         *lead.Priority
	AddTags          []string
	RemoveTags       []string
}

// BulkUpdate changes each of the leads ids as ch says, through the flows
// a single change of one lead takes (MoveStage, Assign, Update), so each
// lead gets the events and the activity those give it, all in one
// transaction: the first lead that cannot change (missing, another
// organization's: NOT_FOUND naming it) rolls them all back.
func BulkUpdate(ctx context.Context, c *ent.Client, ids []uuid.UUID, ch BulkChange) ([]*ent.Lead, error) {
	if err := writable(ctx); err != nil {
		return nil, err
	}
	if err := ch.check(ids); err != nil {
		return nil, err
	}
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) ([]*ent.Lead, error) {
		updated := make([]*ent.Lead, 0, len(ids))
		for _, id := range ids {
			l, err := ch.apply(ctx, c, id)
			if ent.IsNotFound(err) {
				return nil, apperr.New(apperr.NotFound, "lead %s not found", id)
			}
			if err != nil {
				return nil, fmt.Errorf("changing lead %s: %w", id, err)
			}
			updated = append(updated, l)
		}
		return updated, nil
	})
}

// check refuses a bulk change of no lead or too many, of a lead named
// twice, that changes nothing, or that adds and removes the same tag.
func (ch BulkChange) check(ids []uuid.UUID) error {
	if len(ids) == 0 {
		return apperr.Invalid("ids", "must name at least one lead")
	}
	if len(ids) > MaxBulk {
		return apperr.Invalid("ids", "must name at most %d leads, not %d", MaxBulk, len(ids))
	}
	if ch.StageID == nil && ch.PrimaryAdvisorID == nil && ch.Priority == nil && len(ch.AddTags) == 0 && len(ch.RemoveTags) == 0 {
		return apperr.Invalid("input", "must name a change: stageId, primaryAdvisorId, priority, addTags or removeTags")
	}
	seen := make(map[uuid.UUID]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			return apperr.Invalid("ids", "names lead %s twice", id)
		}
		seen[id] = true
	}
	for _, tag := range ch.RemoveTags {
		if slices.Contains(ch.AddTags, tag) {
			return apperr.Invalid("removeTags", "names %s, which addTags adds", apperr.Quote(tag))
		}
	}
	return nil
}

// apply changes one lead as the single changes would, one after the other.
func (ch BulkChange) apply(ctx context.Context, c *ent.Client, id uuid.UUID) (*ent.Lead, error) {
	l, err := c.Lead.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if ch.StageID != nil {
		if l, err = MoveStage(ctx, c, id, *ch.StageID); err != nil {
			return nil, err
		}
	}
	if ch.PrimaryAdvisorID != nil {
		if l, err = Assign(ctx, c, id, *ch.PrimaryAdvisorID); err != nil {
			return nil, err
		}
	}
	if ch.Priority != nil || len(ch.AddTags) > 0 || len(ch.RemoveTags) > 0 {
		in := ent.UpdateLeadInput{Priority: ch.Priority, AppendTags: ch.AddTags}
		if l, err = Update(ctx, c, id, in, ch.RemoveTags...); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func update(ctx context.Context, c *ent.Client, id uuid.UUID, in ent.UpdateLeadInput, removeTags []string) (*ent.Lead, error) {
	if err := writable(ctx); err != nil {
		return nil, err
	}
	// What the change is computed from (the amount its stage's sum holds,
	// the tags it takes some away from) is read and held first, so that
	// no change made meanwhile is lost.
	amountChanges := in.RequestedAmount != nil || in.ClearRequestedAmount
	var before *ent.Lead
	if amountChanges || len(removeTags) > 0 {
		var err error
		if before, err = lockLead(ctx, c, id, lead.FieldStageID, lead.FieldRequestedAmount, lead.FieldTags); err != nil {
			return nil, err
		}
	}
	// entgql's generated Mutate appends input.Tags instead of
	// input.AppendTags, so the append is applied here instead.
	appendTags := in.AppendTags
	in.AppendTags = nil
	u := c.Lead.UpdateOneID(id).SetInput(in)
	switch {
	case len(removeTags) > 0:
		if tags, changed := withoutTags(before.Tags, appendTags, removeTags); changed {
			u.SetTags(tags)
		}
	case len(appendTags) > 0:
		u.AppendTags(appendTags)
	}
	l, err := saveRecorded(ctx, c, u)
	if err != nil {
		return nil, err
	}
	if in.Industry != nil || in.ClearIndustry {
		if err := store.KeepIndustryKey(ctx, c, l.ID, l.Industry); err != nil {
			return nil, err
		}
	}
	if amountChanges {
		if err := rollup.RequestChanged(ctx, c, l.OrgID, l.StageID, before.RequestedAmount, l.RequestedAmount); err != nil {
			return nil, err
		}
	}
	// An update moves no lead between stages (MoveStage does).
	if onBoard(u.Mutation()) {
		board.Written(ctx, c, board.Change{OrgID: l.OrgID, Leads: []uuid.UUID{l.ID}})
	}
	return l, nil
}

// withoutTags is tags with add appended (as an append does) and remove
// taken away, and whether that changes them.
func withoutTags(tags, add, remove []string) ([]string, bool) {
	out := slices.Concat(tags, add)
	out = slices.DeleteFunc(out, func(t string) bool { return slices.Contains(remove, t) })
	return out, !slices.Equal(out, tags)
}

// lockLead reads the lead's cols, within the viewer's organization, and
// holds its row to the end of the transaction (store.LockLead).
func lockLead(ctx context.Context, c *ent.Client, id uuid.UUID, cols ...string) (*ent.Lead, error) {
	ps := []predicate.Lead{lead.ID(id)}
	if v, ok := viewer.FromContext(ctx); ok && v.OrgID != uuid.Nil {
		ps = append(ps, lead.OrgID(v.OrgID))
	}
	return store.LockLead(ctx, c, store.LeadRead{Cols: cols}, ps...)
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
		// The two stages are read once, for the hooks (the target's
		// organization, the event's labels) and for the history's summary.
		stages, err := c.PipelineStage.Query().Where(pipelinestage.IDIn(l.StageID, stageID)).
			Select(pipelinestage.FieldOrgID, pipelinestage.FieldStageLabel).All(rule.SystemContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("reading the stages: %w", err)
		}
		moved, err := c.Lead.UpdateOne(l).SetStageID(stageID).Save(WithStagesRead(ctx, stages...))
		if err != nil {
			return nil, err
		}
		if err := rollup.LeadMoved(ctx, c, l.OrgID, l.StageID, moved.StageID, l.RequestedAmount); err != nil {
			return nil, err
		}
		// A stage shows on no agents board row.
		from, to := stageIn(stages, l.StageID), stageIn(stages, moved.StageID)
		return moved, recordStageChanged(ctx, c, moved, from, to)
	})
}

// stageIn is the stage id among stages, as MoveStage read them. Both are
// found once the move has saved: its hooks refuse a stage the organization
// does not have.
func stageIn(stages []*ent.PipelineStage, id uuid.UUID) *ent.PipelineStage {
	for _, s := range stages {
		if s.ID == id {
			return s
		}
	}
	return &ent.PipelineStage{ID: id}
}

// Assign makes advisorID the lead's primary advisor; the hooks emit
// lead.assigned.
func Assign(ctx context.Context, c *ent.Client, id, advisorID uuid.UUID) (*ent.Lead, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Lead, error) {
		if err := writable(ctx); err != nil {
			return nil, err
		}
		// The advisor is counted nowhere and shows on no agents board row.
		return saveRecorded(ctx, c, c.Lead.UpdateOneID(id).SetPrimaryAdvisorID(advisorID))
	})
}

// MarkDoNotCall marks l, read by the caller, do-not-call since at, with
// reason when given; the hooks emit lead.updated.
func MarkDoNotCall(ctx context.Context, c *ent.Client, l *ent.Lead, at time.Time, reason *string) (*ent.Lead, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Lead, error) {
		if err := writable(ctx); err != nil {
			return nil, err
		}
		return saveRecorded(ctx, c, c.Lead.UpdateOne(l).SetIsDoNotCall(true).SetDncAt(at).SetNillableDncReason(reason))
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
	if err := rollup.LeadMoved(sys, c, l.OrgID, l.StageID, moved.StageID, l.RequestedAmount); err != nil {
		return err
	}
	moved.ID, moved.OrgID = l.ID, l.OrgID
	return recordStageChanged(ctx, c, moved, current, target)
}

// saveRecorded saves u and records the attributes it changed as a
// lead.updated entry of the lead's history.
func saveRecorded(ctx context.Context, c *ent.Client, u *ent.LeadUpdateOne) (*ent.Lead, error) {
	b, err := readBefore(ctx, u.Mutation())
	if err != nil {
		return nil, err
	}
	l, err := u.Save(ctx)
	if err != nil {
		return nil, err
	}
	return l, recordUpdated(ctx, c, l, b.changes())
}

// RecordConversion records that the lead converted at at (a funding that
// does not move it): no news of its own, the funding's deal.funded is.
func RecordConversion(ctx context.Context, c *ent.Client, id uuid.UUID, at time.Time) error {
	return c.Lead.Update().Where(lead.ID(id)).SetConvertedAt(at).Exec(rule.SystemContext(ctx))
}
