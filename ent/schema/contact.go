package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"github.com/lendingpipe/svc/internal/viewer"
)

// Contact is a person at a borrowing business; leads may link one.
type Contact struct{ ent.Schema }

func (Contact) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("A person at a borrowing business; leads may link one."),
		entgql.QueryField().Description("The organization's contacts."),
		entgql.RelayConnection(),
		entgql.Mutations(entgql.MutationCreate(), entgql.MutationUpdate()),
	}
}

func (Contact) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "contacts"}}
}

func (Contact) Fields() []ent.Field {
	return []ent.Field{
		field.String("first_name").Optional().Nillable().Validate(runeLen(0, 100)).
			Comment("First name: at most 100 characters; null when not given."),
		field.String("last_name").Optional().Nillable().Validate(runeLen(0, 100)).
			Comment("Last name: at most 100 characters; null when not given."),
		field.String("email").Optional().Nillable().Validate(email).
			Comment("Email address (a bare address, at most 254 characters); null when not given."),
		field.String("phone").Optional().Nillable().Validate(runeLen(0, 20)).
			Comment("Phone number as given: at most 20 characters; null when not given."),
	}
}

func (Contact) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("leads", Lead.Type).Annotations(noInput, entgql.RelayConnection()).
			Comment("The leads linked to this contact."),
	}
}

func (Contact) Policy() ent.Policy { return orgPolicy(viewer.ScopeLeadsRead, viewer.ScopeLeadsWrite) }
