package lendingrules_test

import (
	"strings"
	"testing"

	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/money"
)

func amt(s string) *money.Amount {
	a, err := money.ParseAmount(s)
	if err != nil {
		panic(err)
	}
	return &a
}

func ptr[T any](v T) *T { return &v }

// box is a lender that sets every criterion.
func box() lendingrules.Box {
	return lendingrules.Box{
		MinAmount: amt("10000"), MaxAmount: amt("50000"), MinMonthlyRevenue: amt("20000"),
		MinMonthsInBusiness: ptr(12), ExcludedIndustries: []string{"Cannabis", " Firearms "},
		Products: []string{"mca", "term_loan"},
	}
}

// file is a lead that fits box in every respect.
func file() lendingrules.File {
	return lendingrules.File{Amount: amt("25000"), MonthlyRevenue: amt("30000"), MonthsInBusiness: ptr(24),
		Industry: ptr("Trucking"), Product: ptr("mca")}
}

func TestBoxWarnings(t *testing.T) {
	cases := []struct {
		name   string
		change func(b *lendingrules.Box, f *lendingrules.File)
		want   []string // a word of each warning, in order; none for a fit
	}{
		{"Fits", func(*lendingrules.Box, *lendingrules.File) {}, nil},
		{"BelowMinAmount", func(_ *lendingrules.Box, f *lendingrules.File) { f.Amount = amt("9999.99") }, []string{"below the lender's minAmount 10000.00"}},
		{"AtMinAmount", func(_ *lendingrules.Box, f *lendingrules.File) { f.Amount = amt("10000") }, nil},
		{"AboveMaxAmount", func(_ *lendingrules.Box, f *lendingrules.File) { f.Amount = amt("50000.01") }, []string{"above the lender's maxAmount 50000.00"}},
		{"AtMaxAmount", func(_ *lendingrules.Box, f *lendingrules.File) { f.Amount = amt("50000") }, nil},
		{"LowRevenue", func(_ *lendingrules.Box, f *lendingrules.File) { f.MonthlyRevenue = amt("19999.99") }, []string{"monthlyRevenue 19999.99 is below"}},
		{"RevenueAtMinimum", func(_ *lendingrules.Box, f *lendingrules.File) { f.MonthlyRevenue = amt("20000") }, nil},
		{"ExcludedIndustry", func(_ *lendingrules.Box, f *lendingrules.File) { f.Industry = ptr("Cannabis") }, []string{`industry "Cannabis" is excluded`}},
		{"ExcludedIndustryIgnoringCase", func(_ *lendingrules.Box, f *lendingrules.File) { f.Industry = ptr("cANNABIS") }, []string{`industry "cANNABIS" is excluded`}},
		{"ExcludedIndustryIgnoringSpace", func(_ *lendingrules.Box, f *lendingrules.File) { f.Industry = ptr("firearms ") }, []string{`"firearms " is excluded`}},
		{"IndustryContainingAnExcludedOne", func(_ *lendingrules.Box, f *lendingrules.File) { f.Industry = ptr("Cannabis Retail") }, nil},
		{"ProductNotOffered", func(_ *lendingrules.Box, f *lendingrules.File) { f.Product = ptr("sba") }, []string{"does not offer the product sba"}},
		{"FewMonthsInBusiness", func(_ *lendingrules.Box, f *lendingrules.File) { f.MonthsInBusiness = ptr(11) }, []string{"monthsInBusiness 11 is below the lender's minMonthsInBusiness 12"}},
		{"MonthsAtMinimum", func(_ *lendingrules.Box, f *lendingrules.File) { f.MonthsInBusiness = ptr(12) }, nil},
		{"UnknownsMissNothing", func(_ *lendingrules.Box, f *lendingrules.File) {
			f.MonthlyRevenue, f.MonthsInBusiness, f.Industry, f.Product = nil, nil, nil, nil
		}, nil},
		{"NoCriteriaMissNothing", func(b *lendingrules.Box, f *lendingrules.File) {
			*b = lendingrules.Box{}
			f.Amount, f.MonthlyRevenue, f.MonthsInBusiness, f.Industry, f.Product = amt("1"), amt("0"), ptr(0), ptr("Cannabis"), ptr("sba")
		}, nil},
		{"EveryMissNamed", func(_ *lendingrules.Box, f *lendingrules.File) {
			*f = lendingrules.File{Amount: amt("60000"), MonthlyRevenue: amt("100"), MonthsInBusiness: ptr(3),
				Industry: ptr("FIREARMS"), Product: ptr("equipment")}
		}, []string{"maxAmount", "minMonthlyRevenue", "excluded", "equipment", "minMonthsInBusiness"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, f := box(), file()
			c.change(&b, &f)
			got := b.Warnings(f)
			if got == nil {
				t.Fatal("Warnings = nil, want a list (empty when nothing misses)")
			}
			if len(got) != len(c.want) {
				t.Fatalf("Warnings = %q, want %d naming %q", got, len(c.want), c.want)
			}
			for i, w := range c.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("warning %d = %q, want it to say %q", i, got[i], w)
				}
			}
		})
	}
}
