package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Note is what someone wrote about a lead (PRODUCT 10.1). Its author or an
// admin may change or delete it (package notes).
type Note struct{ ent.Schema }

func (Note) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("A note written about a lead."),
		entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput, entgql.SkipWhereInput, entgql.SkipOrderField),
	}
}

func (Note) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "notes", LeadingIndexes: true}}
}

func (Note) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("lead_id", uuidType).Immutable().
			Comment("The id of the lead the note is about."),
		field.String("body").Validate(textLen(bounds.NoteBody)).
			Comment("The note's text: 1 to 10,000 characters."),
		field.UUID("author_id", uuidType).Optional().Nillable().Immutable().
			Comment("The id of the user who wrote it; null when written through a key bound to no one."),
	}
}

func (Note) Indexes() []ent.Index {
	return []ent.Index{
		// A lead's notes, newest first.
		index.Fields(orgColumn, "lead_id", "created_at", "id"),
	}
}

func (Note) Policy() ent.Policy { return orgPolicy(viewer.ScopeLeadsRead, viewer.ScopeLeadsWrite) }
