package money

import (
	"errors"
	"math/big"
	"regexp"
	"testing"
)

// The API's patterns, as the product documents them: the fuzz targets hold
// the parsers to them with an independent implementation (regexp and
// arbitrary-precision rationals).
var (
	amountPattern = regexp.MustCompile(`^[0-9]+(\.[0-9]{1,2})?$`)
	ratePattern   = regexp.MustCompile(`^[0-9]+(\.[0-9]{1,6})?$`)
)

var parseSeeds = []string{
	"", "0", "0.00", "0.01", "0.1", "1", "25000.00", "007.50", ".5", "5.", "-1", "+1", "1e3",
	"NaN", "Inf", " 1", "1,000", "0.001", "0.000001", "0.0000001", "1.35", "10", "10.000001",
	"999999999999.99", "1000000000000", "1000000000000.00", "1000000000000.01",
	"9223372036854775807", "99999999999999999999", "١٢", "1..2",
}

func FuzzParseAmount(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add(s)
	}
	max := big.NewRat(1_000_000_000_000, 1)
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAmount(s)
		want := amountPattern.MatchString(s) && decimalRat(t, s).Cmp(max) <= 0
		if want != (err == nil) {
			t.Fatalf("ParseAmount(%q) = %v, %v; the pattern and limit say accepted=%v", s, a, err, want)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseAmount(%q): %v does not match ErrInvalid", s, err)
			}
			return
		}
		if got := big.NewRat(a.Cents(), 100); got.Cmp(decimalRat(t, s)) != 0 {
			t.Fatalf("ParseAmount(%q) = %v, want %s", s, a, decimalRat(t, s).FloatString(2))
		}
		out := a.String()
		if !regexp.MustCompile(`^[0-9]+\.[0-9]{2}$`).MatchString(out) {
			t.Fatalf("ParseAmount(%q) formats as %q, not with exactly two decimals", s, out)
		}
		if back, err := ParseAmount(out); err != nil || back != a {
			t.Fatalf("%q -> %q -> %v, %v", s, out, back, err)
		}
	})
}

func FuzzParseRate(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add(s)
	}
	max := big.NewRat(10, 1)
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRate(s)
		want := ratePattern.MatchString(s) && decimalRat(t, s).Cmp(max) <= 0
		if want != (err == nil) {
			t.Fatalf("ParseRate(%q) = %v, %v; the pattern and limit say accepted=%v", s, r, err, want)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseRate(%q): %v does not match ErrInvalid", s, err)
			}
			return
		}
		if got := big.NewRat(r.Millionths(), 1_000_000); got.Cmp(decimalRat(t, s)) != 0 {
			t.Fatalf("ParseRate(%q) = %v, want %s", s, r, decimalRat(t, s).FloatString(6))
		}
		out := r.String()
		if !regexp.MustCompile(`^(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$`).MatchString(out) {
			t.Fatalf("ParseRate(%q) formats as %q, not normalized", s, out)
		}
		if back, err := ParseRate(out); err != nil || back != r {
			t.Fatalf("%q -> %q -> %v, %v", s, out, back, err)
		}
	})
}

// FuzzMulRate checks MulRate against rounding done another way: the exact
// product as a rational, its floor, and the remainder compared with one half.
func FuzzMulRate(f *testing.F) {
	f.Add(int64(5), int64(500000))
	f.Add(int64(15), int64(500000))
	f.Add(int64(-15), int64(500000))
	f.Add(int64(99999999999999), int64(9999999))
	f.Add(int64(100000000000000), int64(10000000))
	f.Add(int64(9223372036854775807), int64(10000000))
	f.Add(int64(-9223372036854775808), int64(1000000))
	f.Fuzz(func(t *testing.T, cents, millionths int64) {
		got, err := Amount(cents).MulRate(Rate(millionths))
		exact := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(cents), big.NewInt(millionths)), big.NewInt(1_000_000))
		want := halfEven(exact)
		if !want.IsInt64() {
			if !errors.Is(err, ErrOverflow) {
				t.Fatalf("%d x %d = %v, %v; want ErrOverflow", cents, millionths, got, err)
			}
			return
		}
		if err != nil || got.Cents() != want.Int64() {
			t.Fatalf("%d cents x %d millionths = %v, %v; want %d cents (exact %s)", cents, millionths, got.Cents(), err, want, exact.FloatString(8))
		}
	})
}

// halfEven rounds x to an integer, ties to even, through its floor.
func halfEven(x *big.Rat) *big.Int {
	floor := new(big.Int).Div(x.Num(), x.Denom()) // Euclidean: the floor for a positive denominator
	rest := new(big.Rat).Sub(x, new(big.Rat).SetInt(floor))
	switch rest.Cmp(big.NewRat(1, 2)) {
	case 1:
		return floor.Add(floor, big.NewInt(1))
	case 0:
		if floor.Bit(0) == 1 {
			return floor.Add(floor, big.NewInt(1))
		}
	}
	return floor
}

// decimalRat is s as a rational when it is digits with an optional
// fraction, and -1 otherwise (so it is never within a limit).
func decimalRat(t *testing.T, s string) *big.Rat {
	t.Helper()
	if !regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`).MatchString(s) {
		return big.NewRat(-1, 1)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("big.Rat cannot read %q", s)
	}
	return r
}
