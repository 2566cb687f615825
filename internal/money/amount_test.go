package money

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParseAmountAccepts(t *testing.T) {
	cases := []struct {
		in    string
		cents int64
		out   string
	}{
		{"0", 0, "0.00"},
		{"0.0", 0, "0.00"},
		{"0.00", 0, "0.00"},
		{"0.01", 1, "0.01"},
		{"0.1", 10, "0.10"},
		{"1", 100, "1.00"},
		{"25000.00", 2500000, "25000.00"},
		{"1234.5", 123450, "1234.50"},
		{"007.50", 750, "7.50"}, // leading zeros: the API's pattern allows them
		{"00000000000000000000000000000001", 100, "1.00"},
		{"999999999999.99", 99999999999999, "999999999999.99"},
		{"1000000000000", 100000000000000, "1000000000000.00"}, // the maximum is inclusive
		{"1000000000000.00", 100000000000000, "1000000000000.00"},
	}
	for _, c := range cases {
		a, err := ParseAmount(c.in)
		if err != nil {
			t.Errorf("ParseAmount(%q): %v", c.in, err)
			continue
		}
		if a.Cents() != c.cents || a.String() != c.out {
			t.Errorf("ParseAmount(%q) = %d cents %q, want %d cents %q", c.in, a.Cents(), a, c.cents, c.out)
		}
		if b, err := ParseAmount(a.String()); err != nil || b != a {
			t.Errorf("ParseAmount(%q) = %v, %v; want %v back", a.String(), b, err, a)
		}
	}
}

func TestParseAmountRefuses(t *testing.T) {
	form, tooLarge := errAmountForm.Error(), errAmountRange.Error()
	cases := map[string]string{
		"":                                 form,
		" ":                                form,
		".":                                form,
		".5":                               form,
		"5.":                               form,
		"-1":                               form,
		"-0":                               form,
		"+1":                               form,
		"1e3":                              form,
		"1E3":                              form,
		"0x10":                             form,
		" 1":                               form,
		"1 ":                               form,
		"1\n":                              form,
		"1,000.00":                         form,
		"1_000":                            form,
		"1.000":                            form,
		"0.001":                            form,
		"1.2.3":                            form,
		"1..2":                             form,
		"NaN":                              form,
		"Inf":                              form,
		"Infinity":                         form,
		"١٢":                               form, // Arabic-Indic digits are digits to Unicode, not to the API
		"１２":                               form, // fullwidth
		"12€":                              form,
		"1000000000000.01":                 tooLarge,
		"1000000000001":                    tooLarge,
		"9223372036854775807":              tooLarge,
		"99999999999999999999":             tooLarge, // far beyond int64: refused, not wrapped around
		"00001000000000000.01":             tooLarge,
		strings.Repeat("9", 10000) + ".99": tooLarge,
	}
	for in, want := range cases {
		a, err := ParseAmount(in)
		if err == nil {
			t.Errorf("ParseAmount(%q) = %v, want an error", in, a)
			continue
		}
		if !errors.Is(err, ErrInvalid) || err.Error() != want {
			t.Errorf("ParseAmount(%q): %q (ErrInvalid: %v), want %q", in, err, errors.Is(err, ErrInvalid), want)
		}
	}
}

func TestAmountString(t *testing.T) {
	cases := map[Amount]string{
		0:             "0.00",
		1:             "0.01",
		10:            "0.10",
		100:           "1.00",
		123450:        "1234.50",
		-1:            "-0.01",
		-1250:         "-12.50",
		MaxAmount:     "1000000000000.00",
		math.MaxInt64: "92233720368547758.07",
		math.MinInt64: "-92233720368547758.08",
	}
	for a, want := range cases {
		if got := a.String(); got != want {
			t.Errorf("Amount(%d).String() = %q, want %q", int64(a), got, want)
		}
	}
}

func TestAmountPlusMinus(t *testing.T) {
	if s, err := FromCents(150).Plus(FromCents(-200)); err != nil || s != -50 {
		t.Errorf("1.50 + -2.00 = %v, %v", s, err)
	}
	if d, err := FromCents(150).Minus(FromCents(200)); err != nil || d != -50 {
		t.Errorf("1.50 - 2.00 = %v, %v", d, err)
	}
	overflows := []struct {
		name string
		f    func() (Amount, error)
	}{
		{"max + 0.01", func() (Amount, error) { return Amount(math.MaxInt64).Plus(1) }},
		{"min + -0.01", func() (Amount, error) { return Amount(math.MinInt64).Plus(-1) }},
		{"min - 0.01", func() (Amount, error) { return Amount(math.MinInt64).Minus(1) }},
		{"max - -0.01", func() (Amount, error) { return Amount(math.MaxInt64).Minus(-1) }},
		{"0 - min", func() (Amount, error) { return Amount(0).Minus(math.MinInt64) }},
	}
	for _, o := range overflows {
		if v, err := o.f(); !errors.Is(err, ErrOverflow) {
			t.Errorf("%s = %v, %v; want ErrOverflow", o.name, v, err)
		}
	}
	if s, err := Amount(math.MaxInt64).Plus(math.MinInt64); err != nil || s != -1 {
		t.Errorf("max + min = %v, %v; want -0.01", s, err)
	}
}

