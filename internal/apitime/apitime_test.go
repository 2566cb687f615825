package apitime_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/apitime"
)

func TestFormat(t *testing.T) {
	base := time.Date(2026, 11, 23, 10, 17, 27, 0, time.UTC)
	tests := []struct {
		name string
		in   time.Time
		want string
	}{
		{"Millis120", base.Add(120 * time.Millisecond), "2026-11-23T10:17:27.120Z"},
		{"Millis000", base, "2026-11-23T10:17:27.000Z"},
		{"TruncatedNotRounded", base.Add(999999999), "2026-11-23T10:17:27.999Z"},
		{"Microseconds", base.Add(7*time.Millisecond + 450*time.Microsecond), "2026-11-23T10:17:27.007Z"},
		{"OtherOffset", base.Add(5 * time.Millisecond).In(time.FixedZone("", -5*3600)), "2026-11-23T10:17:27.005Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := apitime.Format(tt.in); got != tt.want {
				t.Errorf("Format = %s, want %s", got, tt.want)
			}
			raw, err := json.Marshal(struct {
				At  apitime.Time  `json:"at"`
				Nil *apitime.Time `json:"nil"`
			}{At: apitime.Of(tt.in)})
			if err != nil || string(raw) != `{"at":"`+tt.want+`","nil":null}` {
				t.Errorf("JSON = %s, %v", raw, err)
			}
		})
	}
}

func TestParseAnyPrecision(t *testing.T) {
	want := time.Date(2026, 11, 23, 10, 17, 27, 120000000, time.UTC)
	for _, in := range []string{"2026-11-23T10:17:27.12Z", "2026-11-23T10:17:27.120Z", "2026-11-23T10:17:27.120000Z",
		"2026-11-23T11:17:27.120000000+01:00"} {
		var got apitime.Time
		if err := json.Unmarshal([]byte(`"`+in+`"`), &got); err != nil || !time.Time(got).Equal(want) {
			t.Errorf("%s: %v, %v", in, time.Time(got), err)
		}
	}
	if _, err := apitime.Parse("2026-11-23 10:17:27"); err == nil {
		t.Error("a timestamp without T and offset was accepted")
	}
}

// Day numbers UTC days from 1970-01-01, the same for every instant of a
// day whatever its zone, and DayStart is the first of them.
func TestDay(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	for _, c := range []struct {
		at   time.Time
		want int
	}{
		{time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), 0},
		{time.Date(1970, 1, 1, 23, 59, 59, 999e6, time.UTC), 0},
		{time.Date(1970, 1, 2, 0, 30, 0, 0, paris), 0}, // 23:30 UTC the day before
		{time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC), -1},
		{time.Date(2026, 11, 23, 10, 17, 27, 0, time.UTC), 20780},
	} {
		if got := apitime.Day(c.at); got != c.want {
			t.Errorf("Day(%s) = %d, want %d", c.at, got, c.want)
		}
		start := apitime.DayStart(c.want)
		if start.After(c.at) || !start.Add(24*time.Hour).After(c.at) || apitime.Day(start) != c.want {
			t.Errorf("DayStart(%d) = %s does not begin the day of %s", c.want, start, c.at)
		}
	}
}

// A time given for when something happened is compared as it is stored,
// to the millisecond: a fraction of a millisecond past now is now, not
// the future. Later than that, or before the domain, is refused.
func TestPastOrNow(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ctx := apitime.WithClock(context.Background(), func() time.Time { return now })
	at := func(d time.Duration) *time.Time { t := now.Add(d); return &t }
	if got, err := apitime.PastOrNow(ctx, nil, "paidAt"); err != nil || !got.Equal(now) {
		t.Errorf("no time given: %v, %v; want now", got, err)
	}
	if got, err := apitime.PastOrNow(ctx, at(600*time.Microsecond), "paidAt"); err != nil || !got.Equal(now) {
		t.Errorf("0.6 ms past now: %v, %v; want now", got, err)
	}
	for _, given := range []*time.Time{at(time.Millisecond), at(-60 * 365 * 24 * time.Hour)} {
		if _, err := apitime.PastOrNow(ctx, given, "paidAt"); err == nil {
			t.Errorf("%v accepted; want a refusal", given)
		}
	}
}
