package money

import "testing"

func TestRatioRoundsHalfEven(t *testing.T) {
	for _, c := range []struct {
		num, den int64
		want     string
	}{
		{5, 16, "0.3125"},
		{1, 3, "0.3333"},
		{2, 3, "0.6667"},
		{1, 20000, "0.0000"}, // 0.00005: the tie goes to the even 0
		{3, 20000, "0.0002"}, // 0.00015: to the even 2
		{7, 0, "0.0000"},
		{0, 9, "0.0000"},
		{9, 9, "1.0000"},
		{12, 5, "2.4000"},
	} {
		if got := RatioOf(c.num, c.den).String(); got != c.want {
			t.Errorf("RatioOf(%d, %d) = %s, want %s", c.num, c.den, got, c.want)
		}
	}
}