func TestMulRateRoundsHalfEvenToTheCent(t *testing.T) {
	cases := []struct {
		amount, rate, want string
	}{
		{"0.05", "0.5", "0.02"},      // 0.025: a tie, to the even cent
		{"0.15", "0.5", "0.08"},      // 0.075: a tie, to the even cent
		{"0.01", "0.5", "0.00"},      // 0.005
		{"0.03", "0.5", "0.02"},      // 0.015
		{"0.05", "0.500001", "0.03"}, // 0.02500005: above the tie
		{"0.05", "0.499999", "0.02"}, // 0.02499995: below the tie
		{"0.07", "0.5", "0.04"},      // 0.035: a tie, up to the even cent
		{"25000.00", "1.35", "33750.00"},
		{"25000.00", "0.089", "2225.00"},
		{"12345.67", "0.089", "1098.76"}, // 1098.76463
		{"100.10", "0.125", "12.51"},     // 12.5125
		{"100.20", "0.125", "12.52"},     // 12.525: a tie, to the even cent
		{"100.60", "0.125", "12.58"},     // 12.575: a tie, up to the even cent
		{"123.45", "0", "0.00"},
		{"123.45", "1", "123.45"},
		{"1000000000000.00", "10", "10000000000000.00"}, // beyond int64 in millionths of cents: exact
		{"1000000000000.00", "9.999999", "9999999000000.00"},
		{"1000000000000.00", "1.000001", "1000001000000.00"},
		{"999999999999.99", "0.000001", "1000000.00"},       // 999999.99999999
		{"999999999999.99", "1.35", "1349999999999.99"},     // 1349999999999.9865
		{"999999999999.99", "9.999999", "9999998999999.90"}, // 9999998999999.90000001
		{"999999999999.99", "0.000005", "5000000.00"},       // 4999999.99999995
		{"0.01", "0.000001", "0.00"},
	}
	for _, c := range cases {
		a, r := mustAmount(t, c.amount), mustRate(t, c.rate)
		got, err := a.MulRate(r)
		if err != nil || got.String() != c.want {
			t.Errorf("%s x %s = %v, %v; want %s", c.amount, c.rate, got, err, c.want)
		}
		// Half-even is symmetric: a negative amount rounds as its magnitude does.
		neg, err := (-a).MulRate(r)
		if err != nil || neg != -got {
			t.Errorf("-%s x %s = %v, %v; want %v", c.amount, c.rate, neg, err, -got)
		}
	}
	if v, err := Amount(math.MaxInt64).MulRate(MaxRate); !errors.Is(err, ErrOverflow) {
		t.Errorf("max int64 cents x 10 = %v, %v; want ErrOverflow", v, err)
	}
	if v, err := Amount(math.MaxInt64).MulRate(rateUnit); err != nil || v != math.MaxInt64 {
		t.Errorf("max int64 cents x 1 = %v, %v", v, err)
	}
}

// MulRateFrac rounds once, from the exact a×r×num/den.
func TestMulRateFracRoundsOnceHalfEven(t *testing.T) {
	cases := []struct {
		amount, rate string
		num, den     int64
		want         string
	}{
		{"10000.00", "0.12", 12, 12, "1200.00"},
		{"10000.00", "0.18", 6, 12, "900.00"},
		{"1.00", "0.15", 1, 12, "0.01"},         // 0.0125
		{"3.00", "0.1", 1, 12, "0.02"},          // 0.025: a tie, to the even cent
		{"9.00", "0.1", 1, 12, "0.08"},          // 0.075: a tie, up to the even cent
		{"12345.67", "0.189", 7, 12, "1361.11"}, // 1361.1101175
		{"0.07", "1", 7, 14, "0.04"},            // 0.035: a tie, up to the even cent
		{"1000000000000.00", "10", 600, 12, "500000000000000.00"},
		{"123.45", "0", 600, 12, "0.00"},
	}
	for _, c := range cases {
		a, r := mustAmount(t, c.amount), mustRate(t, c.rate)
		got, err := a.MulRateFrac(r, c.num, c.den)
		if err != nil || got.String() != c.want {
			t.Errorf("%s x %s x %d/%d = %v, %v; want %s", c.amount, c.rate, c.num, c.den, got, err, c.want)
		}
	}
	if _, err := Amount(100).MulRateFrac(rateUnit, 1, 0); err == nil {
		t.Error("a zero denominator returned no error")
	}
	if v, err := Amount(math.MaxInt64).MulRateFrac(MaxRate, 600, 12); !errors.Is(err, ErrOverflow) {
		t.Errorf("max int64 cents x 10 x 50 = %v, %v; want ErrOverflow", v, err)
	}
}

