package apitime_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent/apitime"
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
