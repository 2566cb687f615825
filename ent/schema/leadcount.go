package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/privacy"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// LeadCount keeps an organization's number of leads by stage, so the
// collection's total and the pipeline report's stages are a read of a few
// rows instead of a count over a million. A stage's count is split over
// rollup.LeadCountSlots rows, each creation adding one to a slot chosen by the
// creating transaction: concurrent creations on PostgreSQL rarely wait on
// the same row, and the sum is always exact. A lead that changes stage
// moves from one count to the other.
//
// Rows without a stage are counts from before the stages were kept (and
// the seeder's): they count in the total, and the rollups' rebuild
// replaces them with counts by stage.
type LeadCount struct{ ent.Schema }

func (LeadCount) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

func (LeadCount) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("org_id", uuidType).Immutable(),
		field.UUID("stage_id", uuidType).Optional().Nillable().Immutable(),
		field.Int("slot").Immutable(),
		field.Int("n").Default(0),
		// The sum of the slot's leads' requested amounts, in ten-thousandths
		// (requestedAmount has four decimals), kept beside n so the board's
		// unfiltered totals are a read of the same rows.
		field.Int64("requested").Default(0),
		// The slot's leads whose requested amount is not in requested: above
		// rollup.MaxKeptRequest, which bounds what a slot's int64 can be
		// asked to hold. A stage with such leads has its sum read from them.
		field.Int("outsized").Default(0),
	}
}

func (LeadCount) Indexes() []ent.Index {
	return []ent.Index{index.Fields("org_id", "stage_id", "slot").Unique()}
}

// Only the rollups (kept by the lead flows) and the list's total, with
// the system context, touch these.
func (LeadCount) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{privacy.AlwaysDenyRule()},
		Mutation: privacy.MutationPolicy{privacy.AlwaysDenyRule()},
	}
}
