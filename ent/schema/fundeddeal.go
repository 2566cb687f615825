package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/viewer"
)

// FundedDeal is an approved application the lender funded (PRODUCT 1.4).
// Creating one moves its application to funded, withdraws the lead's other
// open applications, moves the lead to won and creates the commission, all
// in the creating transaction (lending_hooks.go).
type FundedDeal struct{ ent.Schema }

func (FundedDeal) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("An approved application the lender funded, with the commission the broker expects."),
		entgql.QueryField().Description("The organization's funded deals, newest funding first unless orderBy says otherwise."),
		entgql.RelayConnection(),
	}
}

func (FundedDeal) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "funded_deals", LeadingIndexes: true}}
}

func (FundedDeal) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("application_id", uuidType).Immutable().Comment("The id of the application funded."),
		field.UUID("lead_id", uuidType).Immutable().Comment("The id of the lead funded."),
		field.UUID("lender_id", uuidType).Immutable().Comment("The id of the lender that funded it."),
		field.String("lender_name").Immutable().Comment("The lender's name at submission."),
		field.UUID("advisor_id", uuidType).Optional().Nillable().Immutable().
			Comment("The advisor credited: the lead's primary advisor at funding unless given; null when none."),
		field.Int64("funded_amount").GoType(amountGo).Annotations(amountType).Comment("The amount funded: the approved amount unless given.").Immutable(),
		field.Int64("interest_rate").GoType(rateGo).Annotations(rateType).Comment("The offer's rate, copied from the application.").Immutable(),
		field.Enum("rate_type").Values(enum.RateTypes...).Immutable().
			Comment("How interestRate reads, copied from the application.").
			Annotations(valueDocs(enum.RateTypeDocs)),
		field.Int("term_months").Immutable().Comment("The offer's term in months, copied from the application."),
		field.Enum("payment_frequency").Values(enum.PaymentFrequencies...).Optional().Nillable().Immutable().
			Comment("How often the merchant pays, copied from the application; null when not stated.").
			Annotations(valueDocs(enum.PaymentFrequencyDocs)),
		field.Int64("payback_amount").GoType(amountGo).Annotations(amountType).Optional().Nillable().Comment("What the merchant pays back for a factor rate: fundedAmount × interestRate, " +
			"rounded half-even to the cent; null for an APR.").Immutable(),
		field.Int64("expected_commission").GoType(amountGo).Annotations(amountType).Comment("The commission the broker expects: fundedAmount × the lender's commissionRate " +
			"(rounded half-even to the cent) unless given. REST names it commission; here commission is the commission record.").Immutable(),
		field.UUID("commission_id", uuidType).Immutable().Comment("The id of the deal's commission."),
		field.Time("funded_at").Immutable().Annotations(entgql.OrderField("FUNDED_AT")).
			Comment("When the lender funded it: now unless given; never in the future."),
		field.Time("renewal_eligible_at").Optional().Nillable().
			Comment("When the merchant may renew: fundedAt plus half the term in calendar months, rounded up (clamped to the month's last day)."),
		field.Time("renewal_announced_at").Optional().Nillable().Annotations(entgql.Skip()).
			Comment("When deal.renewal_eligible was emitted for it: the sweeper claims a deal by setting it, so each deal's event is emitted once."),
		field.Bool("renewal_superseded").Default(false).Annotations(entgql.Skip()).
			Comment("Whether the deal's lead has moved on from it: an application in play, or a deal funded after it. " +
				"Kept by the hooks (renewal_hooks.go) so the renewal queue reads an index, not a probe per deal."),
		field.UUID("renewal_of_deal_id", uuidType).Optional().Nillable().Immutable().
			Comment("The id of the deal this one renews; null unless a renewal."),
		field.Bool("is_renewal").Default(false).Immutable().
			Comment("Whether the deal renews an earlier deal of its lead."),
	}
}

func (FundedDeal) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("application", Application.Type).Ref("deals").Field("application_id").
			Unique().Required().Immutable().Comment("The application funded."),
		edge.From("lead", Lead.Type).Ref("funded_deals").Field("lead_id").
			Unique().Required().Immutable().Comment("The lead funded."),
		edge.From("lender", Lender.Type).Ref("funded_deals").Field("lender_id").
			Unique().Required().Immutable().Comment("The lender that funded it."),
		// The commission is reached through commissionId (graph resolves
		// FundedDeal.commission from it); this edge only backs the
		// commission's deal edge.
		edge.To("commissions", Commission.Type).Annotations(noInput, entgql.Skip()),
	}
}

func (FundedDeal) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("application_id").Unique(), // one deal per application
		// The lists' indexes end with id: a page's order (newest, then id)
		// is the index's, and its exact total (ent counts ids) is read from
		// the index alone, not from every matching row.
		index.Fields("org_id", "funded_at", "id"),
		index.Fields("org_id", "lender_id", "funded_at", "id"),
		index.Fields("org_id", "advisor_id", "funded_at", "id"),
		index.Fields("lead_id"),
		// The renewal queue, earliest eligible first (also one advisor's),
		// its exact total counted from the index; and the sweeper's deals
		// not yet announced.
		index.Fields("org_id", "renewal_superseded", "renewal_eligible_at", "id"),
		index.Fields("org_id", "advisor_id", "renewal_superseded", "renewal_eligible_at", "id"),
		index.Fields("renewal_announced_at", "renewal_eligible_at"),
	}
}

func (FundedDeal) Policy() ent.Policy {
	return orgPolicy(viewer.ScopeLendingRead, viewer.ScopeLendingWrite)
}
