// Package money is the service's one representation of amounts and rates,
// exact from the API to the database and back: binary floating point
// appears nowhere on the way (a test parses this package and fails on any).
//
//   - Amount is a count of cents (int64). The API writes it as a decimal
//     string with exactly two decimals ("25000.00"); the database stores the
//     integer, so SQL SUM is exact on SQLite and PostgreSQL alike.
//   - Rate is a count of millionths (int64). The API writes it normalized,
//     without trailing zeros ("1.35", "0.089", "0").
//   - Where the service computes money (a commission, a payback, an
//     average) it rounds half-even to the cent.
//
// Both types parse only what the API accepts and implement the interfaces
// the surfaces need: encoding/json, gqlgen's scalar Marshaler and
// Unmarshaler, and database/sql's Scanner and Valuer (an ent field is
// field.Int64("x").GoType(money.Amount(0))).
//
// A leaf: it imports nothing of this service, so every layer may use it.
package money

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// ErrInvalid is matched (errors.Is) by every error that says a value sent
// to the service is not an amount or a rate the API accepts: the caller's
// mistake, a VALIDATION_ERROR on the field it was read for. The error's own
// text is the reason, worded to follow the field's name:
// apperr.Invalid("fundedAmount", "%s", err).
var ErrInvalid = errors.New("not a valid amount or rate")

// ErrOverflow is returned when a computed amount does not fit in int64
// cents (about 92 quadrillion). Amounts and rates within MaxAmount and
// MaxRate never cause it in one multiplication; a sum needs over 92,000
// maximal amounts to.
var ErrOverflow = errors.New("amount out of range")

// invalid is an ErrInvalid whose text is the reason.
type invalid string

func (e invalid) Error() string        { return string(e) }
func (e invalid) Is(target error) bool { return target == ErrInvalid }

// decimal reads s as the API writes a non-negative decimal: one or more
// ASCII digits, then optionally a dot and 1 to scale digits. No sign,
// exponent, spaces, separators, or bare dot on either side. Leading zeros
// are accepted ("007.50"), as the API's pattern allows them. The result is
// in units of 10^-scale; inRange is false when it exceeds max.
func decimal(s string, scale int, max int64) (v int64, wellFormed, inRange bool) {
	whole, frac, dot := strings.Cut(s, ".")
	if !digits(whole) || dot && (!digits(frac) || len(frac) > scale) {
		return 0, false, false
	}
	unit := pow10(scale)
	maxWhole := max / unit
	for i := 0; i < len(whole); i++ {
		v = v*10 + int64(whole[i]-'0')
		if v > maxWhole {
			return 0, true, false // stop before a long digit string overflows
		}
	}
	var f int64
	for i := 0; i < len(frac); i++ {
		f = f*10 + int64(frac[i]-'0')
	}
	v = v*unit + f*pow10(scale-len(frac))
	return v, true, v <= max
}

// digits reports whether s is one or more ASCII digits.
func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// format writes v (in units of 10^-scale) with a dot before its last scale
// digits, and a minus sign when negative. MinInt64 has no positive int64,
// so the magnitude is taken as uint64.
func format(v int64, scale int) (whole, frac string) {
	mag := uint64(v)
	if v < 0 {
		mag = -mag
	}
	s := strconv.FormatUint(mag, 10)
	if len(s) <= scale {
		s = strings.Repeat("0", scale+1-len(s)) + s
	}
	whole, frac = s[:len(s)-scale], s[len(s)-scale:]
	if v < 0 {
		whole = "-" + whole
	}
	return whole, frac
}

// quoted is s as a JSON or GraphQL string. Formatted amounts and rates hold
// only digits, a dot and a minus sign, so nothing needs escaping.
func quoted(s string) []byte { return []byte(`"` + s + `"`) }

// roundHalfEven is num/den rounded to the nearest integer, ties to the even
// one, symmetric around zero (so -0.025 rounds as 0.025 does, to -0.02).
func roundHalfEven(num, den *big.Int) (int64, error) {
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	twice := new(big.Int).Abs(r)
	twice.Lsh(twice, 1)
	switch c := twice.Cmp(new(big.Int).Abs(den)); {
	case c > 0, c == 0 && q.Bit(0) == 1:
		// Away from zero, in the direction of the exact quotient.
		if num.Sign()*den.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	if !q.IsInt64() {
		return 0, ErrOverflow
	}
	return q.Int64(), nil
}

// scanInt64 reads an integer column. Drivers hand integers over as int64;
// PostgreSQL's SUM of a bigint column is numeric, which pgx hands over as
// its decimal text, so integer text is accepted too. NULL is refused: a
// nullable money column needs a Nillable ent field (ent then scans through
// sql.NullScanner and never passes NULL here), and a NULL read as zero
// would silently invent an amount.
func scanInt64(src any) (int64, error) {
	switch v := src.(type) {
	case int64:
		return v, nil
	case []byte:
		return strconv.ParseInt(string(v), 10, 64)
	case string:
		return strconv.ParseInt(v, 10, 64)
	case nil:
		return 0, errors.New("the column is NULL; a nullable column needs a Nillable field")
	}
	return 0, fmt.Errorf("a %T column is not an integer", src)
}

// jsonString returns the content of a JSON string, or ok=false when b is
// another JSON value (a number, above all: amounts are strings so that no
// client or proxy passes them through binary floating point).
func jsonString(b []byte) (s string, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return "", false
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return "", false
	}
	return s, true
}
