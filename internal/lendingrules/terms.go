package lendingrules

import (
	"fmt"

	"github.com/lendingpipe/svc/internal/money"
)

// Commission statuses.
const (
	CommissionPending       = "pending"
	CommissionPartiallyPaid = "partially_paid"
	CommissionPaid          = "paid"
	CommissionClawedBack    = "clawed_back"
)

// Factor is the rate type whose rate multiplies the funded amount into the
// payback; an APR states none.
const Factor = "factor"

// Payback is what a deal funded at a factor rate pays back: the funded
// amount times the factor. ok is false for another rate type, whose deal
// records no payback.
func Payback(funded money.Amount, rateType string, rate money.Rate) (payback money.Amount, ok bool, err error) {
	if rateType != Factor {
		return 0, false, nil
	}
	payback, err = funded.MulRate(rate)
	if err != nil {
		return 0, false, fmt.Errorf("the payback %w", err)
	}
	return payback, true, nil
}

// ExpectedCommission is what a deal funded at funded earns the broker at
// the lender's commission rate, rounded half-even to the cent.
func ExpectedCommission(funded money.Amount, rate money.Rate) (money.Amount, error) {
	due, err := funded.MulRate(rate)
	if err != nil {
		return 0, fmt.Errorf("the commission %w", err)
	}
	return due, nil
}

// CommissionStatus is a commission's status once a payment or a clawback
// is recorded against it: clawed_back once any clawback is, else as the
// paid amount stands against the expected. Before anything is recorded a
// commission is pending whatever its amounts (the caller's to say: a
// commission expecting 0.00 is not paid by being created).
func CommissionStatus(paid, expected money.Amount, clawedBack bool) string {
	switch {
	case clawedBack:
		return CommissionClawedBack
	case paid >= expected:
		return CommissionPaid
	case paid > 0:
		return CommissionPartiallyPaid
	}
	return CommissionPending
}
