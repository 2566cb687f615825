package store

import (
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"
)

// ExportPage is how many rows an export reads at a time (PRODUCT 10.8):
// enough that the statements cost little beside the rows, few enough that
// a page's rows are all it holds in memory.
const ExportPage = 1000

// Key is a row's place in a newest-first listing: its time column and its
// id, which breaks ties.
type Key struct {
	At time.Time
	ID uuid.UUID
}

// Keyset reads a listing newest first (by a time column, then id, both
// descending) one page after another, each page starting past the last
// row of the one before it: the statement stays as cheap on the last page
// as on the first, however many rows precede it, where an offset walks
// them all again. Each call of the function returned reads the next page;
// an empty one is the end.
//
// read runs one page's statement: the listing's query with after, the
// predicate of the rows past the key (nil on the first page), added to
// its WHERE clause, ordered by col then id descending, limited to limit.
// The predicate is a row-value comparison, (col, id) < (at, id), which
// SQLite (3.15 and later) and PostgreSQL both answer with a range of the
// index that leads with the organization, col and id.
func Keyset[T any](col string, size int, read func(after func(*sql.Selector), limit int) ([]T, error), key func(T) Key) func() ([]T, error) {
	var last *Key
	done := false
	return func() ([]T, error) {
		if done {
			return nil, nil
		}
		var after func(*sql.Selector)
		if last != nil {
			after = Before(col, *last)
		}
		rows, err := read(after, size)
		if err != nil {
			return nil, err
		}
		if len(rows) < size {
			done = true
		}
		if len(rows) > 0 {
			k := key(rows[len(rows)-1])
			last = &k
		}
		return rows, nil
	}
}

// Before is the predicate of the rows that come after k in a listing
// newest first by col, then id: (col, id) < (k.At, k.ID).
func Before(col string, k Key) func(*sql.Selector) {
	return func(s *sql.Selector) {
		s.Where(sql.P(func(b *sql.Builder) {
			b.WriteString("(").WriteString(s.C(col)).Comma().WriteString(s.C("id")).WriteString(") < (").
				Arg(k.At).Comma().Arg(k.ID).WriteString(")")
		}))
	}
}
