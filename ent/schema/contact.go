package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"github.com/lendingpipe/svc/ent/viewer"
)

// Contact is a person at a borrowing business; leads may link one.
type Contact struct{ ent.Schema }

func (Contact) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.QueryField(),
		entgql.RelayConnection(),
		entgql.Mutations(entgql.MutationCreate(), entgql.MutationUpdate()),
	}
}

func (Contact) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "contacts"}}
}

func (Contact) Fields() []ent.Field {
	return []ent.Field{
		field.String("first_name").Optional().Nillable().Validate(runeLen(0, 100)),
		field.String("last_name").Optional().Nillable().Validate(runeLen(0, 100)),
		field.String("email").Optional().Nillable().Validate(email),
		field.String("phone").Optional().Nillable().Validate(runeLen(0, 20)),
	}
}

func (Contact) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("leads", Lead.Type).Annotations(noInput, entgql.RelayConnection()),
	}
}

func (Contact) Policy() ent.Policy { return orgPolicy(viewer.ScopeLeadsRead, viewer.ScopeLeadsWrite) }
