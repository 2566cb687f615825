package money

import (
	"bytes"
	"database/sql/driver"
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"
)

// Amount is a sum of money in cents. The API reads and writes it as a
// decimal string with two decimals; the database stores the integer.
//
// Input is never negative and at most MaxAmount; amounts the service
// computes may go beyond (a payback is up to ten times a funded amount) or
// below zero (what is still owed after a clawback), and format as
// "-12.50". Amounts compare with the ordinary operators.
type Amount int64

// MaxAmount is the largest amount the API accepts, inclusive:
// 1000000000000.00.
const MaxAmount Amount = 1_000_000_000_000 * 100

// Reasons an input is not an amount; each matches ErrInvalid.
const (
	errAmountForm  invalid = `must be a decimal string with at most 2 decimals, such as "12500.00"`
	errAmountRange invalid = "must be at most 1000000000000.00"
	errAmountType  invalid = `must be a string such as "12500.00"`
)

// ParseAmount reads an amount as the API accepts it: digits, optionally a
// dot and one or two more (^[0-9]+(\.[0-9]{1,2})?$), at most MaxAmount.
// Leading zeros are allowed ("007.5" is 7.50); signs, exponents, spaces,
// thousands separators and a bare leading or trailing dot are not.
func ParseAmount(s string) (Amount, error) {
	v, wellFormed, inRange := decimal(s, 2, int64(MaxAmount))
	switch {
	case !wellFormed:
		return 0, errAmountForm
	case !inRange:
		return 0, errAmountRange
	}
	return Amount(v), nil
}

// FromCents is the amount of c cents.
func FromCents(c int64) Amount { return Amount(c) }

// Cents is a as an integer count of cents.
func (a Amount) Cents() int64 { return int64(a) }

// String writes a with exactly two decimals: "1234.50", "0.05", "-3.00".
func (a Amount) String() string {
	whole, frac := format(int64(a), 2)
	return whole + "." + frac
}

// Plus returns a+b, or ErrOverflow when it does not fit.
func (a Amount) Plus(b Amount) (Amount, error) {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		return 0, ErrOverflow
	}
	return s, nil
}

// Minus returns a-b, or ErrOverflow when it does not fit.
func (a Amount) Minus(b Amount) (Amount, error) {
	d := a - b
	if (b > 0 && d > a) || (b < 0 && d < a) {
		return 0, ErrOverflow
	}
	return d, nil
}

// MulRate returns a×r rounded half-even to the cent: a commission
// (fundedAmount × commissionRate) or an MCA payback (fundedAmount ×
// factor). The product is computed exactly in big integers, so MaxAmount ×
// MaxRate (1e12 × 10) is exact; ErrOverflow only when the rounded result
// does not fit in int64 cents.
func (a Amount) MulRate(r Rate) (Amount, error) {
	num := new(big.Int).Mul(big.NewInt(int64(a)), big.NewInt(int64(r)))
	c, err := roundHalfEven(num, big.NewInt(int64(rateUnit)))
	return Amount(c), err
}

// MulRateFrac returns a×r×num/den rounded half-even to the cent, once,
// from the exact product: an APR's interest over a term (amount × rate ×
// termMonths / 12) would round twice, and differently, if computed as
// MulRate then Div. den must not be zero.
func (a Amount) MulRateFrac(r Rate, num, den int64) (Amount, error) {
	if den == 0 {
		return 0, fmt.Errorf("dividing %s by zero", a)
	}
	n := new(big.Int).Mul(big.NewInt(int64(a)), big.NewInt(int64(r)))
	n.Mul(n, big.NewInt(num))
	d := new(big.Int).Mul(big.NewInt(int64(rateUnit)), big.NewInt(den))
	c, err := roundHalfEven(n, d)
	return Amount(c), err
}

// Div returns a/n rounded half-even to the cent, as an average of n
// amounts is (analytics' averageAmount). n must not be zero.
func (a Amount) Div(n int64) (Amount, error) {
	if n == 0 {
		return 0, fmt.Errorf("dividing %s by zero", a)
	}
	c, err := roundHalfEven(big.NewInt(int64(a)), big.NewInt(n))
	return Amount(c), err
}

// MarshalJSON writes a as a JSON string: "25000.00".
func (a Amount) MarshalJSON() ([]byte, error) { return quoted(a.String()), nil }

// UnmarshalJSON reads a JSON string as ParseAmount does. A number is
// refused, whatever its value. null leaves a unchanged, as encoding/json
// does for its own types; a pointer field tells null apart.
func (a *Amount) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	s, ok := jsonString(b)
	if !ok {
		return errAmountType
	}
	v, err := ParseAmount(s)
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// MarshalGQL writes a as a GraphQL string, for gqlgen's scalar binding.
func (a Amount) MarshalGQL(w io.Writer) { _, _ = w.Write(quoted(a.String())) }

// UnmarshalGQL reads a GraphQL string as ParseAmount does; GraphQL numbers
// (Int or Float literals or variables) are refused.
func (a *Amount) UnmarshalGQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return errAmountType
	}
	p, err := ParseAmount(s)
	if err != nil {
		return err
	}
	*a = p
	return nil
}

// Value stores a as its integer count of cents.
func (a Amount) Value() (driver.Value, error) { return int64(a), nil }

// Scan reads an integer count of cents (a column, or an exact SUM of one).
func (a *Amount) Scan(src any) error {
	v, err := scanInt64(src)
	if err != nil {
		return fmt.Errorf("scanning an amount: %w", err)
	}
	*a = Amount(v)
	return nil
}

// RoundDecimal reads a non-negative decimal of up to four fraction digits
// (how a lead records monthlyRevenue and requestedAmount) and rounds it
// half-even to the cent: "1234.5650" is 1234.56, "1234.5750" is 1234.58.
func RoundDecimal(s string) (Amount, error) {
	v, wellFormed, inRange := decimal(s, 4, int64(MaxAmount)*100)
	switch {
	case !wellFormed:
		return 0, errAmountForm
	case !inRange:
		return 0, errAmountRange
	}
	c, err := roundHalfEven(big.NewInt(v), big.NewInt(100))
	return Amount(c), err
}

// MaxAmountValue is the largest Amount an int64 of cents holds:
// 92233720368547758.07. A total beyond it is shown as it (a sum the
// service cannot print exactly says so beside it).
const MaxAmountValue Amount = math.MaxInt64

// TenThousandths reads a non-negative decimal of up to four fraction
// digits (a lead's requestedAmount or monthlyRevenue) as its exact count
// of ten-thousandths, whatever its length: a lead's 15 integer digits do
// not fit an int64 of ten-thousandths, so the count is a big.Int.
func TenThousandths(s string) (*big.Int, error) {
	whole, frac, dot := strings.Cut(s, ".")
	if !digits(whole) || dot && (!digits(frac) || len(frac) > 4) {
		return nil, errAmountForm
	}
	v, ok := new(big.Int).SetString(whole+frac+strings.Repeat("0", 4-len(frac)), 10)
	if !ok {
		return nil, errAmountForm
	}
	return v, nil
}

// RoundTenThousandths is v ten-thousandths rounded half-even to the cent,
// once, after summing (a sum of requested amounts is exact to the fourth
// decimal until it is shown). exact is false when the rounded sum does
// not fit an Amount: the result is then MaxAmountValue (or its negative).
func RoundTenThousandths(v *big.Int) (a Amount, exact bool) {
	c, err := roundHalfEven(v, big.NewInt(100))
	if err != nil {
		if v.Sign() < 0 {
			return -MaxAmountValue, false
		}
		return MaxAmountValue, false
	}
	return Amount(c), true
}