func TestDivRoundsHalfEvenToTheCent(t *testing.T) {
	cases := []struct {
		amount Amount
		n      int64
		want   Amount
	}{
		{100, 3, 33}, // 33.33…
		{200, 3, 67}, // 66.66…
		{5, 2, 2},    // 2.5: a tie, to the even cent
		{15, 2, 8},   // 7.5: a tie, up to the even cent
		{-5, 2, -2},  // symmetric
		{-15, 2, -8},
		{5, -2, -2},
		{10, 4, 2}, // 2.5
		{30, 4, 8}, // 7.5
		{0, 7, 0},
		{math.MaxInt64, 1, math.MaxInt64},
		{math.MaxInt64, 2, 4611686018427387904}, // …903.5: a tie, up to the even cent
	}
	for _, c := range cases {
		if got, err := c.amount.Div(c.n); err != nil || got != c.want {
			t.Errorf("%v / %d = %v, %v; want %v", c.amount, c.n, got, err, c.want)
		}
	}
	if _, err := Amount(100).Div(0); err == nil {
		t.Error("dividing by zero returned no error")
	}
	if v, err := Amount(math.MinInt64).Div(-1); !errors.Is(err, ErrOverflow) {
		t.Errorf("min int64 cents / -1 = %v, %v; want ErrOverflow", v, err)
	}
}

func TestAmountJSON(t *testing.T) {
	type body struct {
		Amount   Amount  `json:"amount"`
		Optional *Amount `json:"optional"`
		Absent   *Amount `json:"absent,omitempty"`
	}
	max := MaxAmount
	in := body{Amount: 2500000, Optional: &max}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"amount":"25000.00","optional":"1000000000000.00"}`; string(b) != want {
		t.Fatalf("marshalled %s, want %s", b, want)
	}
	var out body
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.Amount != in.Amount || out.Optional == nil || *out.Optional != max || out.Absent != nil {
		t.Fatalf("round trip: %+v, want %+v", out, in)
	}

	var null body
	null.Amount = 7
	if err := json.Unmarshal([]byte(`{"amount":null,"optional":null}`), &null); err != nil || null.Amount != 7 || null.Optional != nil {
		t.Errorf("null: %+v, %v; want the amount unchanged and the pointer nil", null, err)
	}
	var escaped body
	if err := json.Unmarshal([]byte(`{"amount":"\u0031\u0032.5"}`), &escaped); err != nil || escaped.Amount != 1250 {
		t.Errorf(`"\u0031\u0032.5" = %v, %v; want 12.50 (JSON escapes are the string's content)`, escaped.Amount, err)
	}

	refused := map[string]string{
		`{"amount":25000}`:              errAmountType.Error(), // numbers are refused, whatever their value
		`{"amount":25000.00}`:           errAmountType.Error(),
		`{"amount":true}`:               errAmountType.Error(),
		`{"amount":["1"]}`:              errAmountType.Error(),
		`{"amount":"25,000"}`:           errAmountForm.Error(),
		`{"amount":"1e3"}`:              errAmountForm.Error(),
		`{"amount":"1000000000000.01"}`: errAmountRange.Error(),
	}
	for doc, want := range refused {
		var v body
		err := json.Unmarshal([]byte(doc), &v)
		if !errors.Is(err, ErrInvalid) || err.Error() != want {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
}

func TestAmountGQL(t *testing.T) {
	var buf bytes.Buffer
	Amount(123450).MarshalGQL(&buf)
	if buf.String() != `"1234.50"` {
		t.Errorf("MarshalGQL wrote %s", buf.String())
	}
	var a Amount
	if err := a.UnmarshalGQL("1234.5"); err != nil || a != 123450 {
		t.Errorf(`UnmarshalGQL("1234.5") = %v, %v`, a, err)
	}
	var back Amount
	if err := back.UnmarshalGQL(strings.Trim(buf.String(), `"`)); err != nil || back != 123450 {
		t.Errorf("round trip = %v, %v", back, err)
	}
	// gqlgen hands over Int and Float literals and JSON variables as these.
	for _, v := range []any{int64(25000), 25000, 25000.5, json.Number("25000.00"), nil, true} {
		a := Amount(7)
		err := a.UnmarshalGQL(v)
		if !errors.Is(err, ErrInvalid) || err.Error() != errAmountType.Error() || a != 7 {
			t.Errorf("UnmarshalGQL(%T %v) = %v, %v; want %q and the amount unchanged", v, v, a, err, errAmountType)
		}
	}
	if err := a.UnmarshalGQL("-1.00"); !errors.Is(err, ErrInvalid) || err.Error() != errAmountForm.Error() {
		t.Errorf(`UnmarshalGQL("-1.00"): %v`, err)
	}
}

func mustAmount(t *testing.T, s string) Amount {
	t.Helper()
	a, err := ParseAmount(s)
	if err != nil {
		t.Fatalf("ParseAmount(%q): %v", s, err)
	}
	return a
}

func mustRate(t *testing.T, s string) Rate {
	t.Helper()
	r, err := ParseRate(s)
	if err != nil {
		t.Fatalf("ParseRate(%q): %v", s, err)
	}
	return r
}
