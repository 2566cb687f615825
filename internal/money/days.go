package money

import (
	"errors"
	"io"
	"math/big"
)

// Days is a length of time in hundredths of a day, written with exactly
// two decimals ("3.50"): the lender matches' median days to a decision.
type Days int64

const daysScale = 2

// DaysOfRat is r (a count of days) rounded half-even to two decimals.
func DaysOfRat(r *big.Rat) (Days, error) {
	n := new(big.Int).Mul(r.Num(), big.NewInt(pow10(daysScale)))
	v, err := roundHalfEven(n, r.Denom())
	return Days(v), err
}

// String writes d with two decimals: "3.50", "0.01".
func (d Days) String() string {
	whole, frac := format(int64(d), daysScale)
	return whole + "." + frac
}

// MarshalJSON writes d as a JSON string.
func (d Days) MarshalJSON() ([]byte, error) { return quoted(d.String()), nil }

// MarshalGQL writes d as a GraphQL string.
func (d Days) MarshalGQL(w io.Writer) { _, _ = w.Write(quoted(d.String())) }

// UnmarshalGQL refuses input: days are computed, never sent.
func (d *Days) UnmarshalGQL(any) error { return errors.New("a Days is an output only") }
