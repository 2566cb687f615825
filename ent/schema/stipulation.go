package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Stipulation is what an approved application still waits for before it
// funds (PRODUCT 11): one per entry of the approval's conditions, or added
// later. Package lending holds its transitions and keeps the application's
// count of outstanding ones in the same transaction.
type Stipulation struct{ ent.Schema }

func (Stipulation) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("A condition an approved application waits for: outstanding until received with documents or waived."),
		entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput, entgql.SkipWhereInput, entgql.SkipOrderField),
	}
}

func (Stipulation) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "stipulations", LeadingIndexes: true}}
}

func (Stipulation) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("application_id", uuidType).Immutable().
			Comment("The id of the approved application that waits for it."),
		field.UUID("lead_id", uuidType).Immutable().
			Comment("The id of the application's lead."),
		field.String("text").Immutable().Validate(textLen(bounds.StipulationText)).
			Comment("What is owed: 1 to 100 characters."),
		field.Enum("status").Values(enum.StipulationStatuses...).Default("outstanding").
			Comment("outstanding until received or waived; reopenStipulation makes it outstanding again.").
			Annotations(valueDocs(enum.StipulationStatusDocs)),
		field.JSON("document_ids", []uuid.UUID{}).Default([]uuid.UUID{}).
			Annotations(entgql.Type("[ID!]")).
			Comment("The documents that satisfied it; empty unless received."),
		field.Time("received_at").Optional().Nillable().
			Comment("When it was received; null unless received."),
		field.Time("waived_at").Optional().Nillable().
			Comment("When it was waived; null unless waived."),
		field.String("waived_by").Optional().Nillable().
			Comment("Who waived it (user:<id>, the API key's id, or system when a funding waived it); null unless waived."),
		field.String("waive_reason").Optional().Nillable().
			Comment("Why it was waived (funded when a funding waived it); null unless waived."),
	}
}

func (Stipulation) Indexes() []ent.Index {
	return []ent.Index{
		// An application's checklist, in the order it was made.
		index.Fields(orgColumn, "application_id", "created_at", "id"),
		// A lead's stipulations.
		index.Fields(orgColumn, "lead_id", "created_at", "id"),
		// The organization's by status (GET /v1/stipulations?status=).
		index.Fields(orgColumn, "status", "created_at", "id"),
		index.Fields(orgColumn, "created_at", "id"),
	}
}

func (Stipulation) Policy() ent.Policy {
	return orgPolicy(viewer.ScopeLendingRead, viewer.ScopeLendingWrite)
}
