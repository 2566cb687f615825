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
	Amount           money.Amount
	MonthlyRevenue   *money.Amount
	MonthsInBusiness *int
	Industry         *string
	Product          *string
}

// Warnings names every criterion of the box the file misses. A miss does
// not refuse the submission (the broker may know better); the application
// carries the warnings. Unknown facts miss nothing.
func (b Box) Warnings(f File) []string {
	w := []string{}
	if b.MinAmount != nil && f.Amount < *b.MinAmount {
		w = append(w, fmt.Sprintf("requestedAmount %s is below the lender's minAmount %s", f.Amount, *b.MinAmount))
	}
	if b.MaxAmount != nil && f.Amount > *b.MaxAmount {
		w = append(w, fmt.Sprintf("requestedAmount %s is above the lender's maxAmount %s", f.Amount, *b.MaxAmount))
	}
	if b.MinMonthlyRevenue != nil && f.MonthlyRevenue != nil && *f.MonthlyRevenue < *b.MinMonthlyRevenue {
		w = append(w, fmt.Sprintf("the lead's monthlyRevenue %s is below the lender's minMonthlyRevenue %s",
			*f.MonthlyRevenue, *b.MinMonthlyRevenue))
	}
	if f.Industry != nil && slices.ContainsFunc(b.ExcludedIndustries, func(x string) bool {
		return strings.EqualFold(strings.TrimSpace(x), strings.TrimSpace(*f.Industry))
	}) {
		w = append(w, fmt.Sprintf("the lead's industry %q is excluded by the lender", *f.Industry))
	}
	if f.Product != nil && len(b.Products) > 0 && !slices.Contains(b.Products, *f.Product) {
		w = append(w, fmt.Sprintf("the lender does not offer the product %s", *f.Product))
	}
	if b.MinMonthsInBusiness != nil && f.MonthsInBusiness != nil && *f.MonthsInBusiness < *b.MinMonthsInBusiness {
		w = append(w, fmt.Sprintf("the lead's monthsInBusiness %d is below the lender's minMonthsInBusiness %d",
			*f.MonthsInBusiness, *b.MinMonthsInBusiness))
	}
	return w
}
