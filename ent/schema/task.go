package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Task is a follow-up on a lead (PRODUCT 10.2): call back Tuesday, chase
// the bank statements. It is open until completed, and may be reopened
// (package tasks holds the transitions).
type Task struct{ ent.Schema }

func (Task) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("A follow-up on a lead, assigned to a user, due at a time."),
		entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput, entgql.SkipWhereInput, entgql.SkipOrderField),
	}
}

func (Task) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "tasks", LeadingIndexes: true}}
}

func (Task) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("lead_id", uuidType).Immutable().
			Comment("The id of the lead the task is about."),
		field.String("title").Validate(textLen(bounds.TaskTitle)).
			Comment("What is to be done: 1 to 200 characters."),
		field.Time("due_at").
			Comment("When it is due."),
		field.UUID("assignee_id", uuidType).
			Comment("The id of the user who is to do it."),
		field.Enum("status").Values(enum.TaskStatuses...).Default("open").
			Comment("open until completed; done once completed (reopenTask makes it open again).").
			Annotations(valueDocs(enum.TaskStatusDocs)),
		field.Time("completed_at").Optional().Nillable().
			Comment("When it was completed; null while open."),
		field.String("completed_by").Optional().Nillable().
			Comment("Who completed it (user:<id>, or the API key's id); null while open."),
		field.String("created_by").Optional().Nillable().Immutable().
			Comment("Who created it (user:<id>, or the API key's id); null when unknown."),
	}
}

func (Task) Indexes() []ent.Index {
	return []ent.Index{
		// A person's open tasks by due time (My day, the tasks list).
		index.Fields(orgColumn, "assignee_id", "status", "due_at", "id"),
		// A lead's tasks.
		index.Fields(orgColumn, "lead_id", "status", "due_at", "id"),
		// The organization's tasks by due time.
		index.Fields(orgColumn, "due_at", "id"),
	}
}

func (Task) Policy() ent.Policy { return orgPolicy(viewer.ScopeLeadsRead, viewer.ScopeLeadsWrite) }
