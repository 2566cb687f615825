package apperr_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lendingpipe/svc/internal/apperr"
)

// A refused value is quoted in at most 100 characters, cut with "...".
func TestQuoteCutsLongValues(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"America/New_York", `"America/New_York"`},
		{strings.Repeat("x", 100), `"` + strings.Repeat("x", 100) + `"`},
		{strings.Repeat("x", 100_000), `"` + strings.Repeat("x", 97) + `..."`},
		{strings.Repeat("é", 101), `"` + strings.Repeat("é", 97) + `..."`},
	} {
		got := apperr.Quote(tc.in)
		if got != tc.want {
			t.Errorf("Quote(%d characters) = %s, want %s", utf8.RuneCountInString(tc.in), got, tc.want)
		}
	}
}
