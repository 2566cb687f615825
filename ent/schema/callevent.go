package schema

import (
	"fmt"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/viewer"
)

// CallEvent is one event a dialer reports about a call (SPEC 2.3).
// REST renders its id as evt_<uuid>.
type CallEvent struct{ ent.Schema }

func (CallEvent) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("One event a dialer reported about a call: recordCallEvent, recordDisposition or the dialer connector."),
		entgql.QueryField().Description("The organization's call events."),
		entgql.RelayConnection(),
	}
}

func (CallEvent) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "call_events", LeadingIndexes: true}}
}

func (CallEvent) Fields() []ent.Field {
	return []ent.Field{
		field.String("external_call_id").Validate(runeLen(1, bounds.MaxCallID)).
			Comment("The dialer's id of the call, 1 to 255 characters: every event of one call carries it."),
		field.UUID("user_id", uuidType).
			Comment("The id of the agent (a user) who handled the call."),
		field.UUID("lead_id", uuidType).Optional().Nillable().
			Comment("The id of the lead called; null when the dialer did not say."),
		field.Enum("event_type").Values(enum.CallEventTypes...).
			Comment("What happened to the call.").
			Annotations(valueDocs(enum.CallEventTypeDocs)),
		field.Enum("direction").Values(enum.CallDirections...).Optional().Nillable().
			Comment("Who called whom; null when the dialer did not say.").
			Annotations(valueDocs(enum.CallDirectionDocs)),
		// A call lasts at most a day: anything else is a unit or clock mistake.
		field.Int("duration_seconds").Optional().Nillable().Validate(duration).
			Comment("The call's length in seconds, 0 to 86,400; null when not reported."),
		field.String("disposition").Optional().Nillable().Validate(runeLen(1, bounds.MaxDisposition)).
			Comment("The outcome code the agent chose (such as interested, callback, not_interested, no_answer; " +
				"do_not_call or dnc marks the lead do-not-call): 1 to 100 characters; null when none."),
		field.String("notes").Optional().Nillable().Validate(runeLen(0, bounds.MaxNotes)).
			Comment("The agent's notes from a disposition: at most 5,000 characters; null when none."),
		field.JSON("metadata", map[string]any{}).Default(map[string]any{}).Annotations(entgql.Type("Map")).
			Comment("Anything else the dialer sent, as a JSON object (a recording adds recordingUrl); {} when nothing."),
		field.Time("occurred_at").Annotations(entgql.OrderField("OCCURRED_AT")).
			Comment("When it happened, as the dialer reported it."),
	}
}

func (CallEvent) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("call_events").Field("user_id").Unique().Required().
			Comment("The agent who handled the call."),
		edge.From("lead", Lead.Type).Ref("call_events").Field("lead_id").Unique().
			Comment("The lead called; null when the dialer did not say."),
	}
}

func (CallEvent) Indexes() []ent.Index {
	return []ent.Index{
		// The agents board (and every presence answer, inside the writer's
		// transaction) counts an agent's distinct calls and dispositions
		// today: covering, so the count reads no table rows.
		index.Fields("user_id", "occurred_at", "external_call_id", "event_type"),
		index.Fields("lead_id", "occurred_at"),
		index.Fields("org_id", "external_call_id"),
	}
}

func (CallEvent) Policy() ent.Policy { return orgPolicy("", viewer.ScopeDialerWrite) }

// duration refuses a negative call or one longer than a day.
func duration(secs int) error {
	if secs < 0 || secs > bounds.MaxDurationSeconds {
		return fmt.Errorf("must be between 0 and %d seconds (24 hours)", bounds.MaxDurationSeconds)
	}
	return nil
}
