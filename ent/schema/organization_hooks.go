package schema

import (
	"context"
	"fmt"

	"entgo.io/ent"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/hook"
	"github.com/lendingpipe/svc/ent/pipelinestage"
)

func (Organization) Hooks() []ent.Hook {
	return []ent.Hook{hook.On(createDefaultPipeline, ent.OpCreate)}
}

// createDefaultPipeline gives every new organization the default lending
// pipeline, in the same transaction when the caller opened one.
func createDefaultPipeline(next ent.Mutator) ent.Mutator {
	return hook.OrganizationFunc(func(ctx context.Context, m *gen.OrganizationMutation) (gen.Value, error) {
		if _, ok := m.RollupZone(); !ok {
			// No records yet: the empty rollups are right in any zone.
			zone, ok := m.Timezone()
			if !ok {
				zone = "UTC"
			}
			m.SetRollupZone(zone)
		}
		v, err := next.Mutate(ctx, m)
		if err != nil {
			return nil, err
		}
		org := v.(*gen.Organization)
		builders := make([]*gen.PipelineStageCreate, len(DefaultPipeline))
		for i, s := range DefaultPipeline {
			builders[i] = m.Client().PipelineStage.Create().
				SetOrgID(org.ID).SetStageKey(s.Key).SetStageLabel(s.Label).
				SetColor(s.Color).SetSemanticSlot(pipelinestage.SemanticSlot(s.Slot)).SetPosition(i)
		}
		if err := m.Client().PipelineStage.CreateBulk(builders...).Exec(ctx); err != nil {
			return nil, fmt.Errorf("creating the default pipeline: %w", err)
		}
		return org, nil
	})
}
