package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/ent/viewer"
)

// Team groups advisors and dialer agents.
type Team struct{ ent.Schema }

func (Team) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.QueryField(),
		entgql.RelayConnection(),
		entgql.Mutations(entgql.MutationCreate(), entgql.MutationUpdate()),
	}
}

func (Team) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "teams", LeadingIndexes: true}}
}

func (Team) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Validate(runeLen(1, 100)).Annotations(entgql.OrderField("NAME")),
	}
}

func (Team) Edges() []ent.Edge {
	return []ent.Edge{
		// Membership is set on the user (teamID), where its organization is checked.
		edge.To("members", User.Type).Annotations(noInput, entgql.RelayConnection()),
	}
}

func (Team) Indexes() []ent.Index {
	return []ent.Index{index.Fields("org_id", "name").Unique()}
}

func (Team) Policy() ent.Policy { return orgPolicy("", viewer.ScopeAdmin) }
