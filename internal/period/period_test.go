package period

import (
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/apperr"
)

var now = time.Date(2026, 11, 23, 15, 4, 5, 0, time.UTC)

func mustParse(t *testing.T, p Params, org string) Range {
	t.Helper()
	r, err := Parse(p, org, now)
	if err != nil {
		t.Fatalf("Parse(%+v): %v", p, err)
	}
	return r
}

func TestDatesAreWholeLocalDays(t *testing.T) {
	r := mustParse(t, Params{From: "2026-11-01", To: "2026-11-01", TimeZone: "America/New_York"}, "")
	// 1 November 2026 is the day New York leaves daylight saving time: 25 hours.
	if got := r.End.Sub(r.Start); got != 25*time.Hour {
		t.Errorf("2026-11-01 in New York lasts %v, want 25h", got)
	}
	if want := time.Date(2026, 11, 1, 4, 0, 0, 0, time.UTC); !r.Start.Equal(want) {
		t.Errorf("start = %v, want %v", r.Start.UTC(), want)
	}
	r = mustParse(t, Params{From: "2026-03-08", To: "2026-03-08", TimeZone: "America/New_York"}, "")
	if got := r.End.Sub(r.Start); got != 23*time.Hour {
		t.Errorf("2026-03-08 in New York lasts %v, want 23h", got)
	}
}

func TestDateTimesAreInstants(t *testing.T) {
	r := mustParse(t, Params{From: "2026-11-01T09:30:00Z", To: "2026-11-02T09:30:00+01:00"}, "Europe/Paris")
	if !r.Start.Equal(time.Date(2026, 11, 1, 9, 30, 0, 0, time.UTC)) || !r.End.Equal(time.Date(2026, 11, 2, 8, 30, 0, 0, time.UTC)) {
		t.Errorf("range = [%v, %v)", r.Start.UTC(), r.End.UTC())
	}
	if r.Loc.String() != "Europe/Paris" {
		t.Errorf("zone = %v, want the organization's", r.Loc)
	}
}

func TestDefaultIsTheLastThirtyDays(t *testing.T) {
	r := mustParse(t, Params{}, "")
	if want := time.Date(2026, 10, 25, 0, 0, 0, 0, time.UTC); !r.Start.Equal(want) {
		t.Errorf("start = %v, want %v", r.Start, want)
	}
	if want := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC); !r.End.Equal(want) {
		t.Errorf("end = %v, want %v (today included)", r.End, want)
	}
	r = mustParse(t, Params{To: "2026-06-30"}, "")
	if r.Start.Format(DateLayout) != "2026-06-01" {
		t.Errorf("to alone starts %v, want the 30 days ending with it", r.Start)
	}
}

func TestRangeErrorsNameTheParameter(t *testing.T) {
	for _, c := range []struct {
		p     Params
		field string
	}{
		{Params{From: "2026-13-01"}, "from"},
		{Params{From: "yesterday"}, "from"},
		{Params{To: "2026-11-01T25:00:00Z"}, "to"},
		{Params{From: "2026-11-02", To: "2026-11-01"}, "to"},
		{Params{From: "2026-11-01T10:00:00Z", To: "2026-11-01T10:00:00Z"}, "to"},
		{Params{From: "2025-01-01", To: "2026-01-02"}, "to"},
		{Params{TimeZone: "Mars/Olympus"}, "timezone"},
		{Params{TimeZone: "Local"}, "timezone"},
		{Params{TimeZone: "../etc/passwd"}, "timezone"},
		// Without to the range ends today: from is the bound at fault.
		{Params{From: "2026-11-24"}, "from"},
		{Params{From: "2025-11-22"}, "from"},
		{Params{From: "2026-11-24T00:00:00Z", TimeZone: "UTC"}, "from"},
	} {
		_, err := Parse(c.p, "", now)
		e, ok := apperr.As(err)
		if !ok || e.Code != apperr.Validation || e.Field != c.field {
			t.Errorf("Parse(%+v) = %v, want a validation error on %s", c.p, err, c.field)
		}
	}
	// 366 whole days is the most: a leap year.
	if _, err := Parse(Params{From: "2028-01-01", To: "2028-12-31"}, "", now); err != nil {
		t.Errorf("366 days refused: %v", err)
	}
}

