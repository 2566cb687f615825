package lendingrules

import (
	"fmt"

	"github.com/lendingpipe/svc/internal/money"
)

// APR is the rate type whose rate is an annual interest rate as a fraction
// (0.189 is 18.9 %).
const APR = "apr"

// Payment frequencies an offer states.
const (
	Daily   = "daily"
	Weekly  = "weekly"
	Monthly = "monthly"
)

// BusinessDaysPerMonth is how many payments a month of a daily offer
// counts: a daily remittance is debited on business days only.
const BusinessDaysPerMonth = 21

// OfferTerms is an approved offer as the lender states it (PRODUCT 12.1).
type OfferTerms struct {
	Amount     money.Amount
	RateType   string
	Rate       money.Rate
	TermMonths int
	// PaymentFrequency is "" when the lender stated none: the offer then
	// has a payback and a cost, but no count of payments to split it in.
	PaymentFrequency string
}

// OfferCost is what an offer costs the merchant, so offers of different
// lenders, rate types and frequencies compare side by side.
type OfferCost struct {
	Payback money.Amount
	// Payments and PaymentAmount are nil when the offer states no payment
	// frequency: no count is guessed.
	Payments      *int
	PaymentAmount *money.Amount
	// CostOfCapital is Payback - Amount: what the money costs.
	CostOfCapital money.Amount
}

// CostOf is the offer's payback, payments, payment amount and cost of
// capital, each rounded half-even to the cent from exact values.
func CostOf(t OfferTerms) (OfferCost, error) {
	payback, err := EstimatedPayback(t.Amount, t.RateType, t.Rate, t.TermMonths)
	if err != nil {
		return OfferCost{}, err
	}
	cost, err := payback.Minus(t.Amount)
	if err != nil {
		return OfferCost{}, fmt.Errorf("the cost of capital: %w", err)
	}
	out := OfferCost{Payback: payback, CostOfCapital: cost}
	n, ok := Payments(t.PaymentFrequency, t.TermMonths)
	if !ok {
		return out, nil
	}
	each, err := payback.Div(int64(n))
	if err != nil {
		return OfferCost{}, fmt.Errorf("the payment amount: %w", err)
	}
	out.Payments, out.PaymentAmount = &n, &each
	return out, nil
}

// EstimatedPayback is what an offer pays back over its term. At a factor
// rate it is Payback's: amount × factor, exactly what a funded deal
// records. At an APR it is amount + amount × rate × termMonths / 12: a
// simple-interest estimate (a lender's amortization charges less, as the
// principal falls), good for comparing offers, not a lender's schedule.
// The interest is rounded once, half-even to the cent.
func EstimatedPayback(amount money.Amount, rateType string, rate money.Rate, termMonths int) (money.Amount, error) {
	if payback, ok, err := Payback(amount, rateType, rate); err != nil || ok {
		return payback, err
	}
	if rateType != APR {
		return 0, fmt.Errorf("the payback of an offer at rate type %q", rateType)
	}
	interest, err := amount.MulRateFrac(rate, int64(termMonths), 12)
	if err != nil {
		return 0, fmt.Errorf("the payback's interest %w", err)
	}
	payback, err := amount.Plus(interest)
	if err != nil {
		return 0, fmt.Errorf("the payback %w", err)
	}
	return payback, nil
}

// Payments is how many payments an offer of termMonths takes at
// frequency: monthly, one a month; weekly, ceil(termMonths × 52 / 12), a
// part week being a payment; daily, 21 business days a month. ok is false
// when the frequency is not one of these ("" when the offer states none)
// or the term is not positive.
func Payments(frequency string, termMonths int) (n int, ok bool) {
	if termMonths <= 0 {
		return 0, false
	}
	switch frequency {
	case Monthly:
		return termMonths, true
	case Weekly:
		return (termMonths*52 + 11) / 12, true
	case Daily:
		return termMonths * BusinessDaysPerMonth, true
	}
	return 0, false
}
