package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/internal/viewer"
)

// Lender is a funder on the broker's panel (PRODUCT 1.2).
type Lender struct{ ent.Schema }

func (Lender) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("A funder on the organization's lender panel, with the box of deals it takes and its default commission rate."),
		entgql.QueryField().Description("The organization's lenders, newest first unless orderBy says otherwise."),
		entgql.RelayConnection(),
		entgql.Mutations(entgql.MutationCreate(), entgql.MutationUpdate()),
	}
}

func (Lender) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "lenders", LeadingIndexes: true}}
}

func (Lender) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Validate(all(runeLen(1, 200), noHTML)).Annotations(entgql.OrderField("NAME")).
			Comment("The lender's name: 1 to 200 characters, unique within the organization ignoring case."),
		// The name folded to lower case, behind the unique index: the same
		// rule on SQLite and PostgreSQL without a collation of either.
		field.String("name_key").Annotations(entgql.Skip()),
		field.Bool("is_active").Default(true).
			Comment("false for a lender that takes no new applications (true by default)."),
		field.Strings("products").Default([]string{}).
			Comment("The products the lender offers: of mca, term_loan, line_of_credit, equipment, sba, invoice_factoring; empty when not stated."),
		field.Int64("min_amount").GoType(amountGo).Annotations(amountType).Optional().Nillable().Comment("The smallest amount the lender funds; null when it sets none."),
		field.Int64("max_amount").GoType(amountGo).Annotations(amountType).Optional().Nillable().Comment("The largest amount the lender funds (at least minAmount); null when it sets none."),
		field.Int64("min_monthly_revenue").GoType(amountGo).Annotations(amountType).Optional().Nillable().Comment("The least monthly revenue the lender takes; null when it sets none."),
		field.Int("min_months_in_business").Optional().Nillable().Range(0, 1200).
			Comment("The fewest months in business the lender takes, 0 to 1200; null when it sets none."),
		field.Strings("excluded_industries").Default([]string{}).
			Comment("Industries the lender does not fund, matched against the lead's industry ignoring case; empty when none."),
		field.Int64("commission_rate").GoType(rateGo).Annotations(rateType).Comment("The default commission as a fraction of the funded amount, 0 to 10 (\"0.03\" is 3 %); \"0\" by default.").
			Default(0),
		field.String("contact_email").Optional().Nillable().Validate(email).
			Comment("Where the lender takes submissions; null when not given."),
	}
}

func (Lender) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("applications", Application.Type).Annotations(noInput, entgql.RelayConnection()).
			Comment("The applications submitted to the lender."),
		edge.To("funded_deals", FundedDeal.Type).Annotations(noInput, entgql.Skip()),
	}
}

func (Lender) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("org_id", "name_key").Unique(),
		index.Fields("org_id", "created_at", "id"),
	}
}

func (Lender) Policy() ent.Policy {
	return orgPolicy(viewer.ScopeLendingRead, viewer.ScopeLendingWrite)
}
