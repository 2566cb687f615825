package schema

import (
	"context"
	"fmt"
	"slices"

	"entgo.io/ent"
	"github.com/google/uuid"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/hook"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/stagesread"
)

// A lead's events: every write of a lead, whoever makes it (the leads
// flows, the lending flows' moves, a call's effect on its lead), writes
// them to the outbox in its own transaction, so they commit or roll back
// with it.

// emitLeadEvents writes the lead's webhook events to the outbox in the
// mutation's transaction (SPEC 6.2, 6.3): lead.created; a stage move as
// lead.status_changed and lead.stage_changed; lead.assigned; lead.updated
// for any other change.
func emitLeadEvents(next ent.Mutator) ent.Mutator {
	return hook.LeadFunc(func(ctx context.Context, m *gen.LeadMutation) (gen.Value, error) {
		var before *leadBefore
		if m.Op().Is(ent.OpUpdateOne) {
			var err error
			if before, err = oldLead(ctx, m); err != nil {
				return nil, err
			}
		}
		changed := m.Fields()
		v, err := next.Mutate(ctx, m)
		if err != nil {
			return nil, err
		}
		l, ok := v.(*gen.Lead)
		if !ok {
			return v, nil
		}
		if m.Op().Is(ent.OpCreate) {
			return l, events.Emit(ctx, m.Client(), l.OrgID, event.LeadCreated, leadCreated(l))
		}
		if before == nil {
			return l, nil
		}
		return l, emitLeadChanges(ctx, m.Client(), before, l, changed)
	})
}

// leadBefore is what the lead events compare of a lead before its update.
type leadBefore struct {
	stageID   uuid.UUID
	advisorID *uuid.UUID
}

// oldLead reads the lead's values before the update through the mutation:
// one query per mutation, none when the update began from a lead already
// loaded (UpdateOne). nil when the lead does not exist.
func oldLead(ctx context.Context, m *gen.LeadMutation) (*leadBefore, error) {
	sys := rule.SystemContext(ctx)
	stage, err := m.OldStageID(sys)
	if err != nil {
		if gen.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading the lead before its update: %w", err)
	}
	advisor, err := m.OldPrimaryAdvisorID(sys)
	if err != nil {
		return nil, fmt.Errorf("reading the lead before its update: %w", err)
	}
	return &leadBefore{stageID: stage, advisorID: advisor}, nil
}

func leadCreated(l *gen.Lead) map[string]any {
	return map[string]any{
		"leadId": l.ID, "orgId": l.OrgID, "businessName": l.BusinessName,
		"contactFirstName": l.ContactFirstName, "contactLastName": l.ContactLastName, "email": l.Email,
		"source": l.Source, "priority": l.Priority, "stageId": l.StageID, "advisorId": l.PrimaryAdvisorID,
	}
}

// bookkeeping fields change with others and are not news of their own.
// converted_at is written only by a funding, whose news is deal.funded.
var bookkeeping = []string{lead.FieldUpdatedAt, lead.FieldStageChangedAt, lead.FieldStageID, lead.FieldPrimaryAdvisorID,
	lead.FieldConvertedAt}

// emitLeadChanges writes the events of an update from before to after.
// Of after it uses the id, organization, stage and advisor alone: a
// lending move of the lead (leads.MoveLocked) reads back only those.
func emitLeadChanges(ctx context.Context, c *gen.Client, before *leadBefore, after *gen.Lead, changed []string) error {
	if before.stageID != after.StageID {
		data, err := stageChange(ctx, c, before, after)
		if err != nil {
			return err
		}
		if err := events.EmitEach(ctx, c, after.OrgID, data, event.LeadStatusChanged, event.LeadStageChanged); err != nil {
			return err
		}
	}
	if !equalUUID(before.advisorID, after.PrimaryAdvisorID) {
		data := map[string]any{"leadId": after.ID, "orgId": after.OrgID, "advisorId": after.PrimaryAdvisorID,
			"previousAdvisorId": before.advisorID, "assignedBy": events.Actor(ctx)}
		if err := events.Emit(ctx, c, after.OrgID, event.LeadAssigned, data); err != nil {
			return err
		}
	}
	var fields []string
	for _, f := range changed {
		if !slices.Contains(bookkeeping, f) {
			fields = append(fields, apperr.FieldName(f))
		}
	}
	if len(fields) == 0 {
		return nil
	}
	slices.Sort(fields)
	data := map[string]any{"leadId": after.ID, "orgId": after.OrgID, "changedFields": fields, "updatedBy": events.Actor(ctx)}
	return events.Emit(ctx, c, after.OrgID, event.LeadUpdated, data)
}

func stageChange(ctx context.Context, c *gen.Client, before *leadBefore, after *gen.Lead) (map[string]any, error) {
	label, err := stageLabels(ctx, c, before.stageID, after.StageID)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"leadId": after.ID, "orgId": after.OrgID,
		"previousStageId": before.stageID, "previousStageLabel": label[before.stageID],
		"newStageId": after.StageID, "newStageLabel": label[after.StageID],
		"changedBy": events.Actor(ctx),
	}, nil
}

// stageLabels are the labels of the stages ids, read unless ctx carries
// them (stagesread.With).
func stageLabels(ctx context.Context, c *gen.Client, ids ...uuid.UUID) (map[uuid.UUID]string, error) {
	label := map[uuid.UUID]string{}
	var unread []uuid.UUID
	for _, id := range ids {
		if st, ok := stagesread.Of(ctx, id); ok {
			label[id] = st.Label
		} else {
			unread = append(unread, id)
		}
	}
	if len(unread) == 0 {
		return label, nil
	}
	stages, err := c.PipelineStage.Query().Where(pipelinestage.IDIn(unread...)).
		Select(pipelinestage.FieldStageLabel).All(rule.SystemContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("reading stage labels: %w", err)
	}
	for _, s := range stages {
		label[s.ID] = s.StageLabel
	}
	return label, nil
}

func equalUUID(a, b *uuid.UUID) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}
