package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/ent/enum"
	"github.com/lendingpipe/svc/ent/viewer"
)

// Lead is a potential borrower (SPEC 2.2).
type Lead struct{ ent.Schema }

func (Lead) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.QueryField(),
		entgql.RelayConnection(),
		entgql.Mutations(entgql.MutationCreate(), entgql.MutationUpdate()),
	}
}

func (Lead) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "leads", LeadingIndexes: true}}
}

func (Lead) Fields() []ent.Field {
	optional := func(name string, check func(string) error) ent.Field {
		return field.String(name).Optional().Nillable().Validate(check)
	}
	return []ent.Field{
		field.String("business_name").Optional().Nillable().Validate(all(runeLen(1, 255), noHTML)).
			Annotations(entgql.OrderField("BUSINESS_NAME")),
		optional("contact_first_name", runeLen(0, 100)),
		optional("contact_last_name", runeLen(0, 100)),
		optional("email", email),
		optional("phone", runeLen(0, 20)),
		optional("industry", runeLen(0, 100)),
		optional("monthly_revenue", numeric),
		optional("requested_amount", numeric),
		field.Enum("source").Values(enum.LeadSources...).Default("manual").Immutable(),
		field.Enum("priority").Values(enum.LeadPriorities...).Default("normal").Annotations(entgql.OrderField("PRIORITY")),
		field.Bool("is_do_not_call").Default(false).Annotations(noInput),
		field.Strings("tags").Default([]string{}),
		field.JSON("custom_fields", map[string]any{}).Default(map[string]any{}).Annotations(entgql.Type("Map")),
		// Set on create (partners' own ids, matched by automations); not by PATCH.
		field.JSON("external_ids", map[string]any{}).Default(map[string]any{}).
			Annotations(entgql.Type("Map"), entgql.Skip(entgql.SkipMutationUpdateInput)),
		// 0-100, set by scoring; null until scored.
		field.Int("lead_score").Optional().Nillable().Range(0, 100).Annotations(noInput),
		// Optional only in the input: the lead hook defaults it to the first stage.
		field.UUID("stage_id", uuidType).Optional(),
		field.UUID("primary_advisor_id", uuidType).Optional().Nillable(),
		field.UUID("contact_id", uuidType).Optional().Nillable(),
		field.Time("last_contacted_at").Optional().Nillable().Annotations(noInput),
		field.Time("stage_changed_at").Annotations(
			noInput),
		field.String("dnc_reason").Optional().Nillable().Validate(runeLen(0, 500)).
			Annotations(noInput),
		field.Time("dnc_at").Optional().Nillable().Annotations(noInput),
		field.Time("converted_at").Optional().Nillable().Annotations(noInput),
		field.UUID("converted_account_id", uuidType).Optional().Nillable().Annotations(noInput),
		field.UUID("converted_contact_id", uuidType).Optional().Nillable().Annotations(noInput),
		field.UUID("import_job_id", uuidType).Optional().Nillable().Immutable().Annotations(noInput),
		// The API key (or user) that created the lead.
		field.String("created_by").Optional().Nillable().Immutable().Annotations(
			noInput),
	}
}

func (Lead) Edges() []ent.Edge {
	return []ent.Edge{
		// Stage and advisor change through moveLeadToStage and assignLead, which
		// emit their own events, never through a plain update.
		edge.From("stage", PipelineStage.Type).Ref("leads").Field("stage_id").Unique().
			Annotations(entgql.Skip(entgql.SkipMutationUpdateInput)),
		edge.From("primary_advisor", User.Type).Ref("advised_leads").Field("primary_advisor_id").Unique().
			Annotations(entgql.Skip(entgql.SkipMutationUpdateInput)),
		edge.From("contact", Contact.Type).Ref("leads").Field("contact_id").Unique().
			Annotations(entgql.Skip(entgql.SkipMutationUpdateInput)),
		edge.To("call_events", CallEvent.Type).Annotations(noInput, entgql.RelayConnection()),
		edge.To("presences", AgentPresence.Type).Annotations(noInput, entgql.Skip()),
	}
}

func (Lead) Indexes() []ent.Index {
	return []ent.Index{
		// GET /v1/leads: newest first within an organization.
		index.Fields("org_id", "created_at", "id"),
		index.Fields("org_id", "email"),
	}
}

func (Lead) Policy() ent.Policy { return orgPolicy(viewer.ScopeLeadsRead, viewer.ScopeLeadsWrite) }
