// Package period turns a report's range parameters into instants and
// buckets: from and to as dates (whole days in the report's time zone) or
// date-times (instants), the IANA time zone, and the series interval. Days
// are cut at local midnight, so a daylight-saving day is 23 or 25 hours
// long (where a change skips midnight, the day begins when it ends); weeks
// start on Monday (ISO); months on the 1st.
//
// A leaf: it imports only internal/apperr.
package period

import (
	"slices"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // IANA zones on hosts without a zoneinfo database

	"github.com/lendingpipe/svc/internal/apperr"
)

// Intervals a series may be cut by.
const (
	Day   = "day"
	Week  = "week"
	Month = "month"
)

// Intervals lists them in the order the docs present them.
var Intervals = []string{Day, Week, Month}

// Bounds of a range.
const (
	MaxDays     = 366
	DefaultDays = 30
)

// DateLayout is how a date is written: 2026-11-01.
const DateLayout = "2006-01-02"

// Range is a report's span: instants [Start, End), in UTC as the store
// compares them, and the zone its days are cut in.
type Range struct {
	Start, End time.Time
	Loc        *time.Location
}

// Params are a report's range parameters as the caller sent them; empty
// strings are absent.
type Params struct {
	From, To, TimeZone string
}

// Zone reads an IANA time zone name; empty is fallback.
func Zone(name, fallback string) (*time.Location, error) {
	if name == "" {
		name = fallback
	}
	if name == "" {
		return time.UTC, nil
	}
	// LoadLocation also reads paths and "Local": only names of the IANA
	// form are taken.
	if name == "Local" || strings.HasPrefix(name, "/") || strings.Contains(name, "..") {
		return nil, apperr.Invalid("timezone", "%s is not an IANA time zone name", apperr.Quote(name))
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, apperr.Invalid("timezone", "%s is not an IANA time zone name (such as America/New_York)", apperr.Quote(name))
	}
	return loc, nil
}

// Parse resolves p in the zone named by p.TimeZone, or orgZone when it
// names none. A date is a whole day (from and to both inclusive); a
// date-time is an instant (from inclusive, to exclusive). Without to, the
// range ends with today; without from, it starts DefaultDays days before
// its end (the last 30 days by default).
//
// Start and End are in UTC: SQLite compares the stored timestamps (UTC)
// with a parameter as text, written in the parameter's own offset, so an
// instant written in another zone would be compared wrongly.
func Parse(p Params, orgZone string, now time.Time) (Range, error) {
	loc, err := Zone(p.TimeZone, orgZone)
	if err != nil {
		return Range{}, err
	}
	y, m, d := now.In(loc).Date()
	r := Range{Loc: loc, End: dayStart(y, m, d+1, loc)} // today included
	if p.To != "" {
		if r.End, err = instant("to", p.To, loc, true); err != nil {
			return Range{}, err
		}
	}
	// Without from: the DefaultDays days that end with to's day.
	y, m, d = r.End.Add(-time.Nanosecond).In(loc).Date()
	r.Start = dayStart(y, m, d+1-DefaultDays, loc)
	if p.From != "" {
		if r.Start, err = instant("from", p.From, loc, false); err != nil {
			return Range{}, err
		}
	}
	// A wrong range names to when the caller sent it; with to absent (the
	// range ends today), from is the only bound the caller can change.
	bound, order := "to", "must be after from"
	if p.To == "" {
		bound, order = "from", "must be before the end of today, where the range ends without to"
	}
	if !r.End.After(r.Start) {
		return Range{}, apperr.Invalid(bound, "%s", order)
	}
	y, m, d = r.Start.In(loc).Date()
	if r.End.After(dayStart(y, m, d+MaxDays, loc)) {
		return Range{}, apperr.Invalid(bound, "the range may span at most %d days", MaxDays)
	}
	// The instants are given in UTC: SQLite compares stored timestamps
	// (UTC) as text, so a bound written in another offset would match the
	// wrong rows. Loc still cuts the days.
	r.Start, r.End = r.Start.UTC(), r.End.UTC()
	return r, nil
}

// Bound reads one end of a record filter's range (createdFrom, fundedTo):
// a date-time is that instant; a date is a whole day in loc, so a start is
// its first instant and an end (exclusive) the first instant of the day
// after it. The same rule as a report's range.
func Bound(field, s string, loc *time.Location, end bool) (time.Time, error) {
	t, err := instant(field, s, loc, end && len(s) == len(DateLayout))
	return t.UTC(), err
}

// instant reads a date or a date-time. A date's instant is the first
// instant of its day; for to, inclusive, that of the day after it.
func instant(field, s string, loc *time.Location, inclusiveEnd bool) (time.Time, error) {
	if len(s) == len(DateLayout) {
		// Read as a calendar date: in loc, a date whose midnight a
		// daylight-saving change skips would read as the day before.
		d, err := time.Parse(DateLayout, s)
		if err != nil {
			return time.Time{}, apperr.Invalid(field, "must be a date (2026-11-01) or a date-time (2026-11-01T09:30:00Z)")
		}
		y, m, day := d.Date()
		if inclusiveEnd {
			day++
		}
		return dayStart(y, m, day, loc), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, apperr.Invalid(field, "must be a date (2026-11-01) or a date-time (2026-11-01T09:30:00Z)")
	}
	return t.In(loc), nil
}

