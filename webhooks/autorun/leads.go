package autorun

import (
	"context"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
)

// The lead actions write a lead as the lead mutations (createLead,
// updateLead, moveLeadToStage, assignLead) do: through ent, in the run's
// transaction and as the automation's viewer, so the schema's hooks
// validate, store and announce the change exactly as for POST /v1/leads.

func createLead(ctx context.Context, c *ent.Client, in ent.CreateLeadInput) (*ent.Lead, error) {
	return c.Lead.Create().SetInput(in).Save(ctx)
}

func updateLead(ctx context.Context, c *ent.Client, id uuid.UUID, in ent.UpdateLeadInput) (*ent.Lead, error) {
	// entgql v0.7.0's generated Mutate appends input.Tags instead of
	// input.AppendTags, so the append is applied here instead.
	appendTags := in.AppendTags
	in.AppendTags = nil
	u := c.Lead.UpdateOneID(id).SetInput(in)
	if len(appendTags) > 0 {
		u.AppendTags(appendTags)
	}
	return u.Save(ctx)
}

// moveStage moves the lead; to its current stage it changes nothing and
// emits nothing.
func moveStage(ctx context.Context, c *ent.Client, id, stageID uuid.UUID) (*ent.Lead, error) {
	l, err := c.Lead.Get(ctx, id)
	if err != nil || l.StageID == stageID {
		return l, err
	}
	return c.Lead.UpdateOne(l).SetStageID(stageID).Save(ctx)
}

func assignLead(ctx context.Context, c *ent.Client, id, advisorID uuid.UUID) (*ent.Lead, error) {
	return c.Lead.UpdateOneID(id).SetPrimaryAdvisorID(advisorID).Save(ctx)
}
