package money

import (
	"bytes"
	"database/sql/driver"
	"fmt"
	"io"
	"math/big"
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