// The instants are UTC whatever the zone: SQLite compares stored UTC
// timestamps as text, and a bound written at another offset would not
// compare as the instant it is.
func TestInstantsAreUTC(t *testing.T) {
	for _, p := range []Params{
		{From: "2026-11-01", To: "2026-11-03", TimeZone: "America/New_York"},
		{From: "2026-11-01T09:30:00+09:00", To: "2026-11-02T09:30:00-05:00", TimeZone: "Asia/Tokyo"},
		{TimeZone: "Australia/Adelaide"},
	} {
		r := mustParse(t, p, "")
		if r.Start.Location() != time.UTC || r.End.Location() != time.UTC {
			t.Errorf("Parse(%+v) = [%v, %v), want UTC instants", p, r.Start, r.End)
		}
		if r.Loc.String() != p.TimeZone {
			t.Errorf("Parse(%+v) zone = %v", p, r.Loc)
		}
	}
	r := mustParse(t, Params{From: "2026-11-01", To: "2026-11-01", TimeZone: "Asia/Tokyo"}, "")
	if got := r.Buckets(Day); len(got) != 1 || got[0].Date() != "2026-11-01" {
		t.Errorf("Tokyo's 2026-11-01 (UTC from the 31st) buckets as %v", got)
	}
}

func TestBucketsCoverTheRange(t *testing.T) {
	r := mustParse(t, Params{From: "2026-10-30", To: "2026-11-03", TimeZone: "America/New_York"}, "")
	days := r.Buckets(Day)
	if len(days) != 5 || days[0].Date() != "2026-10-30" || days[4].Date() != "2026-11-03" {
		t.Fatalf("days = %v", days)
	}
	if got := days[2].End.Sub(days[2].Start); got != 25*time.Hour {
		t.Errorf("bucket 2026-11-01 lasts %v, want 25h", got)
	}
	weeks := r.Buckets(Week)
	// 2026-10-30 is a Friday: its week starts Monday 2026-10-26.
	if len(weeks) != 2 || weeks[0].Date() != "2026-10-26" || weeks[1].Date() != "2026-11-02" {
		t.Errorf("weeks = %v", weeks)
	}
	months := mustParse(t, Params{From: "2026-01-15", To: "2026-12-31"}, "Asia/Kolkata").Buckets(Month)
	if len(months) != 12 || months[0].Date() != "2026-01-01" || months[11].Date() != "2026-12-01" {
		t.Errorf("months = %d from %s", len(months), months[0].Date())
	}
	for i := 1; i < len(months); i++ {
		if !months[i].Start.Equal(months[i-1].End) {
			t.Errorf("month %d does not start where %d ends", i, i-1)
		}
	}
}

func TestIndexFindsTheBucket(t *testing.T) {
	r := mustParse(t, Params{From: "2026-11-01", To: "2026-11-03", TimeZone: "America/New_York"}, "")
	b := r.Buckets(Day)
	for _, c := range []struct {
		at   time.Time
		want int
	}{
		{time.Date(2026, 11, 1, 4, 0, 0, 0, time.UTC), 0},
		{time.Date(2026, 11, 2, 4, 59, 59, 0, time.UTC), 0}, // 23:59:59 EST on the 25-hour day
		{time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC), 1},
		{time.Date(2026, 11, 4, 5, 0, 0, 0, time.UTC), -1},
		{time.Date(2026, 11, 1, 3, 59, 59, 0, time.UTC), -1},
	} {
		if got := Index(b, c.at); got != c.want {
			t.Errorf("Index(%v) = %d, want %d", c.at, got, c.want)
		}
	}
}

func TestCheckInterval(t *testing.T) {
	if got, err := CheckInterval("", Month); got != Month || err != nil {
		t.Errorf("default = %q, %v", got, err)
	}
	if _, err := CheckInterval("fortnight", Day); err == nil {
		t.Error("fortnight accepted")
	}
}

