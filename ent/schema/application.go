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

// Application is one submission of a lead to a lender (PRODUCT 1.3). Its
// status moves only as lending.From allows; the hooks (lending_hooks.go)
// refuse any other move on every path.
type Application struct{ ent.Schema }

func (Application) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("One submission of a lead to a lender, and the lender's answer."),
		entgql.QueryField().Description("The organization's applications, newest first unless orderBy says otherwise."),
		entgql.RelayConnection(),
	}
}

func (Application) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "applications", LeadingIndexes: true}}
}

func (Application) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("lead_id", uuidType).Immutable().Comment("The id of the lead submitted."),
		field.UUID("lender_id", uuidType).Immutable().Comment("The id of the lender it was submitted to."),
		field.String("lender_name").Immutable().Comment("The lender's name at submission."),
		field.Enum("status").Values(enum.ApplicationStatuses...).Default("submitted").
			Comment("Where the application stands; it moves only as the transition table allows.").
			Annotations(valueDocs(enum.ApplicationStatusDocs)),
		field.Enum("product").Values(enum.LenderProducts...).Optional().Nillable().Immutable().
			Comment("The product applied for; null when not stated.").
			Annotations(valueDocs(enum.LenderProductDocs)),
		field.Int64("requested_amount").GoType(amountGo).Annotations(amountType).Comment("The amount applied for: the lead's requestedAmount unless given.").Immutable(),
		field.Time("submitted_at").Immutable().Comment("When the application was submitted."),
		field.String("submitted_by").Immutable().
			Comment("Who submitted it: the API key's id, automation:<id>, or system (as changedBy in lead.status_changed)."),
		field.String("external_ref").Optional().Nillable().Immutable().Validate(runeLen(1, 100)).
			Comment("The lender's own reference: 1 to 100 characters, unique per lender; null when not given."),
		field.String("notes").Optional().Nillable().Immutable().Validate(runeLen(0, 5000)).
			Comment("The broker's notes on the submission: at most 5000 characters; null when none."),
		field.Time("decided_at").Optional().Nillable().
			Comment("When the lender approved or declined it; null before."),
		// The whole seconds from submission to decision, for the lenders
		// report's exact median (see DecisionDay); not on the APIs.
		field.Int("decision_seconds").Optional().Nillable().Annotations(entgql.Skip()),
		field.Int64("approved_amount").GoType(amountGo).Annotations(amountType).Optional().Nillable().Comment("The amount approved; null unless approved."),
		field.Int64("interest_rate").GoType(rateGo).Annotations(rateType).Comment("The offer's rate, read as rateType says; null unless approved.").Optional().Nillable(),
		field.Enum("rate_type").Values(enum.RateTypes...).Optional().Nillable().
			Comment("How interestRate reads: factor or apr; null unless approved.").
			Annotations(valueDocs(enum.RateTypeDocs)),
		field.Int("term_months").Optional().Nillable().Range(1, 600).
			Comment("The offer's term in months, 1 to 600; null unless approved."),
		field.Enum("payment_frequency").Values(enum.PaymentFrequencies...).Optional().Nillable().
			Comment("How often the merchant pays; null unless approved or not stated.").
			Annotations(valueDocs(enum.PaymentFrequencyDocs)),
		field.Strings("conditions").Default([]string{}).
			Comment("Stipulations the lender asks for before funding; empty when none."),
		field.String("decline_reason").Optional().Nillable().
			Comment("Why the lender declined: 1 to 500 characters; null unless declined."),
		field.Enum("decline_category").Values(enum.DeclineCategories...).Optional().Nillable().
			Comment("The kind of reason the lender declined for; null unless declined or not stated.").
			Annotations(valueDocs(enum.DeclineCategoryDocs)),
		field.String("withdrawn_reason").Optional().Nillable().
			Comment("Why it was withdrawn: funded_elsewhere when another application of the lead was funded; null unless withdrawn."),
		field.Strings("warnings").Default([]string{}).Immutable().
			Comment("The criteria of the lender's box the submission missed (amount, revenue, industry, product, months in business); empty when none."),
		field.UUID("funded_deal_id", uuidType).Optional().Nillable().
			Comment("The id of the deal the application became; null unless funded."),
		field.Int("stipulations_outstanding").Default(0).NonNegative().
			Comment("How many of its stipulations are outstanding; readyToFund is approved with none."),
		field.UUID("renewal_of_deal_id", uuidType).Optional().Nillable().Immutable().
			Comment("The id of the funded deal this application renews; null unless a renewal."),
		field.Bool("is_renewal").Default(false).Immutable().
			Comment("Whether the application renews an earlier deal of its lead (renewalOfDealId is set)."),
		// What the lender matches compare an application by, kept on it so
		// a lender's similar record is one index range: the band of the
		// requested amount (lendingrules.AmountBand), set at submission,
		// and the lead's industry as lendingrules.IndustryKey compares it,
		// set at submission and kept when the lead's industry changes.
		// Null on a row the startup backfill has not reached yet; not on
		// the APIs.
		field.Int("amount_band").Optional().Nillable().Annotations(entgql.Skip()),
		field.String("industry_key").Optional().Nillable().Annotations(entgql.Skip()),
	}
}

func (Application) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("lead", Lead.Type).Ref("applications").Field("lead_id").Unique().Required().Immutable().
			Comment("The lead submitted."),
		edge.From("lender", Lender.Type).Ref("applications").Field("lender_id").Unique().Required().Immutable().
			Comment("The lender it was submitted to."),
		// The deal is reached through fundedDealId (graph resolves
		// Application.fundedDeal from it); this edge only backs the deal's
		// application edge.
		edge.To("deals", FundedDeal.Type).Annotations(noInput, entgql.Skip()),
	}
}

func (Application) Indexes() []ent.Index {
	return []ent.Index{
		// The lists' indexes end with id: a page's order (newest, then id)
		// is the index's, and its exact total (ent counts ids) is read from
		// the index alone, not from every matching row.
		index.Fields("org_id", "created_at", "id"),
		index.Fields("lead_id", "created_at"),
		index.Fields("org_id", "lender_id", "created_at", "id"),
		index.Fields("org_id", "status", "created_at", "id"),
		// One open application per lead and lender: the hook says so first,
		// a partial unique index the store creates holds when two
		// submissions race (store.openApplicationDDL).
		index.Fields("lender_id", "external_ref").Unique(),
		// The lenders report reads one histogram bucket's decisions in order.
		index.Fields("org_id", "lender_id", "decision_seconds", "submitted_at"),
		// The lender matches count a lead's similar applications of every
		// lender in one range (organization, band, industry, submitted at
		// or after the window's start), and walk each lender's similar
		// decisions in order to their middle; each index holds what it
		// reads, so neither reads a row of the table.
		index.Fields("org_id", "amount_band", "industry_key", "submitted_at", "lender_id", "status", "decision_seconds"),
		index.Fields("org_id", "amount_band", "industry_key", "lender_id", "decision_seconds", "submitted_at", "status"),
		// The lenders report (and the matches' whole windows, which are
		// its sums) reads the applications of a range's partial days.
		index.Fields("org_id", "submitted_at"),
	}
}

func (Application) Policy() ent.Policy {
	return orgPolicy(viewer.ScopeLendingRead, viewer.ScopeLendingWrite)
}
