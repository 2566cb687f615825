package period

import (
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent/apperr"
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
