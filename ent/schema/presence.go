package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"github.com/lendingpipe/svc/ent/enum"
	"github.com/lendingpipe/svc/ent/viewer"
)

// AgentPresence is an agent's current dialer status, one row per agent
// (SPEC 2.4). REST renders its id as pres_<uuid>.
type AgentPresence struct{ ent.Schema }

func (AgentPresence) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)}
}

func (AgentPresence) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "presences"}}
}

func (AgentPresence) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("user_id", uuidType).Unique(),
		field.Enum("status").Values(enum.PresenceStatuses...),
		field.String("current_call_id").Optional().Nillable().Validate(runeLen(1, 255)),
		field.UUID("current_lead_id", uuidType).Optional().Nillable(),
		field.String("campaign_name").Optional().Nillable().Validate(runeLen(0, 255)),
		field.JSON("metadata", map[string]any{}).Default(map[string]any{}).Annotations(entgql.Type("Map")),
		field.Time("status_changed_at"),
		field.Time("call_started_at").Optional().Nillable(),
	}
}

func (AgentPresence) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("presence").Field("user_id").Unique().Required(),
		edge.From("current_lead", Lead.Type).Ref("presences").Field("current_lead_id").Unique(),
	}
}

func (AgentPresence) Policy() ent.Policy { return orgPolicy("", viewer.ScopeDialerWrite) }
