package lending_test

import (
	"slices"
	"testing"

	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/lending"
	"github.com/lendingpipe/svc/internal/money"
)

func TestDealTerms(t *testing.T) {
	funded, factor := money.FromCents(2500000), money.Rate(1_300_000) // 25,000.00 at 1.3
	if p, ok, err := lending.Payback(funded, lending.Factor, factor); err != nil || !ok || p != money.FromCents(3250000) {
		t.Errorf("factor payback: %v %v %v, want 32500.00", p, ok, err)
	}
	if _, ok, err := lending.Payback(funded, "apr", factor); err != nil || ok {
		t.Errorf("an APR states no payback: %v %v", ok, err)
	}
	// 3 % of 16,666.83 is 500.0049: half-even to 500.00.
	if c, err := lending.ExpectedCommission(money.FromCents(1666683), money.Rate(30_000)); err != nil || c != money.FromCents(50000) {
		t.Errorf("commission: %v %v, want 500.00", c, err)
	}
	for _, c := range []struct {
		paid, expected int64
		clawedBack     bool
		want           string
	}{
		{0, 500, false, lending.CommissionPending},
		{100, 500, false, lending.CommissionPartiallyPaid},
		{500, 500, false, lending.CommissionPaid},
		{600, 500, false, lending.CommissionPaid},
		{500, 500, true, lending.CommissionClawedBack},
	} {
		if got := lending.CommissionStatus(money.FromCents(c.paid), money.FromCents(c.expected), c.clawedBack); got != c.want {
			t.Errorf("paid %d of %d (clawed back %v): %s, want %s", c.paid, c.expected, c.clawedBack, got, c.want)
		}
	}
}

// The terms' names are the stored enumerations' values: a rename on one
// side only would compile, then fail at run time.
func TestTermsNameStoredValues(t *testing.T) {
	for _, s := range []string{lending.CommissionPending, lending.CommissionPartiallyPaid, lending.CommissionPaid, lending.CommissionClawedBack} {
		if !slices.Contains(enum.CommissionStatuses, s) {
			t.Errorf("commission status %q is not one of %v", s, enum.CommissionStatuses)
		}
	}
	if !slices.Contains(enum.RateTypes, lending.Factor) {
		t.Errorf("rate type %q is not one of %v", lending.Factor, enum.RateTypes)
	}
}
