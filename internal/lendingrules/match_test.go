package lendingrules_test

import (
	"slices"
	"testing"

	"github.com/lendingpipe/svc/internal/lendingrules"
)

// The box check names each miss by field and lists the facts the lead
// lacks for the criteria the lender sets; Warnings are its messages.
func TestBoxCheck(t *testing.T) {
	cases := []struct {
		name            string
		change          func(b *lendingrules.Box, f *lendingrules.File)
		misses, unknown []string
	}{
		{"Fits", func(*lendingrules.Box, *lendingrules.File) {}, nil, nil},
		{"EveryMiss", func(_ *lendingrules.Box, f *lendingrules.File) {
			*f = lendingrules.File{Amount: amt("9000"), MonthlyRevenue: amt("1"), MonthsInBusiness: ptr(1),
				Industry: ptr(" cannabis"), Product: ptr("sba"), OpenApplication: true}
		}, []string{"amount", "monthlyRevenue", "industry", "product", "monthsInBusiness", "openApplication"}, nil},
		{"EveryFactUnknown", func(_ *lendingrules.Box, f *lendingrules.File) {
			*f = lendingrules.File{}
		}, nil, []string{"amount", "monthlyRevenue", "industry", "monthsInBusiness"}},
		{"UnknownWithoutCriteriaIsNothing", func(b *lendingrules.Box, f *lendingrules.File) {
			*b, *f = lendingrules.Box{}, lendingrules.File{}
		}, nil, nil},
		{"OnlyMaxAmountStillUnknown", func(b *lendingrules.Box, f *lendingrules.File) {
			b.MinAmount, f.Amount = nil, nil
		}, nil, []string{"amount"}},
		{"ProductNotGivenIsNotUnknown", func(_ *lendingrules.Box, f *lendingrules.File) { f.Product = nil }, nil, nil},
		{"OpenApplicationAlone", func(_ *lendingrules.Box, f *lendingrules.File) { f.OpenApplication = true }, []string{"openApplication"}, nil},
		{"MissAndUnknown", func(_ *lendingrules.Box, f *lendingrules.File) {
			f.Amount, f.MonthlyRevenue = amt("50000.01"), nil
		}, []string{"amount"}, []string{"monthlyRevenue"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, f := box(), file()
			c.change(&b, &f)
			got := b.Check(f)
			fields := []string{}
			for _, m := range got.Misses {
				if m.Message == "" {
					t.Errorf("miss %s has no message", m.Field)
				}
				fields = append(fields, m.Field)
			}
			if !slices.Equal(fields, append([]string{}, c.misses...)) || !slices.Equal(got.Unknown, append([]string{}, c.unknown...)) {
				t.Fatalf("Check = misses %q unknown %q, want %q and %q", fields, got.Unknown, c.misses, c.unknown)
			}
			if got.Eligible() != (len(c.misses) == 0) {
				t.Errorf("Eligible = %v with misses %q", got.Eligible(), fields)
			}
			w := b.Warnings(f)
			if len(w) != len(got.Misses) {
				t.Fatalf("Warnings = %q, want the %d misses' messages", w, len(got.Misses))
			}
			for i, m := range got.Misses {
				if w[i] != m.Message {
					t.Errorf("warning %d = %q, want %q", i, w[i], m.Message)
				}
			}
		})
	}
}

func TestAmountBand(t *testing.T) {
	for s, want := range map[string]int{"0.01": 0, "24999.99": 0, "25000": 1, "49999.99": 1, "50000": 2, "99999.99": 2,
		"100000": 3, "249999.99": 3, "250000": 4, "499999.99": 4, "500000": 5, "1000000000000": 5} {
		if got := lendingrules.AmountBand(*amt(s)); got != want {
			t.Errorf("AmountBand(%s) = %d, want %d", s, got, want)
		}
	}
}

