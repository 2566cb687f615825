package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/internal/viewer"
)

// Team groups advisors and dialer agents.
type Team struct{ ent.Schema }

func (Team) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("A group of advisors and dialer agents."),
		entgql.QueryField().Description("The organization's teams."),
		entgql.RelayConnection(),
		entgql.Mutations(entgql.MutationCreate(), entgql.MutationUpdate()),
	}
}

func (Team) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "teams", LeadingIndexes: true}}
}

func (Team) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Validate(runeLen(1, 100)).Annotations(entgql.OrderField("NAME")).
			Comment("The team's name: 1 to 100 characters, unique within the organization."),
	}
}

func (Team) Edges() []ent.Edge {
	return []ent.Edge{
		// Membership is set on the user (teamID), where its organization is checked.
		edge.To("members", User.Type).Annotations(noInput, entgql.RelayConnection()).
			Comment("The team's users; a user joins a team through its teamId."),
	}
}

func (Team) Indexes() []ent.Index {
	return []ent.Index{index.Fields("org_id", "name").Unique()}
}

func (Team) Policy() ent.Policy { return orgPolicy("", viewer.ScopeAdmin) }
