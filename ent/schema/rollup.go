package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/privacy"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/internal/enum"
)

// The analytics rollups: per-day sums that the reports read instead of the
// records, for the organization's whole days in the zone they are cut in
// (Organization.rollup_zone). Each change adds to them in its own
// transaction, so a report sees a change exactly when the records do; svc
// analytics rebuild computes them again from the records. A day is the
// local calendar day's number (period.LocalDay), and each row is keyed by
// what the reports group by. Rows a hot path writes (a lead created on a
// busy day) are spread over slots, as LeadCount's.

// Each rollup has a second index holding its sums after its key, so the
// reports' sums over a year of days read that index alone, in order,
// rather than each row by its rowid (on SQLite, several times slower).

// rollupPolicy: only the hooks, the rebuild and the reports, with the
// system context, touch the rollups.
func rollupPolicy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{privacy.AlwaysDenyRule()},
		Mutation: privacy.MutationPolicy{privacy.AlwaysDenyRule()},
	}
}

var rollupAnnotations = []schema.Annotation{entgql.Skip(entgql.SkipAll)}

// LeadDay counts the leads created on a day from a source, and how many of
// them have by now reached an application, an approval and a deal (the
// pipeline report's funnel and bySource). A later step is added to the day
// the lead was created, when the lead first reaches it.
type LeadDay struct{ ent.Schema }

func (LeadDay) Annotations() []schema.Annotation { return rollupAnnotations }
func (LeadDay) Policy() ent.Policy               { return rollupPolicy() }

func (LeadDay) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("org_id", uuidType).Immutable(),
		field.Int("day").Immutable(),
		field.Enum("source").Values(enum.LeadSources...).Immutable(),
		field.Int("slot").Immutable(),
		field.Int("leads").Default(0),
		field.Int("applied").Default(0),
		field.Int("approved").Default(0),
		field.Int("funded").Default(0),
		field.Int64("funded_amount").GoType(amountGo).Default(0),
	}
}

func (LeadDay) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("org_id", "day", "source", "slot").Unique(),
		index.Fields("org_id", "day", "source", "slot", "leads", "applied", "approved", "funded", "funded_amount").
			StorageKey("leadday_sums"),
	}
}

// DealDay sums the deals funded on a day by one lender (dimension lender)
// and, again, by one advisor (dimension advisor; deals without an advisor
// have no advisor row), with their commissions and the renewals among
// them: the funding and commissions reports. A payment adds to the row of its deal's day. Each
// sum is kept three times: by day (grain day, day is the day's number), by
// month (grain month, day is the month's number, period.MonthNumber) and by
// year (grain year, day is the year's number, period.YearNumber), so a
// year's groups add up a year's row and a month's, and a few days, less
// the months and days of the year still to come (period.Cover), not every
// day.
type DealDay struct{ ent.Schema }

func (DealDay) Annotations() []schema.Annotation { return rollupAnnotations }
func (DealDay) Policy() ent.Policy               { return rollupPolicy() }

func (DealDay) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("org_id", uuidType).Immutable(),
		field.Enum("grain").Values("day", "month", "year").Default("day").Immutable(),
		field.Int("day").Immutable(),
		field.Enum("dimension").Values("lender", "advisor").Immutable(),
		field.UUID("subject_id", uuidType).Immutable(), // the lender's or the advisor's id
		field.Int("deals").Default(0),
		field.Int64("funded_amount").GoType(amountGo).Default(0),
		field.Int64("expected_commission").GoType(amountGo).Default(0),
		field.Int64("paid").GoType(amountGo).Default(0),
		field.Int64("clawed_back").GoType(amountGo).Default(0),
		// The sum over the day's commissions of max(expected - paid, 0).
		field.Int64("outstanding").GoType(amountGo).Default(0),
		// The renewals among the day's deals (is_renewal): how many, their
		// funded amounts, and their commissions' expected amounts and
		// payments (gross), for the reports' renewal figures.
		field.Int("renewal_deals").Default(0),
		field.Int64("renewal_amount").GoType(amountGo).Default(0),
		field.Int64("renewal_expected").GoType(amountGo).Default(0),
		field.Int64("renewal_paid").GoType(amountGo).Default(0),
	}
}

func (DealDay) Indexes() []ent.Index {
	return []ent.Index{
		// The index holding the sums too (dealday_dimension_sums), by
		// dimension first for a series of the lenders' rows alone, is
		// the store's: PostgreSQL's alone (moneySumsDDL).
		index.Fields("org_id", "grain", "day", "dimension", "subject_id").Unique(),
	}
}

// PaymentDay sums the commission payments and clawbacks paid on a day:
// the commissions report's series.
type PaymentDay struct{ ent.Schema }

func (PaymentDay) Annotations() []schema.Annotation { return rollupAnnotations }
func (PaymentDay) Policy() ent.Policy               { return rollupPolicy() }

func (PaymentDay) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("org_id", uuidType).Immutable(),
		field.Int("day").Immutable(),
		field.Int64("paid").GoType(amountGo).Default(0),
		field.Int64("clawed_back").GoType(amountGo).Default(0),
	}
}

func (PaymentDay) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("org_id", "day").Unique(), // and paymentday_sums, as DealDay's
	}
}
