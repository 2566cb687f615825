package lendingrules

import "time"

// RenewalEligibleAt is when a deal funded at fundedAt on a term of
// termMonths may renew (PRODUCT 12.2): half the term, rounded up, in
// calendar months after funding. A day the later month lacks is clamped
// to that month's last day (funded Jan 31 plus one month is Feb 28, or 29
// in a leap year), where time.AddDate would spill into March. The clock
// time and the location are fundedAt's.
func RenewalEligibleAt(fundedAt time.Time, termMonths int) time.Time {
	months := (termMonths + 1) / 2
	if termMonths <= 0 {
		months = 0
	}
	y, m, d := fundedAt.Date()
	first := time.Date(y, m+time.Month(months), 1, 0, 0, 0, 0, fundedAt.Location())
	ty, tm, _ := first.Date()
	last := daysIn(ty, tm)
	if d > last {
		d = last
	}
	h, mi, s := fundedAt.Clock()
	return time.Date(ty, tm, d, h, mi, s, fundedAt.Nanosecond(), fundedAt.Location())
}

// daysIn is the number of days of month m of year y.
func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
