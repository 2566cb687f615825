package bounds

import "github.com/lendingpipe/svc/internal/apperr"

// Paging limits (SPEC 4.1 and 8), the one declaration every surface reads.
const (
	DefaultLimit = 20
	MaxLimit     = 100
	// MaxPage keeps page*limit far from overflow and offsets sane.
	MaxPage = 1_000_000
)

// Range is the inclusive range of one sizing argument.
type Range struct{ Min, Max int64 }

// Page is the range of an offset page's page: it starts at 1.
var Page = Range{1, MaxPage}

// Limit is the range of an offset page's limit when at most max items are
// served in one page: it starts at 1.
func Limit(max int) Range { return Range{1, int64(max)} }

// Count is the range of a connection's first and last: 0 asks for none.
func Count(max int) Range { return Range{0, int64(max)} }

// Contains reports whether n is in r.
func (r Range) Contains(n int64) bool { return n >= r.Min && n <= r.Max }

// Check refuses n outside r, naming field.
func (r Range) Check(field string, n int64) error {
	if !r.Contains(n) {
		return apperr.Invalid(field, "must be between %d and %d", r.Min, r.Max)
	}
	return nil
}
