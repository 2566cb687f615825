package lendingrules

import (
	"fmt"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lendingpipe/svc/internal/money"
)

// The lender matches (PRODUCT 13) rank a panel by each lender's box and
// by the organization's own record with the lender: applications
// submitted in the window, in the lead's amount band and industry when
// there are enough of them, else all of them.

// MatchWindow is how far back the record reaches: applications submitted
// at or after now - MatchWindow count.
const MatchWindow = 180 * 24 * time.Hour

// MinSimilar is how many similar applications make a record of their
// own; with fewer the record is all the lender's applications.
const MinSimilar = 5

// Amount bands: under 25k, 25k-50k, 50k-100k, 100k-250k, 250k-500k,
// 500k and over, each lower bound inclusive. bandFloors are the lower
// bounds of the bands after the first.
var bandFloors = []money.Amount{2_500_000, 5_000_000, 10_000_000, 25_000_000, 50_000_000}

// AmountBands is how many bands there are; bands are numbered from 0.
const AmountBands = 6

// AmountBand is the band a requested amount falls in, 0 to 5.
func AmountBand(a money.Amount) int {
	band := 0
	for _, floor := range bandFloors {
		if a >= floor {
			band++
		}
	}
	return band
}

// IndustryKey is what industries are compared by, ignoring case and the
// spaces around them: nil when the lead has none.
func IndustryKey(industry *string) *string {
	if industry == nil {
		return nil
	}
	k := strings.ToLower(strings.TrimSpace(*industry))
	if k == "" {
		return nil
	}
	return &k
}

// Basis says which applications a lender's record is of.
type Basis string

const (
	// BasisSimilar is the lender's applications in the lead's amount band
	// and industry: MinSimilar or more.
	BasisSimilar Basis = "similar"
	// BasisAll is all the lender's applications in the window.
	BasisAll Basis = "all"
	// BasisNone is a lender with no application in the window.
	BasisNone Basis = "none"
)

// Record tallies a lender's applications. Approved are those decided and
// not declined (approved, then maybe funded or withdrawn), as the lenders
// report counts them. Middle holds the middle one (an odd count) or two
// (an even count) of the decided ones' whole seconds from submission to
// decision, in order; it is empty when none is decided.
type Record struct {
	Sample, Approved, Declined, Funded int
	Middle                             []int
}

// MiddleOf is the middle one or two of the seconds (in any order): what a
// Record keeps of them for the median.
func MiddleOf(seconds []int) []int {
	n := len(seconds)
	if n == 0 {
		return nil
	}
	s := slices.Clone(seconds)
	slices.Sort(s)
	if n%2 == 1 {
		return []int{s[n/2]}
	}
	return []int{s[n/2-1], s[n/2]}
}

// ChooseBasis is the record a lender is ranked by: the similar
// applications when there are MinSimilar of them, else all of them, else
// none.
func ChooseBasis(similar, all Record) (Basis, Record) {
	switch {
	case similar.Sample >= MinSimilar:
		return BasisSimilar, similar
	case all.Sample > 0:
		return BasisAll, all
	}
	return BasisNone, Record{}
}

// Components are the parts of a score, as the matches show them.
type Components struct {
	// ApprovalRate is approved / (approved + declined); 0 when none is
	// decided.
	ApprovalRate money.Ratio
	// FundedShare is funded / approved; 0 when none is approved.
	FundedShare money.Ratio
	// MedianDaysToDecision is the median of the days from submission to
	// decision over the decided ones (the mean of the two middle ones for
	// an even count); nil when none is decided.
	MedianDaysToDecision *money.Days
	// SampleSize is how many applications the record holds.
	SampleSize int
}

// secondsPerDay and speedDays: the speed part of a score falls from 1 at
// an instant decision to 0 at a median of 30 days.
const (
	secondsPerDay = 24 * 60 * 60
	speedDays     = 30
)

// Score is 0.5 x approvalRate + 0.3 x fundedShare + 0.2 x max(0, 1 -
// medianDaysToDecision / 30), from the exact values, rounded half-even to
// four decimals; a record with nothing decided has approvalRate and
// speed 0. The components are rounded on their own (the ratios to four
// decimals, the days to two); the score never reads the rounded ones.
func (r Record) Score() (money.Ratio, Components, error) {
	c := Components{SampleSize: r.Sample}
	approval, funded := new(big.Rat), new(big.Rat)
	if d := r.Approved + r.Declined; d > 0 {
		approval.SetFrac64(int64(r.Approved), int64(d))
	}
	if r.Approved > 0 {
		funded.SetFrac64(int64(r.Funded), int64(r.Approved))
	}
	speed := new(big.Rat)
	if median := r.medianSeconds(); median != nil {
		days := new(big.Rat).Quo(median, big.NewRat(secondsPerDay, 1))
		d, err := money.DaysOfRat(days)
		if err != nil {
			return 0, c, err
		}
		c.MedianDaysToDecision = &d
		speed.Sub(big.NewRat(1, 1), new(big.Rat).Quo(days, big.NewRat(speedDays, 1)))
		if speed.Sign() < 0 {
			speed.SetInt64(0)
		}
	}
	var err error
	if c.ApprovalRate, err = money.RatioOfRat(approval); err != nil {
		return 0, c, err
	}
	if c.FundedShare, err = money.RatioOfRat(funded); err != nil {
		return 0, c, err
	}
	score := new(big.Rat).Mul(big.NewRat(5, 10), approval)
	score.Add(score, new(big.Rat).Mul(big.NewRat(3, 10), funded))
	score.Add(score, new(big.Rat).Mul(big.NewRat(2, 10), speed))
	s, err := money.RatioOfRat(score)
	return s, c, err
}

// medianSeconds is the median of the decided ones' seconds, exactly (a
// half second for an even count); nil when none is decided.
func (r Record) medianSeconds() *big.Rat {
	switch len(r.Middle) {
	case 1:
		return big.NewRat(int64(r.Middle[0]), 1)
	case 2:
		return big.NewRat(int64(r.Middle[0])+int64(r.Middle[1]), 2)
	}
	return nil
}

// MarshalGQL writes the basis as its GraphQL enum value.
func (b Basis) MarshalGQL(w io.Writer) { _, _ = io.WriteString(w, strconv.Quote(string(b))) }

// UnmarshalGQL reads a basis; only the three values are one.
func (b *Basis) UnmarshalGQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("a basis is a string, not %T", v)
	}
	switch Basis(s) {
	case BasisSimilar, BasisAll, BasisNone:
		*b = Basis(s)
		return nil
	}
	return fmt.Errorf("%q is not a basis: similar, all or none", s)
}
