package money

import (
	"bytes"
	"database/sql/driver"
	"fmt"
	"io"
	"strings"
)

// Rate is a fraction or factor in millionths: an interest rate (a factor
// such as 1.35, or an APR as a fraction, 0.189), or a commission rate
// (0.089). The API reads it as a decimal string with up to six decimals and
// writes it normalized; the database stores the integer.
type Rate int64

// rateUnit is the number of millionths in 1.
const rateUnit Rate = 1_000_000

// MaxRate is the largest rate the API accepts, inclusive: 10.
const MaxRate Rate = 10 * rateUnit

// Reasons an input is not a rate; each matches ErrInvalid.
const (
	errRateForm  invalid = `must be a decimal string with at most 6 decimals, such as "0.089"`
	errRateRange invalid = "must be between 0 and 10"
	errRateType  invalid = `must be a string such as "0.089"`
)

// ParseRate reads a rate as the API accepts it: digits, optionally a dot
// and one to six more (^[0-9]+(\.[0-9]{1,6})?$), from 0 to MaxRate
// inclusive. Leading and trailing zeros are allowed ("01.350" is 1.35);
// signs, exponents, spaces and a bare leading or trailing dot are not.
func ParseRate(s string) (Rate, error) {
	v, wellFormed, inRange := decimal(s, 6, int64(MaxRate))
	switch {
	case !wellFormed:
		return 0, errRateForm
	case !inRange:
		return 0, errRateRange
	}
	return Rate(v), nil
}

// FromMillionths is the rate of m millionths.
func FromMillionths(m int64) Rate { return Rate(m) }

// Millionths is r as an integer count of millionths.
func (r Rate) Millionths() int64 { return int64(r) }

// String writes r without trailing zeros: "1.35", "0.089", "0", "10".
func (r Rate) String() string {
	whole, frac := format(int64(r), 6)
	if frac = strings.TrimRight(frac, "0"); frac == "" {
		return whole
	}
	return whole + "." + frac
}

// MarshalJSON writes r as a JSON string: "1.35".
func (r Rate) MarshalJSON() ([]byte, error) { return quoted(r.String()), nil }

// UnmarshalJSON reads a JSON string as ParseRate does. A number is
// refused, whatever its value. null leaves r unchanged, as encoding/json
// does for its own types; a pointer field tells null apart.
func (r *Rate) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	s, ok := jsonString(b)
	if !ok {
		return errRateType
	}
	v, err := ParseRate(s)
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// MarshalGQL writes r as a GraphQL string, for gqlgen's scalar binding.
func (r Rate) MarshalGQL(w io.Writer) { _, _ = w.Write(quoted(r.String())) }

// UnmarshalGQL reads a GraphQL string as ParseRate does; GraphQL numbers
// are refused.
func (r *Rate) UnmarshalGQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return errRateType
	}
	p, err := ParseRate(s)
	if err != nil {
		return err
	}
	*r = p
	return nil
}

// Value stores r as its integer count of millionths.
func (r Rate) Value() (driver.Value, error) { return int64(r), nil }

// Scan reads an integer count of millionths.
func (r *Rate) Scan(src any) error {
	v, err := scanInt64(src)
	if err != nil {
		return fmt.Errorf("scanning a rate: %w", err)
	}
	*r = Rate(v)
	return nil
}
