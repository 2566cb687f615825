package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/privacy"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// FundedDealDay keeps how many deals a lender funded on each day (UTC), so
// the exact total of a lender's deals over a range (the REST list's
// meta.total for lenderId and fundedFrom) sums a row per day instead of
// counting every deal: a lender's year is 365 rows however many deals it
// funded. Each funding adds one in the funding transaction. As LeadCount,
// a day's count is split over rollup.DealCountSlots rows, so concurrent
// fundings on PostgreSQL rarely wait on the same row.
type FundedDealDay struct{ ent.Schema }

func (FundedDealDay) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

func (FundedDealDay) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("org_id", uuidType).Immutable(),
		field.UUID("lender_id", uuidType).Immutable(),
		field.Int("day").Immutable(), // days since 1970-01-01, UTC
		field.Int("slot").Immutable(),
		field.Int("n").Default(0),
	}
}

func (FundedDealDay) Indexes() []ent.Index {
	return []ent.Index{index.Fields("org_id", "lender_id", "day", "slot").Unique()}
}

// Only the funding hook, the seeder and the list's total, with the system
// context, touch these.
func (FundedDealDay) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{privacy.AlwaysDenyRule()},
		Mutation: privacy.MutationPolicy{privacy.AlwaysDenyRule()},
	}
}
