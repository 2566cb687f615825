package lendingrules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lendingpipe/svc/internal/money"
)

// Box is what a lender funds: its criteria, each nil or empty when the
// lender sets none.
type Box struct {
	MinAmount, MaxAmount *money.Amount
	MinMonthlyRevenue    *money.Amount
	MinMonthsInBusiness  *int
	ExcludedIndustries   []string
	Products             []string
}

// File is what a submission tells of the deal: the amount asked for and
// what the lead records, each nil when unknown.
type File struct {
	Amount           *money.Amount
	MonthlyRevenue   *money.Amount
	MonthsInBusiness *int
	Industry         *string
	Product          *string
	// OpenApplication is whether the lead has an application open with
	// the lender already.
	OpenApplication bool
}

// The fields a box check names, in the order it checks them.
const (
	FieldAmount           = "amount"
	FieldMonthlyRevenue   = "monthlyRevenue"
	FieldIndustry         = "industry"
	FieldProduct          = "product"
	FieldMonthsInBusiness = "monthsInBusiness"
	FieldOpenApplication  = "openApplication"
)

// Miss is one criterion of the box the file misses: the field and what
// is wrong with it, in words.
type Miss struct {
	Field   string
	Message string
}

// Check is what a box check finds: the criteria the file misses, and the
// fields the box has a criterion for that the file does not know (a fact
// the lead lacks misses nothing). Both are empty, never nil, when there
// is nothing to say.
type Check struct {
	Misses  []Miss
	Unknown []string
}

// Eligible is whether nothing misses.
func (c Check) Eligible() bool { return len(c.Misses) == 0 }

// Check compares the file with the box: the one rule of a lender's box,
// which a submission's warnings and the lender matches both read.
// A product is checked when the file names one; it is never unknown.
func (b Box) Check(f File) Check {
	c := Check{Misses: []Miss{}, Unknown: []string{}}
	miss := func(field, format string, args ...any) {
		c.Misses = append(c.Misses, Miss{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	switch {
	case f.Amount == nil:
		if b.MinAmount != nil || b.MaxAmount != nil {
			c.Unknown = append(c.Unknown, FieldAmount)
		}
	case b.MinAmount != nil && *f.Amount < *b.MinAmount:
		miss(FieldAmount, "requestedAmount %s is below the lender's minAmount %s", *f.Amount, *b.MinAmount)
	case b.MaxAmount != nil && *f.Amount > *b.MaxAmount:
		miss(FieldAmount, "requestedAmount %s is above the lender's maxAmount %s", *f.Amount, *b.MaxAmount)
	}
	if b.MinMonthlyRevenue != nil {
		switch {
		case f.MonthlyRevenue == nil:
			c.Unknown = append(c.Unknown, FieldMonthlyRevenue)
		case *f.MonthlyRevenue < *b.MinMonthlyRevenue:
			miss(FieldMonthlyRevenue, "the lead's monthlyRevenue %s is below the lender's minMonthlyRevenue %s",
				*f.MonthlyRevenue, *b.MinMonthlyRevenue)
		}
	}
	if len(b.ExcludedIndustries) > 0 {
		switch {
		case f.Industry == nil:
			c.Unknown = append(c.Unknown, FieldIndustry)
		case slices.ContainsFunc(b.ExcludedIndustries, func(x string) bool {
			return strings.EqualFold(strings.TrimSpace(x), strings.TrimSpace(*f.Industry))
		}):
			miss(FieldIndustry, "the lead's industry %q is excluded by the lender", *f.Industry)
		}
	}
	if f.Product != nil && len(b.Products) > 0 && !slices.Contains(b.Products, *f.Product) {
		miss(FieldProduct, "the lender does not offer the product %s", *f.Product)
	}
	if b.MinMonthsInBusiness != nil {
		switch {
		case f.MonthsInBusiness == nil:
			c.Unknown = append(c.Unknown, FieldMonthsInBusiness)
		case *f.MonthsInBusiness < *b.MinMonthsInBusiness:
			miss(FieldMonthsInBusiness, "the lead's monthsInBusiness %d is below the lender's minMonthsInBusiness %d",
				*f.MonthsInBusiness, *b.MinMonthsInBusiness)
		}
	}
	if f.OpenApplication {
		miss(FieldOpenApplication, "the lead already has an open application with the lender")
	}
	return c
}

// Warnings names every criterion of the box the file misses, as Check
// finds them. A miss does not refuse the submission (the broker may know
// better); the application carries the warnings. Unknown facts miss
// nothing.
func (b Box) Warnings(f File) []string {
	c := b.Check(f)
	w := make([]string, 0, len(c.Misses))
	for _, m := range c.Misses {
		w = append(w, m.Message)
	}
	return w
}