// Where a daylight-saving change skips midnight itself (America/Santiago
// on 7 September 2025, America/Havana on 8 March 2026), the day begins at
// 01:00, when the change ends; time.Date answers the skipped midnight with
// the previous day's 23:00, and a bucket cut there never ended.
func TestDaysWhoseMidnightIsSkipped(t *testing.T) {
	for _, c := range []struct {
		zone, day, before string
		start             time.Time // 01:00 local
	}{
		{"America/Santiago", "2025-09-07", "2025-09-06", time.Date(2025, 9, 7, 4, 0, 0, 0, time.UTC)},
		{"America/Havana", "2026-03-08", "2026-03-07", time.Date(2026, 3, 8, 5, 0, 0, 0, time.UTC)},
	} {
		r := mustParse(t, Params{From: c.day, To: c.day, TimeZone: c.zone}, "")
		if !r.Start.Equal(c.start) || r.End.Sub(r.Start) != 23*time.Hour {
			t.Errorf("%s in %s = [%v, %v), want 23 hours from %v", c.day, c.zone, r.Start, r.End, c.start)
		}
		r = mustParse(t, Params{From: c.before, To: c.before, TimeZone: c.zone}, "")
		if !r.End.Equal(c.start) || r.End.Sub(r.Start) != 24*time.Hour {
			t.Errorf("%s in %s = [%v, %v), want 24 hours up to %v", c.before, c.zone, r.Start, r.End, c.start)
		}
		// Every interval's buckets follow one another and end.
		r = mustParse(t, Params{From: c.before[:8] + "01", To: c.day[:8] + "20", TimeZone: c.zone}, "")
		for _, interval := range Intervals {
			b := r.Buckets(interval)
			for i := 1; i < len(b); i++ {
				if !b[i].Start.Equal(b[i-1].End) || !b[i].Start.After(b[i-1].Start) || b[i].Date() == b[i-1].Date() {
					t.Errorf("%s %s bucket %d: %s %v after %s %v", c.zone, interval, i, b[i].Date(), b[i].Start, b[i-1].Date(), b[i-1].Start)
				}
			}
			if interval == Day && len(b) != 20 {
				t.Errorf("%s: %d days from the 1st to the 20th", c.zone, len(b))
			}
		}
		if i := Index(r.Buckets(Day), c.start.Add(-time.Second)); r.Buckets(Day)[i].Date() != c.before {
			t.Errorf("%s: the second before %s falls on %s", c.zone, c.day, r.Buckets(Day)[i].Date())
		}
	}
}

// Where a change back repeats midnight (America/Havana on 2 November
// 2025: 01:00 CDT becomes 00:00 CST), the day begins at the first one and
// lasts 25 hours.
func TestDayWhoseMidnightIsRepeated(t *testing.T) {
	r := mustParse(t, Params{From: "2025-11-02", To: "2025-11-02", TimeZone: "America/Havana"}, "")
	if want := time.Date(2025, 11, 2, 4, 0, 0, 0, time.UTC); !r.Start.Equal(want) || r.End.Sub(r.Start) != 25*time.Hour {
		t.Errorf("2025-11-02 in Havana = [%v, %v), want 25 hours from %v", r.Start, r.End, want)
	}
}

// Range instants are in UTC: SQLite compares stored UTC timestamps with a
// parameter as text written in the parameter's own offset.
func TestRangeInstantsAreUTC(t *testing.T) {
	r := mustParse(t, Params{From: "2026-03-01", To: "2026-03-02T10:00:00+05:45", TimeZone: "Asia/Kathmandu"}, "")
	if r.Start.Location() != time.UTC || r.End.Location() != time.UTC {
		t.Errorf("range [%v, %v) is not in UTC", r.Start, r.End)
	}
	if b := r.Buckets(Day); len(b) != 2 || b[0].Date() != "2026-03-01" || b[0].Start.Location().String() != "Asia/Kathmandu" {
		t.Errorf("buckets %v", b)
	}
}

// Month numbers and day numbers agree: each month's first day is in it,
// the day before is in the month before, across years and leap days.
func TestMonthNumbers(t *testing.T) {
	for day := DayNumber(1999, time.December, 1); day < DayNumber(2031, time.March, 1); day++ {
		m := MonthNumber(day)
		first := MonthFirstDay(m)
		y, mm, d := DayDate(day)
		if fy, fm, fd := DayDate(first); fy != y || fm != mm || fd != 1 || first > day {
			t.Fatalf("day %d (%d-%02d-%02d): month %d starts %d-%02d-%02d", day, y, mm, d, m, fy, fm, fd)
		}
		if d == 1 && MonthNumber(day-1) != m-1 {
			t.Fatalf("the day before %d-%02d-01 is in month %d, want %d", y, mm, MonthNumber(day-1), m-1)
		}
	}
}
