package lendingrules_test

import (
	"slices"
	"testing"

	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/money"
)

func TestDealTerms(t *testing.T) {
	funded, factor := money.FromCents(2500000), money.Rate(1_300_000) // 25,000.00 at 1.3
	if p, ok, err := lendingrules.Payback(funded, lendingrules.Factor, factor); err != nil || !ok || p != money.FromCents(3250000) {
		t.Errorf("factor payback: %v %v %v, want 32500.00", p, ok, err)
	}
	if _, ok, err := lendingrules.Payback(funded, "apr", factor); err != nil || ok {
		t.Errorf("an APR states no payback: %v %v", ok, err)
	}
	// 3 % of 16,666.83 is 500.0049: half-even to 500.00.
	if c, err := lendingrules.ExpectedCommission(money.FromCents(1666683), money.Rate(30_000)); err != nil || c != money.FromCents(50000) {
		t.Errorf("commission: %v %v, want 500.00", c, err)
	}
	for _, c := range []struct {
		paid, expected int64
		clawedBack     bool
		want           string
	}{
		{0, 500, false, lendingrules.CommissionPending},
		{100, 500, false, lendingrules.CommissionPartiallyPaid},
		{500, 500, false, lendingrules.CommissionPaid},
		{600, 500, false, lendingrules.CommissionPaid},
		{500, 500, true, lendingrules.CommissionClawedBack},
	} {
		if got := lendingrules.CommissionStatus(money.FromCents(c.paid), money.FromCents(c.expected), c.clawedBack); got != c.want {
			t.Errorf("paid %d of %d (clawed back %v): %s, want %s", c.paid, c.expected, c.clawedBack, got, c.want)
		}
	}
}

// The terms' names are the stored enumerations' values: a rename on one
// side only would compile, then fail at run time.
func TestTermsNameStoredValues(t *testing.T) {
	for _, s := range []string{lendingrules.CommissionPending, lendingrules.CommissionPartiallyPaid, lendingrules.CommissionPaid, lendingrules.CommissionClawedBack} {
		if !slices.Contains(enum.CommissionStatuses, s) {
			t.Errorf("commission status %q is not one of %v", s, enum.CommissionStatuses)
		}
	}
	if !slices.Contains(enum.RateTypes, lendingrules.Factor) {
		t.Errorf("rate type %q is not one of %v", lendingrules.Factor, enum.RateTypes)
	}
}
