package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/viewer"
)

// AgentPresence is an agent's current dialer status, one row per agent
// (SPEC 2.4). REST renders its id as pres_<uuid>.
type AgentPresence struct{ ent.Schema }

func (AgentPresence) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("An agent's stored dialer status, one record per agent, whose id is the agent's user id. " +
			"The agents board shows it enriched, as AgentStatus."),
		// Not a GraphQL type: the agents board (AgentStatus) and the
		// presence mutation answer for it. Its status enum stays, as
		// AgentStatus.status.
		entgql.Skip(entgql.SkipType, entgql.SkipOrderField, entgql.SkipWhereInput,
			entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput),
	}
}

func (AgentPresence) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "presences"}}
}

func (AgentPresence) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("user_id", uuidType).Unique().
			Comment("The agent's user id."),
		field.Enum("status").Values(enum.PresenceStatuses...).
			Comment("The agent's dialer status. Every move between statuses is allowed.").
			Annotations(valueDocs(enum.PresenceStatusDocs)),
		field.String("current_call_id").Optional().Nillable().Validate(runeLen(1, bounds.MaxCallID)).
			Comment("The dialer's id of the call in progress; null unless on_call."),
		field.UUID("current_lead_id", uuidType).Optional().Nillable().
			Comment("The id of the lead on the call in progress; null unless on_call, or when not reported."),
		field.String("campaign_name").Optional().Nillable().Validate(runeLen(0, bounds.MaxCampaign)).
			Comment("The dialer campaign the agent works: at most 255 characters; null when not reported."),
		field.JSON("metadata", map[string]any{}).Default(map[string]any{}).Annotations(entgql.Type("Map")).
			Comment("Anything else the dialer sent with the status, as a JSON object; {} when nothing."),
		field.Time("status_changed_at").
			Comment("When the status last changed (a re-report of the same status does not move it)."),
		field.Time("call_started_at").Optional().Nillable().
			Comment("When the call in progress started; null unless on_call."),
	}
}

func (AgentPresence) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("presence").Field("user_id").Unique().Required().
			Comment("The agent."),
		edge.From("current_lead", Lead.Type).Ref("presences").Field("current_lead_id").Unique().
			Comment("The lead on the call in progress; null unless on_call, or when not reported."),
	}
}

func (AgentPresence) Policy() ent.Policy { return orgPolicy("", viewer.ScopeDialerWrite) }
