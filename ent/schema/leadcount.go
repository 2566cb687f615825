package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/privacy"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// LeadCount keeps an organization's number of leads, so the collection's
// total is a read of a few rows instead of a count over a million. The
// count is split over LeadCountSlots rows, each creation adding one to a
// random slot in the creating transaction: concurrent creations on
// PostgreSQL rarely wait on the same row, and the sum is always exact.
type LeadCount struct{ ent.Schema }

// LeadCountSlots is how many rows an organization's count is spread over.
const LeadCountSlots = 8

func (LeadCount) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

func (LeadCount) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("org_id", uuidType).Immutable(),
		field.Int("slot").Immutable(),
		field.Int("n").Default(0),
	}
}

func (LeadCount) Indexes() []ent.Index {
	return []ent.Index{index.Fields("org_id", "slot").Unique()}
}

// Only the lead hooks and the list's total, with the system context, touch these.
func (LeadCount) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{privacy.AlwaysDenyRule()},
		Mutation: privacy.MutationPolicy{privacy.AlwaysDenyRule()},
	}
}
