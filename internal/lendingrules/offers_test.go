package lendingrules_test

import (
	"slices"
	"testing"

	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/money"
)

// Each case is computed by hand; the comment beside it shows the exact
// value before rounding where rounding matters.
func TestCostOf(t *testing.T) {
	cases := []struct {
		name                   string
		amount, rate, rateType string
		term                   int
		freq                   string
		payback                string
		payments               int // 0: none
		each, cost             string
	}{
		{"factor monthly", "25000.00", "1.35", "factor", 12, "monthly", "33750.00", 12, "2812.50", "8750.00"},
		{"factor daily", "25000.00", "1.3", "factor", 6, "daily", "32500.00", 126, "257.94", "7500.00"},                  // 257.9365…
		{"factor weekly, whole weeks", "30000.00", "1.42", "factor", 9, "weekly", "42600.00", 39, "1092.31", "12600.00"}, // 9×52/12 = 39; 1092.3076…
		{"factor weekly, a part week", "10000.00", "1.25", "factor", 7, "weekly", "12500.00", 31, "403.23", "2500.00"},   // 7×52/12 = 30.33 -> 31; 403.2258…
		{"factor weekly, one month", "1000.00", "1.1", "factor", 1, "weekly", "1100.00", 5, "220.00", "100.00"},          // 4.33 -> 5
		{"apr monthly", "50000.00", "0.189", "apr", 24, "monthly", "68900.00", 24, "2870.83", "18900.00"},                // 50000×0.189×24/12; 2870.8333…
		{"apr weekly", "20000.00", "0.12", "apr", 5, "weekly", "21000.00", 22, "954.55", "1000.00"},                      // 21.67 -> 22; 954.5454…
		{"apr daily", "10000.00", "0.25", "apr", 3, "daily", "10625.00", 63, "168.65", "625.00"},                         // 168.6507…
		{"apr at zero", "5000.00", "0", "apr", 12, "monthly", "5000.00", 12, "416.67", "0.00"},                           // 416.666…
		{"apr, odd months", "12345.67", "0.189", "apr", 7, "monthly", "13706.78", 7, "1958.11", "1361.11"},               // interest 1361.1101175; 1958.1114…
		// Half-even to the cent in the payback.
		{"factor payback below the tie", "100.10", "1.125", "factor", 1, "monthly", "112.61", 1, "112.61", "12.51"},  // 112.6125
		{"factor payback tie to even", "100.20", "1.125", "factor", 1, "monthly", "112.72", 1, "112.72", "12.52"},    // 112.725
		{"factor payback tie up to even", "100.60", "1.125", "factor", 1, "monthly", "113.18", 1, "113.18", "12.58"}, // 113.175
		{"apr interest tie to even", "3.00", "0.1", "apr", 1, "monthly", "3.02", 1, "3.02", "0.02"},                  // 0.025
		{"apr interest tie up to even", "9.00", "0.1", "apr", 1, "monthly", "9.08", 1, "9.08", "0.08"},               // 0.075
		// Half-even to the cent in the payment amount.
		{"payment tie to even", "8333.50", "1.2", "factor", 8, "monthly", "10000.20", 8, "1250.02", "1666.70"},     // 1250.025
		{"payment tie up to even", "10000.25", "1.2", "factor", 4, "monthly", "12000.30", 4, "3000.08", "2000.05"}, // 3000.075
		// No frequency stated: no payments, no payment amount.
		{"no frequency", "25000.00", "1.35", "factor", 12, "", "33750.00", 0, "", "8750.00"},
		{"no frequency, apr", "50000.00", "0.189", "apr", 24, "", "68900.00", 0, "", "18900.00"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			amount, err := money.ParseAmount(c.amount)
			if err != nil {
				t.Fatal(err)
			}
			rate, err := money.ParseRate(c.rate)
			if err != nil {
				t.Fatal(err)
			}
			got, err := lendingrules.CostOf(lendingrules.OfferTerms{Amount: amount, RateType: c.rateType, Rate: rate,
				TermMonths: c.term, PaymentFrequency: c.freq})
			if err != nil {
				t.Fatal(err)
			}
			if got.Payback.String() != c.payback || got.CostOfCapital.String() != c.cost {
				t.Errorf("payback %s, cost %s; want %s, %s", got.Payback, got.CostOfCapital, c.payback, c.cost)
			}
			if c.payments == 0 {
				if got.Payments != nil || got.PaymentAmount != nil {
					t.Errorf("payments %v of %v; want none", got.Payments, got.PaymentAmount)
				}
				return
			}
			if got.Payments == nil || *got.Payments != c.payments || got.PaymentAmount == nil || got.PaymentAmount.String() != c.each {
				t.Errorf("payments %v of %v; want %d of %s", got.Payments, got.PaymentAmount, c.payments, c.each)
			}
		})
	}
}

func TestPayments(t *testing.T) {
	cases := []struct {
		freq string
		term int
		want int // 0: none
	}{
		{"monthly", 1, 1}, {"monthly", 600, 600},
		{"weekly", 1, 5}, {"weekly", 3, 13}, {"weekly", 6, 26}, {"weekly", 7, 31}, {"weekly", 12, 52}, {"weekly", 13, 57}, {"weekly", 600, 2600},
		{"daily", 1, 21}, {"daily", 12, 252}, {"daily", 600, 12600},
		{"", 12, 0}, {"yearly", 12, 0}, {"monthly", 0, 0}, {"daily", -1, 0},
	}
	for _, c := range cases {
		n, ok := lendingrules.Payments(c.freq, c.term)
		if ok != (c.want != 0) || n != c.want {
			t.Errorf("Payments(%q, %d) = %d, %v; want %d", c.freq, c.term, n, ok, c.want)
		}
	}
}

// The factor payback of an offer is the deal's: one formula.
func TestEstimatedPaybackIsTheDealsAtAFactor(t *testing.T) {
	for _, cents := range []int64{1, 5, 10010, 10020, 2500000, 99999999999999} {
		a, r := money.FromCents(cents), money.Rate(1_125_000)
		deal, _, err := lendingrules.Payback(a, lendingrules.Factor, r)
		if err != nil {
			t.Fatal(err)
		}
		offer, err := lendingrules.EstimatedPayback(a, lendingrules.Factor, r, 12)
		if err != nil || offer != deal {
			t.Errorf("%s at 1.125: offer %s, %v; deal %s", a, offer, err, deal)
		}
	}
	if _, err := lendingrules.EstimatedPayback(100, "flat", 1, 12); err == nil {
		t.Error("an unknown rate type gave a payback")
	}
}

func TestOfferNamesStoredValues(t *testing.T) {
	if !slices.Contains(enum.RateTypes, lendingrules.APR) {
		t.Errorf("rate type %q is not one of %v", lendingrules.APR, enum.RateTypes)
	}
	for _, f := range []string{lendingrules.Daily, lendingrules.Weekly, lendingrules.Monthly} {
		if !slices.Contains(enum.PaymentFrequencies, f) {
			t.Errorf("payment frequency %q is not one of %v", f, enum.PaymentFrequencies)
		}
	}
}
