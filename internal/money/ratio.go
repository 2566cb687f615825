package money

import (
	"errors"
	"io"
	"math/big"
)

// Ratio is a proportion in ten-thousandths: the reports' conversion and
// approval rates, written with exactly four decimals ("0.3125").
type Ratio int64

const ratioScale = 4

// RatioOf is num/den rounded half-even to four decimals; 0 when den is 0
// (a rate of nothing is written "0.0000", as the reports define it).
func RatioOf(num, den int64) Ratio {
	if den == 0 {
		return 0
	}
	n := new(big.Int).Mul(big.NewInt(num), big.NewInt(pow10(ratioScale)))
	v, err := roundHalfEven(n, big.NewInt(den))
	if err != nil {
		return 0 // unreachable: |num/den| of counts fits easily
	}
	return Ratio(v)
}

// String writes r with four decimals: "0.3125", "1.0000".
func (r Ratio) String() string {
	whole, frac := format(int64(r), ratioScale)
	return whole + "." + frac
}

// MarshalJSON writes r as a JSON string.
func (r Ratio) MarshalJSON() ([]byte, error) { return quoted(r.String()), nil }

// MarshalGQL writes r as a GraphQL string.
func (r Ratio) MarshalGQL(w io.Writer) { _, _ = w.Write(quoted(r.String())) }

// UnmarshalGQL refuses input: ratios are computed, never sent.
func (r *Ratio) UnmarshalGQL(any) error { return errors.New("a Ratio is an output only") }

// RatioOfRat is r rounded half-even to four decimals: a ratio computed
// exactly (a score of several ratios) and rounded once.
func RatioOfRat(r *big.Rat) (Ratio, error) {
	n := new(big.Int).Mul(r.Num(), big.NewInt(pow10(ratioScale)))
	v, err := roundHalfEven(n, r.Denom())
	return Ratio(v), err
}
