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

// User is a person of the organization: an advisor who owns leads, a dialer
// agent who makes calls, or an admin.
type User struct{ ent.Schema }

func (User) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.QueryField(),
		entgql.RelayConnection(),
		entgql.Mutations(entgql.MutationCreate(), entgql.MutationUpdate()),
	}
}

func (User) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "users", LeadingIndexes: true}}
}

func (User) Fields() []ent.Field {
	return []ent.Field{
		field.String("first_name").Validate(runeLen(1, 100)).Annotations(entgql.OrderField("FIRST_NAME")),
		field.String("last_name").Validate(runeLen(1, 100)).Annotations(entgql.OrderField("LAST_NAME")),
		field.String("email").Validate(email),
		field.Enum("role").Values("advisor", "agent", "admin").Default("advisor"),
		field.UUID("team_id", uuidType).Optional().Nillable(),
	}
}

func (User) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("team", Team.Type).Ref("members").Field("team_id").Unique(),
		edge.To("advised_leads", Lead.Type).Annotations(noInput, entgql.RelayConnection()),
		edge.To("call_events", CallEvent.Type).Annotations(noInput, entgql.RelayConnection()),
		edge.To("presence", AgentPresence.Type).Unique().Annotations(noInput, entgql.Skip()),
	}
}

func (User) Indexes() []ent.Index {
	return []ent.Index{index.Fields("org_id", "email").Unique()}
}

func (User) Policy() ent.Policy { return orgPolicy("", viewer.ScopeAdmin) }
