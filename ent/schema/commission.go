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

// Commission is what the lender owes the broker for a funded deal
// (PRODUCT 1.5). Its paid amount and status follow its payments: each
// recorded payment or clawback updates them in the same transaction.
type Commission struct{ ent.Schema }

func (Commission) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("What the lender owes the broker for a funded deal, and what it has paid."),
		entgql.QueryField().Description("The organization's commissions, newest first unless orderBy says otherwise."),
		entgql.RelayConnection(),
	}
}

func (Commission) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "commissions", LeadingIndexes: true}}
}

func (Commission) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("deal_id", uuidType).Immutable().Comment("The id of the funded deal."),
		field.UUID("lead_id", uuidType).Immutable().Comment("The id of the deal's lead."),
		field.UUID("lender_id", uuidType).Immutable().Comment("The id of the lender that owes it."),
		field.UUID("advisor_id", uuidType).Optional().Nillable().Immutable().
			Comment("The id of the deal's advisor; null when none."),
		field.UUID("renewal_of_deal_id", uuidType).Optional().Nillable().Immutable().
			Comment("The id of the deal the commission's deal renews; null unless a renewal."),
		field.Bool("is_renewal").Default(false).Immutable().
			Comment("Whether the commission's deal renews an earlier deal of its lead."),
		field.Int64("expected_amount").GoType(amountGo).Annotations(amountType).Comment("The commission expected: the deal's commission.").Immutable(),
		field.Int64("paid_amount").GoType(amountGo).Annotations(amountType).Comment("The sum of the payments minus the sum of the clawbacks.").Default(0),
		field.Enum("status").Values(enum.CommissionStatuses...).Default("pending").
			Comment("pending until something is paid, partially_paid, paid once paidAmount reaches expectedAmount; " +
				"clawed_back once any clawback is recorded.").
			Annotations(valueDocs(enum.CommissionStatusDocs)),
	}
}

func (Commission) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("deal", FundedDeal.Type).Ref("commissions").Field("deal_id").
			Unique().Required().Immutable().Comment("The funded deal."),
		edge.To("payments", CommissionPayment.Type).Annotations(noInput).
			Comment("The payments and clawbacks recorded, oldest first."),
	}
}

func (Commission) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("deal_id").Unique(), // one per deal
		// The lists' indexes end with id: a page's order (newest, then id)
		// is the index's, and its exact total (ent counts ids) is read from
		// the index alone, not from every matching row.
		index.Fields("org_id", "created_at", "id"),
		index.Fields("org_id", "lender_id", "created_at", "id"),
		index.Fields("org_id", "advisor_id", "created_at", "id"),
		index.Fields("org_id", "status", "created_at", "id"),
	}
}

func (Commission) Policy() ent.Policy {
	return orgPolicy(viewer.ScopeLendingRead, viewer.ScopeLendingWrite)
}

// CommissionPayment is one payment or clawback of a commission.
type CommissionPayment struct{ ent.Schema }

func (CommissionPayment) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("One payment or clawback recorded against a commission."),
		// Read as its commission's list (Commission.payments), never a
		// connection: no ordering input.
		entgql.Skip(entgql.SkipOrderField),
	}
}

func (CommissionPayment) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "commission_payments", LeadingIndexes: true}}
}

func (CommissionPayment) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("commission_id", uuidType).Immutable().Annotations(entgql.Skip()),
		field.Int64("amount").GoType(amountGo).Annotations(amountType).Comment("The amount paid or clawed back: more than zero.").Immutable(),
		field.Enum("kind").Values(enum.PaymentKinds...).Immutable().
			Comment("payment or clawback.").Annotations(valueDocs(enum.PaymentKindDocs)),
		field.Time("paid_at").Immutable().Comment("When the lender paid or clawed back: now unless given; never in the future."),
		field.String("reference").Optional().Nillable().Immutable().Validate(runeLen(1, 200)).
			Comment("The lender's reference for the payment (a remittance or transfer id): 1 to 200 characters; null when none."),
	}
}

func (CommissionPayment) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("commission", Commission.Type).Ref("payments").Field("commission_id").
			Unique().Required().Immutable().Annotations(entgql.Skip()),
	}
}

func (CommissionPayment) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("commission_id", "paid_at"),
		index.Fields("org_id", "paid_at"),
	}
}

func (CommissionPayment) Policy() ent.Policy {
	return orgPolicy(viewer.ScopeLendingRead, viewer.ScopeLendingWrite)
}
