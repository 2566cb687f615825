package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/internal/history"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Activity is one entry of a lead's stored history (PRODUCT 10.3),
// written by the flow that made the change, in its transaction (package
// activity): a rolled-back change leaves none. Entries are never changed.
// The actor is stored as its type and id; its name is read with the page.
type Activity struct{ ent.Schema }

func (Activity) Annotations() []schema.Annotation {
	// The API's type is package activity's Entry, which carries the
	// actor's name read with the page (graph/activity.graphql).
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

func (Activity) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, OrgMixin{Ref: "activities", LeadingIndexes: true}}
}

func (Activity) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("lead_id", uuidType).Immutable().
			Comment("The id of the lead the entry belongs to."),
		field.Time("at").Default(now).Immutable().
			Comment("When the change was made."),
		field.String("kind").Immutable().
			Comment("What happened: lead.created, lead.updated, lead.stage_changed, call, note.added, task.created, " +
				"task.completed, document.uploaded, application.submitted, application.approved, application.declined, " +
				"application.withdrawn, deal.funded, commission.paid, commission.clawed_back, stipulation.received, " +
				"stipulation.waived or stipulation.reopened."),
		field.Enum("actor_type").Values(history.ActorTypes...).Immutable(),
		field.String("actor_id").Optional().Nillable().Immutable(),
		field.UUID("record_id", uuidType).Optional().Nillable().Immutable().
			Comment("The id of the record the entry is about (the lead, a call, a note, a task, a document, " +
				"an application, a deal, a commission payment, a stipulation)."),
		field.String("summary").Immutable().
			Comment("The entry in a line of words, as the console shows it."),
		field.JSON("changes", []history.Change{}).Optional().Immutable(),
	}
}

func (Activity) Indexes() []ent.Index {
	return []ent.Index{
		// A lead's page, newest first.
		index.Fields(orgColumn, "lead_id", "at", "id"),
	}
}

// Entries are written only by the flows, each in its change's
// transaction; read with the lead's scope.
func (Activity) Policy() ent.Policy { return orgPolicy(viewer.ScopeLeadsRead, viewer.ScopeLeadsWrite) }