// dayStart is the first instant of the day y-m-d in loc (normalised as
// time.Date does: day 32 is the next month's 1st). That is the day's
// midnight, with two exceptions where time.Date alone answers wrongly:
//   - a daylight-saving change that skips midnight (America/Santiago in
//     September, America/Havana in March: the day begins at 01:00), where
//     time.Date answers with the previous day's 23:00;
//   - a change back at midnight that repeats it, where time.Date may answer
//     with the second midnight; the first begins the day.
func dayStart(y int, m time.Month, d int, loc *time.Location) time.Time {
	day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	y, m, d = day.Date()
	t := time.Date(y, m, d, 0, 0, 0, 0, loc)
	if ty, tm, td := t.Date(); ty != y || tm != m || td != d {
		// t is the previous day's last hour: the day begins with the change.
		_, end := t.ZoneBounds()
		return end.In(loc)
	}
	if start, _ := t.ZoneBounds(); !start.IsZero() {
		// Midnight under the offset in force before t's began: when that
		// offset still held then, it is an earlier midnight of the same day.
		_, before := start.Add(-time.Nanosecond).Zone()
		if e := day.Add(-time.Duration(before) * time.Second); e.Before(start) {
			return e.In(loc)
		}
	}
	return t
}

// CheckInterval reads the interval parameter; empty is fallback.
func CheckInterval(s, fallback string) (string, error) {
	if s == "" {
		return fallback, nil
	}
	if !slices.Contains(Intervals, s) {
		return "", apperr.Invalid("interval", "must be one of %s", strings.Join(Intervals, ", "))
	}
	return s, nil
}

// Bucket is one period of a series: [Start, End) in the range's zone.
type Bucket struct {
	Start, End time.Time
}

// Date is the bucket's first day, as the series writes periodStart.
func (b Bucket) Date() string { return b.Start.Format(DateLayout) }

// Buckets lists every bucket of interval that overlaps the range, in
// order: the first starts at or before r.Start (local midnight, the Monday,
// the 1st), the last ends at or after r.End.
func (r Range) Buckets(interval string) []Bucket {
	start := floor(r.Start.In(r.Loc), interval)
	var out []Bucket
	for s := start; s.Before(r.End); {
		e := next(s, interval)
		out = append(out, Bucket{Start: s, End: e})
		s = e
	}
	return out
}

// Index is the position in buckets of the one holding t, or -1.
func Index(buckets []Bucket, t time.Time) int {
	i, _ := slices.BinarySearchFunc(buckets, t, func(b Bucket, t time.Time) int {
		switch {
		case !t.Before(b.End):
			return -1
		case t.Before(b.Start):
			return 1
		}
		return 0
	})
	if i < len(buckets) && !t.Before(buckets[i].Start) && t.Before(buckets[i].End) {
		return i
	}
	return -1
}

func floor(t time.Time, interval string) time.Time {
	y, m, d := t.Date()
	switch interval {
	case Week:
		back := (int(t.Weekday()) + 6) % 7 // days since Monday
		return dayStart(y, m, d-back, t.Location())
	case Month:
		return dayStart(y, m, 1, t.Location())
	}
	return dayStart(y, m, d, t.Location())
}

// next is the start of the bucket after the one starting at t.
func next(t time.Time, interval string) time.Time {
	y, m, d := t.Date()
	switch interval {
	case Week:
		return dayStart(y, m, d+7, t.Location())
	case Month:
		return dayStart(y, m+1, 1, t.Location())
	}
	return dayStart(y, m, d+1, t.Location())
}

// Days are numbered as the rollups key them: the days since 1970-01-01 of
// a local calendar date, whatever its zone.

// DayNumber is the number of the date y-m-d (normalised as time.Date does).
func DayNumber(y int, m time.Month, d int) int {
	return int(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / secondsPerDay)
}

// DayDate is the date of a day number.
func DayDate(day int) (int, time.Month, int) {
	return time.Unix(int64(day)*secondsPerDay, 0).UTC().Date()
}

const secondsPerDay = 24 * 60 * 60

// DayStart is the first instant of the numbered day in loc, cut as the
// series cut it.
func DayStart(day int, loc *time.Location) time.Time {
	y, m, d := DayDate(day)
	return dayStart(y, m, d, loc)
}

// LocalDay is the number of the day of loc that holds t: the day whose
// DayStart is at or before t and whose next day's is after it. Where a
// change back repeats midnight, t's calendar date can be the day before
// the one the series put it in; the day starts decide.
func LocalDay(t time.Time, loc *time.Location) int {
	y, m, d := t.In(loc).Date()
	day := DayNumber(y, m, d)
	switch {
	case !t.Before(DayStart(day+1, loc)):
		return day + 1
	case t.Before(DayStart(day, loc)):
		return day - 1
	}
	return day
}

// MonthNumber is the number of the month holding the numbered day: the
// months since January 1970.
func MonthNumber(day int) int {
	y, m, _ := DayDate(day)
	return (y-1970)*12 + int(m) - 1
}

// MonthFirstDay is the number of the first day of the numbered month.
func MonthFirstDay(month int) int {
	return DayNumber(1970+month/12, time.Month(month%12+1), 1)
}

// zones caches loaded locations by name: loading one parses its zone data.
var zones sync.Map // string -> *time.Location

// Location is the IANA zone name, loaded once per process. It accepts
// only what Zone accepts.
func Location(name string) (*time.Location, error) {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := Zone(name, "UTC")
	if err != nil {
		return nil, err
	}
	zones.Store(name, loc)
	return loc, nil
}
