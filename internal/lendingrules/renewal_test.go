package lendingrules

import (
	"testing"
	"time"
)

func TestRenewalEligibleAt(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		name   string
		funded string
		term   int
		want   string
	}{
		{"even term: half", "2026-03-10T15:04:05Z", 12, "2026-09-10T15:04:05Z"},
		{"odd term rounds up", "2026-03-10T15:04:05Z", 7, "2026-07-10T15:04:05Z"},
		{"one month term: one month", "2026-03-10T00:00:00Z", 1, "2026-04-10T00:00:00Z"},
		{"two month term: one month", "2026-03-10T00:00:00Z", 2, "2026-04-10T00:00:00Z"},
		{"Jan 31 + 1 month clamps to Feb 28", "2026-01-31T09:30:00Z", 2, "2026-02-28T09:30:00Z"},
		{"Jan 31 + 1 month in a leap year is Feb 29", "2028-01-31T09:30:00Z", 1, "2028-02-29T09:30:00Z"},
		{"Feb 29 + 12 months clamps to Feb 28", "2028-02-29T12:00:00Z", 24, "2029-02-28T12:00:00Z"},
		{"Feb 29 + 48 months keeps Feb 29", "2028-02-29T12:00:00Z", 96, "2032-02-29T12:00:00Z"},
		{"Aug 31 + 1 month clamps to Sep 30", "2026-08-31T23:59:59.5Z", 1, "2026-09-30T23:59:59.5Z"},
		{"year boundary", "2026-11-30T08:00:00Z", 5, "2027-02-28T08:00:00Z"},
		{"Mar 31 + 3 months is Jun 30", "2026-03-31T08:00:00Z", 6, "2026-06-30T08:00:00Z"},
		{"a day every month has stays", "2026-05-15T08:00:00Z", 36, "2027-11-15T08:00:00Z"},
		{"no term: at funding", "2026-05-15T08:00:00Z", 0, "2026-05-15T08:00:00Z"},
		{"offset kept", "2026-01-31T23:30:00-05:00", 1, "2026-02-28T23:30:00-05:00"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := RenewalEligibleAt(at(c.funded), c.term)
			if want := at(c.want); !got.Equal(want) || got.Format(time.RFC3339Nano) != want.Format(time.RFC3339Nano) {
				t.Errorf("RenewalEligibleAt(%s, %d) = %s, want %s", c.funded, c.term, got.Format(time.RFC3339Nano), c.want)
			}
		})
	}
}
