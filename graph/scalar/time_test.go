package scalar_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/lendingpipe/svc/graph/scalar"
)

// Every time marshals, Go's zero time included: a non-null field holding a
// stored time never fails to read.
func TestMarshalTimeWritesEveryValue(t *testing.T) {
	for _, tc := range []struct {
		in   time.Time
		want string
	}{
		{time.Time{}, `"0001-01-01T00:00:00.000Z"`},
		{time.Unix(0, 0), `"1970-01-01T00:00:00.000Z"`},
		{time.Date(2026, 11, 23, 10, 17, 27, 120_000_000, time.FixedZone("x", 3600)), `"2026-11-23T09:17:27.120Z"`},
	} {
		var b bytes.Buffer
		scalar.MarshalTime(tc.in).MarshalGQL(&b)
		if b.String() != tc.want {
			t.Errorf("MarshalTime(%v) = %s, want %s", tc.in, b.String(), tc.want)
		}
	}
}
