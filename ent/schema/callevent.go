package schema

import (
	"fmt"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/ent/bounds"
	"github.com/lendingpipe/svc/ent/enum"
	"github.com/lendingpipe/svc/ent/viewer"
)

// CallEvent is one event a dialer reports about a call (SPEC 2.3).
// REST renders its id as evt_<uuid>.
type CallEvent struct{ ent.Schema }

func (CallEvent) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.QueryField(),
		entgql.RelayConnection(),
	}
}

func (CallEvent) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "call_events", LeadingIndexes: true}}
}

func (CallEvent) Fields() []ent.Field {
	return []ent.Field{
		field.String("external_call_id").Validate(runeLen(1, 255)),
		field.UUID("user_id", uuidType),
		field.UUID("lead_id", uuidType).Optional().Nillable(),
		field.Enum("event_type").Values(enum.CallEventTypes...),
		field.Enum("direction").Values(enum.CallDirections...).Optional().Nillable(),
		// A call lasts at most a day: anything else is a unit or clock mistake.
		field.Int("duration_seconds").Optional().Nillable().Validate(duration),
		field.String("disposition").Optional().Nillable().Validate(runeLen(1, 100)),
		field.String("notes").Optional().Nillable().Validate(runeLen(0, bounds.MaxNotes)),
		field.JSON("metadata", map[string]any{}).Default(map[string]any{}).Annotations(entgql.Type("Map")),
		field.Time("occurred_at").Annotations(entgql.OrderField("OCCURRED_AT")),
	}
}

func (CallEvent) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("call_events").Field("user_id").Unique().Required(),
		edge.From("lead", Lead.Type).Ref("call_events").Field("lead_id").Unique(),
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
