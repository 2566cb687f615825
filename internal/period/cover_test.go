package period

import (
	"math/rand/v2"
	"testing"
	"time"
)

// A cover's signed blocks count each day of the range once and no other
// day, whatever the range; a range of two months or more is read by month
// or year, where those grains are kept.
func TestCoverCountsEachDayOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lo0 := DayNumber(2023, time.November, 20)
	for range 3000 {
		first := lo0 + rng.IntN(800)
		last := first + 1 + rng.IntN(500)
		for _, g := range []Grain{DayGrain, MonthGrain, YearGrain} {
			counts := map[int]int{}
			coarse := false
			for _, b := range Cover(first, last, g) {
				if b.Grain > g {
					t.Fatalf("[%d, %d) up to %d: a block of grain %d", first, last, g, b.Grain)
				}
				coarse = coarse || b.Grain != DayGrain
				for d := b.Grain.FirstDay(b.Lo); d < b.Grain.FirstDay(b.Hi); d++ {
					counts[d] += b.Sign
				}
			}
			for d, n := range counts {
				want := 0
				if d >= first && d < last {
					want = 1
				}
				if n != want {
					t.Fatalf("[%d, %d) up to %d: day %d counted %d times, want %d", first, last, g, d, n, want)
				}
			}
			for d := first; d < last; d++ {
				if counts[d] != 1 {
					t.Fatalf("[%d, %d) up to %d: day %d counted %d times", first, last, g, d, counts[d])
				}
			}
			if g != DayGrain && last-first >= 62 && !coarse {
				t.Fatalf("[%d, %d) up to %d: no whole month or year read", first, last, g)
			}
		}
	}
}

// A year to date is its year less the days and months still to come.
func TestCoverOfTheLastYear(t *testing.T) {
	first, last := DayNumber(2025, time.November, 25), DayNumber(2026, time.November, 25)
	got := Cover(first, last, YearGrain)
	want := []Block{
		{DayGrain, first, DayNumber(2025, time.December, 1), 1},
		{MonthGrain, MonthNumber(DayNumber(2025, time.December, 1)), MonthNumber(DayNumber(2026, time.January, 1)), 1},
		{YearGrain, 2026 - 1970, 2027 - 1970, 1},
		{DayGrain, last, DayNumber(2026, time.December, 1), -1},
		{MonthGrain, MonthNumber(DayNumber(2026, time.December, 1)), MonthNumber(DayNumber(2027, time.January, 1)), -1},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("block %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, b := range Cover(first, last, MonthGrain) {
		if b.Grain == YearGrain {
			t.Fatalf("a year up to months: %+v", b)
		}
	}
}

func TestGrainStart(t *testing.T) {
	day := DayNumber(2024, time.February, 29)
	for _, c := range []struct {
		g    Grain
		want int
	}{{DayGrain, day}, {MonthGrain, DayNumber(2024, time.February, 1)}, {YearGrain, DayNumber(2024, time.January, 1)}} {
		if got := c.g.Start(day); got != c.want {
			t.Errorf("grain %d: start %d, want %d", c.g, got, c.want)
		}
	}
}
