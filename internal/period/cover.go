package period

// The rollups keep each sum by day, and again by calendar month and by
// calendar year, so a report reads a range from few rows: the whole years
// and months inside it, the days around them. A range's part of a year
// (or month) can also be read as the whole year less the parts outside
// the range: a year to date is its year's row less its months and days
// still to come, rows that do not exist yet. The sums are exact integers,
// so taking rows away is as exact as adding them.

// Grain is how many days a rollup row sums: one, a calendar month or a
// calendar year.
type Grain int

// Grains, finest first.
const (
	DayGrain Grain = iota
	MonthGrain
	YearGrain
)

// Block is a run of rollup rows of one grain, added to the sum (Sign 1) or
// taken away from it (Sign -1): the days, months or years numbered
// [Lo, Hi) (DayNumber, MonthNumber, YearNumber).
type Block struct {
	Grain  Grain
	Lo, Hi int
	Sign   int
}

// YearNumber is the number of the year holding the numbered day: the years
// since 1970.
func YearNumber(day int) int {
	y, _, _ := DayDate(day)
	return y - 1970
}

// FirstDay is the number of the first day of the grain's n-th period.
func (g Grain) FirstDay(n int) int {
	switch g {
	case MonthGrain:
		return MonthFirstDay(n)
	case YearGrain:
		return DayNumber(1970+n, 1, 1)
	}
	return n
}

// Start is the number of the first day of the grain's period holding the
// numbered day: the day itself, or its month's or year's first day.
func (g Grain) Start(day int) int { return g.FirstDay(g.number(day)) }

// number is the number of the grain's period holding the numbered day.
func (g Grain) number(day int) int {
	switch g {
	case MonthGrain:
		return MonthNumber(day)
	case YearGrain:
		return YearNumber(day)
	}
	return day
}

// Cover is the blocks whose signed sum is the days [first, last): rows of
// grains up to coarsest, as few as the calendar allows (each day, month
// or year read counts one). Among covers of equal size it adds rather than
// takes away.
func Cover(first, last int, coarsest Grain) []Block {
	return merge(cover(first, last, coarsest))
}

func cover(lo, hi int, g Grain) []Block {
	if lo >= hi {
		return nil
	}
	if g == DayGrain {
		return []Block{{DayGrain, lo, hi, 1}}
	}
	var out []Block
	for n := g.number(lo); g.FirstDay(n) < hi; n++ {
		start, end := g.FirstDay(n), g.FirstDay(n+1)
		a, b := max(lo, start), min(hi, end)
		if a == start && b == end {
			out = append(out, Block{g, n, n + 1, 1})
			continue
		}
		in := cover(a, b, g-1)
		outside := append(cover(start, a, g-1), cover(b, end, g-1)...)
		if size(in) <= 1+size(outside) {
			out = append(out, in...)
			continue
		}
		out = append(out, Block{g, n, n + 1, 1})
		for _, o := range outside {
			o.Sign = -o.Sign
			out = append(out, o)
		}
	}
	return out
}

func size(blocks []Block) int {
	n := 0
	for _, b := range blocks {
		n += b.Hi - b.Lo
	}
	return n
}

// merge joins adjacent blocks of one grain and sign.
func merge(blocks []Block) []Block {
	var out []Block
	for _, b := range blocks {
		if k := len(out) - 1; k >= 0 && out[k].Grain == b.Grain && out[k].Sign == b.Sign && out[k].Hi == b.Lo {
			out[k].Hi = b.Hi
			continue
		}
		out = append(out, b)
	}
	return out
}
