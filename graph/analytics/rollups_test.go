package analytics

import (
	"math/rand/v2"
	"testing"

	"github.com/lendingpipe/svc/ent/period"
)

// spans count every whole day of a range once, and no other day, by year
// or month where one fits (or where one less its days outside is fewer
// rows) and by day elsewhere.
func TestSpansCoverTheDaysOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := period.DayNumber(2025, 1, 1)
	for range 5000 {
		first := base + rng.IntN(800)
		last := first + 1 + rng.IntN(400)
		for _, coarsest := range []period.Grain{period.MonthGrain, period.YearGrain} {
			seen := map[int]int{}
			coarse := 0
			for _, s := range (wholeDays{first: first, last: last}).spans(coarsest) {
				for n := s.lo; n < s.hi; n++ {
					if s.grain != period.DayGrain {
						coarse++
					}
					for d := s.firstDay(n); d < s.grain.FirstDay(n+1); d++ {
						seen[d] += s.sign
					}
				}
			}
			for d, n := range seen {
				want := 0
				if d >= first && d < last {
					want = 1
				}
				if n != want {
					t.Fatalf("[%d, %d) up to %d: day %d counted %d times, want %d", first, last, coarsest, d, n, want)
				}
			}
			for d := first; d < last; d++ {
				if seen[d] != 1 {
					t.Fatalf("[%d, %d) up to %d: day %d counted %d times", first, last, coarsest, d, seen[d])
				}
			}
			if last-first >= 62 && coarse == 0 {
				t.Fatalf("[%d, %d): no whole month read by month", first, last)
			}
		}
	}
}