func TestIndustryKey(t *testing.T) {
	for in, want := range map[string]string{" Trucking ": "trucking", "DENTAL": "dental", "   ": "", "": ""} {
		got := lendingrules.IndustryKey(&in)
		if want == "" && got != nil || want != "" && (got == nil || *got != want) {
			t.Errorf("IndustryKey(%q) = %v, want %q", in, got, want)
		}
	}
	if lendingrules.IndustryKey(nil) != nil {
		t.Error("IndustryKey(nil) is not nil")
	}
}

// Scores worked by hand: the rounding is half-even on the exact value.
func TestRecordScore(t *testing.T) {
	day := 86400
	cases := []struct {
		name                          string
		r                             lendingrules.Record
		score, approval, funded, days string
	}{
		// 2/3, 1/2, median 2.5 days: 1/3 + 3/20 + 0.2 x 11/12 = 0.6666...
		{"Mixed", lendingrules.Record{Sample: 7, Approved: 4, Declined: 2, Funded: 2,
			Middle: lendingrules.MiddleOf([]int{1 * day, 2 * day, 3 * day, 4 * day, 2 * day, 3 * day})}, "0.6667", "0.6667", "0.5000", "2.50"},
		{"NothingDecided", lendingrules.Record{Sample: 3}, "0.0000", "0.0000", "0.0000", ""},
		{"SlowerThan30DaysSpeedsNothing", lendingrules.Record{Sample: 1, Approved: 1, Middle: []int{45 * day}}, "0.5000", "1.0000", "0.0000", "45.00"},
		// 0.5 + 0.3 + 0.2 x (1 - 0.75/30) = 0.995 exactly: stays.
		{"Exact", lendingrules.Record{Sample: 1, Approved: 1, Funded: 1, Middle: []int{day * 3 / 4}}, "0.9950", "1.0000", "1.0000", "0.75"},
		// 1/30 day median: 0.2 x (1 - 1/900) = 0.19977.. ; half-even days 0.03.
		{"SmallMedian", lendingrules.Record{Sample: 2, Declined: 2, Middle: []int{2880, 2880}}, "0.1998", "0.0000", "0.0000", "0.03"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			score, comps, err := c.r.Score()
			if err != nil {
				t.Fatal(err)
			}
			days := ""
			if comps.MedianDaysToDecision != nil {
				days = comps.MedianDaysToDecision.String()
			}
			if score.String() != c.score || comps.ApprovalRate.String() != c.approval || comps.FundedShare.String() != c.funded ||
				days != c.days || comps.SampleSize != c.r.Sample {
				t.Fatalf("Score = %s (%s, %s, %q, %d), want %s (%s, %s, %q)", score, comps.ApprovalRate, comps.FundedShare, days,
					comps.SampleSize, c.score, c.approval, c.funded, c.days)
			}
		})
	}
}

func TestMiddleOf(t *testing.T) {
	for _, c := range []struct{ in, want []int }{{nil, nil}, {[]int{5}, []int{5}}, {[]int{9, 1}, []int{1, 9}},
		{[]int{3, 1, 2}, []int{2}}, {[]int{4, 1, 3, 2}, []int{2, 3}}} {
		if got := lendingrules.MiddleOf(c.in); !slices.Equal(got, c.want) {
			t.Errorf("MiddleOf(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestChooseBasis(t *testing.T) {
	four, five := lendingrules.Record{Sample: 4}, lendingrules.Record{Sample: 5}
	all := lendingrules.Record{Sample: 9}
	for _, c := range []struct {
		similar, all lendingrules.Record
		want         lendingrules.Basis
		sample       int
	}{{five, all, lendingrules.BasisSimilar, 5}, {four, all, lendingrules.BasisAll, 9}, {lendingrules.Record{}, lendingrules.Record{}, lendingrules.BasisNone, 0}} {
		b, r := lendingrules.ChooseBasis(c.similar, c.all)
		if b != c.want || r.Sample != c.sample {
			t.Errorf("ChooseBasis(%d, %d) = %s of %d, want %s of %d", c.similar.Sample, c.all.Sample, b, r.Sample, c.want, c.sample)
		}
	}
}
