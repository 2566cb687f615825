package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/privacy"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/internal/rule"
)

// Notification tells one user that something of theirs happened
// (PRODUCT 10.9): a decision on their lead's application, a funding, a
// commission payment, a task someone else gave them. It is written by the
// flow of its cause, in its transaction (package notify), and read only by
// its user.
type Notification struct{ ent.Schema }

func (Notification) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("Something that happened to one of the user's records."),
		entgql.RelayConnection(),
		entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput, entgql.SkipWhereInput),
	}
}

func (Notification) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, OrgMixin{Ref: "notifications", LeadingIndexes: true}}
}

func (Notification) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("user_id", uuidType).Immutable().Annotations(entgql.Skip()),
		field.String("kind").Immutable().
			Comment("What happened: application.decided, deal.funded, commission.paid, commission.clawed_back, " +
				"task.assigned, deal.renewal_due, subscription.paused or import.failed."),
		field.Time("at").Default(now).Immutable().
			Comment("When it happened."),
		field.UUID("record_id", uuidType).Optional().Nillable().Immutable().
			Comment("The id of the record it is about (an application, a deal, a commission, a task, a subscription, an import job)."),
		field.UUID("lead_id", uuidType).Optional().Nillable().Immutable().
			Comment("The id of the lead it is about; null when about no lead."),
		field.String("summary").Immutable().
			Comment("What happened, in a line of words."),
		field.Time("read_at").Optional().Nillable().
			Comment("When the user marked it read; null while unread."),
	}
}

func (Notification) Indexes() []ent.Index {
	return []ent.Index{
		// A user's notifications, newest first, and the unread ones.
		index.Fields(orgColumn, "user_id", "at", "id"),
		index.Fields(orgColumn, "user_id", "read_at"),
	}
}

// A person's own notifications, and no one else's (node(id) included):
// the notify package reads and marks them for the acting user; no scope
// of its own (every person may read theirs).
func (Notification) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{rule.DenyIfNoViewer(), rule.FilterOrg(), rule.FilterOwn("user_id")},
		Mutation: privacy.MutationPolicy{rule.DenyIfNoViewer(), rule.FilterOrg(), rule.FilterOwn("user_id")},
	}
}
