package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/enum"

	"github.com/lendingpipe/svc/internal/viewer"
)

// PipelineStage is one step of an organization's lending pipeline. Leads
// without a chosen stage start in the stage with the lowest position.
type PipelineStage struct{ ent.Schema }

func (PipelineStage) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("One step of the organization's lending pipeline. A lead created without a stage starts in the stage with the lowest position."),
		entgql.QueryField("stages").Description("The organization's pipeline stages; orderBy POSITION gives the pipeline's order."),
		entgql.RelayConnection(),
		entgql.Mutations(entgql.MutationCreate(), entgql.MutationUpdate()),
	}
}

func (PipelineStage) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "stages", LeadingIndexes: true}}
}

func (PipelineStage) Fields() []ent.Field {
	return []ent.Field{
		field.String("stage_key").Match(stageKeyPattern).Validate(runeLen(1, 50)).
			Comment("A stable key for integrations: 1 to 50 lowercase letters, digits and underscores, " +
				"starting with a letter; unique within the organization."),
		field.String("stage_label").Validate(runeLen(1, 100)).
			Comment("The name shown for the stage: 1 to 100 characters."),
		field.String("color").Match(hexColor).Default("#6b7280").
			Comment("The stage's display colour, #rrggbb (#6b7280 by default)."),
		field.Enum("semantic_slot").Values(enum.SemanticSlots...).
			Comment("What the stage means across pipelines, so reports work whatever an organization names its stages.").
			Annotations(valueDocs(enum.SemanticSlotDocs)),
		field.Int("position").NonNegative().Annotations(entgql.OrderField("POSITION")).
			Comment("The stage's place in the pipeline, 0 or more: lowest first."),
	}
}

func (PipelineStage) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("leads", Lead.Type).Annotations(noInput, entgql.RelayConnection()).
			Comment("The leads now in this stage."),
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
	return []ent.Hook{events.BumpOnCommit}
}
