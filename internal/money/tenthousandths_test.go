package money

import (
	"math/big"
	"testing"
)

func TestTenThousandths(t *testing.T) {
	for _, c := range []struct {
		in, want string
	}{
		{"0", "0"}, {"1", "10000"}, {"1.5", "15000"}, {"25000.00", "250000000"}, {"0.0001", "1"},
		{"007.50", "75000"},
		// The lead field's largest value does not fit an int64 of
		// ten-thousandths (9223372036854775807).
		{"999999999999999.9999", "9999999999999999999"},
	} {
		got, err := TenThousandths(c.in)
		if err != nil || got.String() != c.want {
			t.Errorf("TenThousandths(%q) = %v, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", ".", "1.", ".5", "1.23456", "-1", "1e5", " 1", "1,000"} {
		if v, err := TenThousandths(bad); err == nil {
			t.Errorf("TenThousandths(%q) = %v; want an error", bad, v)
		}
	}
}

func TestRoundTenThousandthsHalfEvenOnce(t *testing.T) {
	for _, c := range []struct {
		in    string
		want  Amount
		exact bool
	}{
		{"0", 0, true},
		{"12345650", 123456, true}, // 1234.5650 -> 1234.56 (tie, even)
		{"12345750", 123458, true}, // 1234.5750 -> 1234.58 (tie, even)
		{"12345651", 123457, true}, // above the tie
		{"-150", -2, true},         // -0.0150 -> -0.02
		{"922337203685477580700", MaxAmountValue, true},
		{"922337203685477580650", MaxAmountValue - 1, true}, // a tie, to the even …06
		{"922337203685477580750", MaxAmountValue, false},    // a tie, to …08: beyond
		{"922337203685477580800", MaxAmountValue, false},
		{"-922337203685477581000", -MaxAmountValue, false},
	} {
		v, _ := new(big.Int).SetString(c.in, 10)
		got, exact := RoundTenThousandths(v)
		if got != c.want || exact != c.exact {
			t.Errorf("RoundTenThousandths(%s) = %v, %v; want %v, %v", c.in, got, exact, c.want, c.exact)
		}
	}
}
