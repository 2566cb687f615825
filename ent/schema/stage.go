package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/ent/enum"
	"github.com/lendingpipe/svc/ent/refs"

	"github.com/lendingpipe/svc/ent/viewer"
)

// PipelineStage is one step of an organization's lending pipeline. Leads
// without a chosen stage start in the stage with the lowest position.
type PipelineStage struct{ ent.Schema }

func (PipelineStage) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.QueryField("stages"),
		entgql.RelayConnection(),
		entgql.Mutations(entgql.MutationCreate(), entgql.MutationUpdate()),
	}
}

func (PipelineStage) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "stages", LeadingIndexes: true}}
}

func (PipelineStage) Fields() []ent.Field {
	return []ent.Field{
		field.String("stage_key").Match(stageKeyPattern).Validate(runeLen(1, 50)),
		field.String("stage_label").Validate(runeLen(1, 100)),
		field.String("color").Match(hexColor).Default("#6b7280"),
		// The stage's meaning across pipelines (open, working, won, lost, ...),
		// so reports work whatever an organization names its stages.
		field.Enum("semantic_slot").Values(enum.SemanticSlots...),
		field.Int("position").NonNegative().Annotations(entgql.OrderField("POSITION")),
	}
}

func (PipelineStage) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("leads", Lead.Type).Annotations(noInput, entgql.RelayConnection()),
	}
}

func (PipelineStage) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("org_id", "stage_key").Unique(),
		index.Fields("org_id", "position"),
	}
}

func (PipelineStage) Policy() ent.Policy { return orgPolicy("", viewer.ScopeAdmin) }

// Hooks: leads render their stage from a cache (graph), told of changes here.
func (PipelineStage) Hooks() []ent.Hook {
	return []ent.Hook{refs.BumpOnCommit}
}
