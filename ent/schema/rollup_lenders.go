package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/analytics/decision"
	"github.com/lendingpipe/svc/analytics/funnel"
	"github.com/lendingpipe/svc/internal/enum"
)

// The lenders report's rollups. Applications count on the local day they
// were submitted, by lender, as the report groups them: a later decision,
// withdrawal or funding adds to the day the application was submitted.

// LenderDay counts the applications submitted to one lender on a day by
// where they went since: decided and not declined (approved), declined
// (and by decline category, one column each of enum.DeclineCategories,
// "other" when none was given), withdrawn, funded with the sum of their
// deals. Rows are spread over slots as LeadDay's: a submission is a hot
// write. As DealDay's, each count is kept by day, by month and by year
// (grain), so a year's figures add up a few rows a lender.
type LenderDay struct{ ent.Schema }

func (LenderDay) Annotations() []schema.Annotation { return rollupAnnotations }
func (LenderDay) Policy() ent.Policy               { return rollupPolicy() }

func (LenderDay) Fields() []ent.Field {
	fields := []ent.Field{
		field.UUID("org_id", uuidType).Immutable(),
		field.Enum("grain").Values("day", "month", "year").Default("day").Immutable(),
		field.Int("day").Immutable(),
		field.UUID("lender_id", uuidType).Immutable(),
		field.Int("slot").Immutable(),
		field.Int("submitted").Default(0),
		field.Int("approved").Default(0),
		field.Int("declined").Default(0),
		field.Int("withdrawn").Default(0),
		field.Int("funded").Default(0),
		field.Int64("funded_amount").GoType(amountGo).Default(0),
	}
	for _, cat := range enum.DeclineCategories {
		fields = append(fields, field.Int(funnel.DeclineColumn(cat)).Default(0))
	}
	return fields
}

func (LenderDay) Indexes() []ent.Index {
	return []ent.Index{index.Fields("org_id", "grain", "day", "lender_id", "slot").Unique()}
}

// DecisionDay is the histogram of the whole seconds from submission to
// decision of the applications submitted to one lender on a day and since
// decided: row octave holds the seconds of DecisionBucket's octave, one
// column per bucket (b00..b31). The report sums the rows of its days to
// find the bucket holding the median, then reads that bucket's
// applications alone (by their decision_seconds) for the exact value.
// As DealDay's, each count is kept by day, by month and by year (grain),
// so a year's histogram adds up a few rows a lender.
type DecisionDay struct{ ent.Schema }

func (DecisionDay) Annotations() []schema.Annotation { return rollupAnnotations }
func (DecisionDay) Policy() ent.Policy               { return rollupPolicy() }

func (DecisionDay) Fields() []ent.Field {
	fields := []ent.Field{
		field.UUID("org_id", uuidType).Immutable(),
		field.Enum("grain").Values("day", "month", "year").Default("day").Immutable(),
		field.Int("day").Immutable(),
		field.UUID("lender_id", uuidType).Immutable(),
		field.Int("octave").Immutable(),
	}
	for b := range decision.Buckets {
		fields = append(fields, field.Int(decision.Column(b)).Default(0))
	}
	return fields
}

func (DecisionDay) Indexes() []ent.Index {
	return []ent.Index{index.Fields("org_id", "grain", "day", "lender_id", "octave").Unique()}
}
