package analytics

import (
	"math/rand/v2"
	"testing"

	"github.com/lendingpipe/svc/ent/dealday"
	"github.com/lendingpipe/svc/ent/period"
)

// spans covers every whole day of a range exactly once, by month where a
// whole month fits and by day elsewhere.
func TestSpansCoverTheDaysOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := period.DayNumber(2025, 1, 1)
	for range 5000 {
		first := base + rng.IntN(800)
		last := first + 1 + rng.IntN(400)
		seen := map[int]int{}
		months := 0
		for _, s := range (wholeDays{first: first, last: last}).spans() {
			for n := s.lo; n < s.hi; n++ {
				if s.grain == dealday.GrainDay {
					seen[n]++
					continue
				}
				months++
				for d := period.MonthFirstDay(n); d < period.MonthFirstDay(n+1); d++ {
					seen[d]++
				}
			}
		}
		for d := first; d < last; d++ {
			if seen[d] != 1 {
				t.Fatalf("[%d, %d): day %d covered %d times", first, last, d, seen[d])
			}
		}
		if len(seen) != last-first {
			t.Fatalf("[%d, %d): %d days covered, want %d", first, last, len(seen), last-first)
		}
		if last-first >= 62 && months == 0 {
			t.Fatalf("[%d, %d): no whole month read by month", first, last)
		}
	}
}
