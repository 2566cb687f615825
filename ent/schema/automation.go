package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/privacy"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/internal/autodef"
	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Automation applies ordered actions to leads when its trigger fires: an
// inbound endpoint receiving a request, or an outbox event such as
// lead.created. Runs are queued in the trigger's transaction and applied by
// webhooks/autorun, one transaction per run.
type Automation struct{ ent.Schema }

func (Automation) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("Ordered actions applied to leads when a trigger fires: an inbound endpoint receiving a request, " +
			"or an event of the webhook catalog such as lead.created."),
		entgql.QueryField().Description("The organization's automations (admin scope)."),
		entgql.RelayConnection(),
		entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput),
	}
}

func (Automation) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "automations", LeadingIndexes: true}}
}

func (Automation) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Validate(runeLen(1, bounds.MaxName)).
			Comment("The automation's name: 1 to 100 characters."),
		field.Bool("is_active").Default(true).
			Comment("false keeps the automation from firing; true by default."),
		// The trigger: exactly one of an inbound endpoint or an event type.
		field.UUID("endpoint_id", uuidType).Optional().Nillable().
			Comment("The id of the inbound endpoint whose requests trigger the automation; null for an event trigger."),
		field.String("trigger_event").Optional().Nillable().
			Comment("The event type (from the webhook catalog, such as lead.created) that triggers the automation; " +
				"null for an endpoint trigger."),
		field.JSON("conditions", []autodef.Condition{}).Default([]autodef.Condition{}).Annotations(entgql.Skip()),
		field.JSON("actions", []autodef.Action{}).Annotations(entgql.Skip()),
		field.Strings("required_fields").Default([]string{}).
			Comment("Input fields a run needs; a run missing one fails without retrying. Empty when none."),
		// Round-robin position for assign_advisor over a team.
		field.Int("round_robin").Default(0).Annotations(entgql.Skip()),
	}
}

func (Automation) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("endpoint", InboundEndpoint.Type).Ref("automations").Field("endpoint_id").Unique().Annotations(entgql.Skip()),
		edge.To("runs", AutomationRun.Type).Annotations(entgql.Skip(), entsql.OnDelete(entsql.Cascade)),
	}
}

func (Automation) Indexes() []ent.Index {
	return []ent.Index{index.Fields("endpoint_id"), index.Fields("org_id", "trigger_event")}
}

func (Automation) Hooks() []ent.Hook { return []ent.Hook{checkAutomation, audited("automation", nil)} }

func (Automation) Policy() ent.Policy { return orgPolicy(viewer.ScopeAdmin, viewer.ScopeAdmin) }

// AutomationRun is one firing of an automation: queued in the trigger's
// transaction (the outbox), then applied whole or not at all, retried on
// the delivery schedule, and kept as the run log.
type AutomationRun struct{ ent.Schema }

func (AutomationRun) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

func (AutomationRun) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}}
}

func (AutomationRun) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("org_id", uuidType).Immutable(),
		field.UUID("automation_id", uuidType).Immutable(),
		// What fired it: an inbound request or an outbox event.
		field.UUID("inbound_request_id", uuidType).Optional().Nillable().Immutable(),
		field.UUID("event_id", uuidType).Optional().Nillable().Immutable(),
		field.Int("depth").Default(1).Immutable(),
		// The mapped data, or the event's data.
		field.JSON("input", map[string]any{}).Immutable(),
		// queued: waiting for its (next) attempt; succeeded; skipped: the
		// conditions did not hold; failed: gave up (bad input, or retries
		// exhausted).
		field.Enum("status").Values(enum.RunStatuses...).Default("queued"),
		field.Int("attempts").Default(0),
		field.Time("next_attempt_at"),
		field.UUID("lead_id", uuidType).Optional().Nillable(),
		field.JSON("applied", []map[string]any{}).Optional(),
		field.String("error").Optional().Nillable(),
		// The code the failure would have on GraphQL (CONFLICT,
		// VALIDATION_ERROR, NOT_FOUND, ...); null unless the run failed.
		field.String("error_code").Optional().Nillable(),
		field.Time("finished_at").Optional().Nillable(),
	}
}

func (AutomationRun) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("automation", Automation.Type).Ref("runs").Field("automation_id").Unique().Required().Immutable(),
	}
}

func (AutomationRun) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("status", "next_attempt_at"),
		index.Fields("automation_id", "created_at"),
		// A trigger fires each automation once, whoever enqueues it; the
		// trigger leads, as a request's runs are looked up by it.
		index.Fields("inbound_request_id", "automation_id").Unique(),
		index.Fields("event_id", "automation_id").Unique(),
	}
}

// Written by the receiver, the dispatcher and the runner (system context);
// read by the organization's admins.
func (AutomationRun) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{rule.DenyIfNoViewer(), rule.RequireScope(viewer.ScopeAdmin), rule.FilterOrg()},
		Mutation: privacy.MutationPolicy{privacy.AlwaysDenyRule()},
	}
}
