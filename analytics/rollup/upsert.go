package rollup

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"entgo.io/ent/dialect/sql"

	gen "github.com/lendingpipe/svc/ent"
)

// rollupUpsert adds to rollup rows in one statement: each row's counts are
// inserted, or added to the stored row that has its key. A rollup row has
// no id to assign, no hook, and no default the table does not give itself,
// so the statement is built directly rather than through the generated
// create path, whose mutations, defaults and node specs cost a write
// several times the statement itself (a histogram row has 37 columns).
type rollupUpsert struct {
	table string
	keys  []string // the unique key the rows conflict on
	adds  []string // the counts added
}

// exec adds rows, each its key values then its counts in the order of
// keys and adds. Callers keep their rows in one order (the key's), so two
// transactions never take shared rows in opposite orders.
func (u rollupUpsert) exec(ctx context.Context, c *gen.Client, dialect string, rows ...[]any) error {
	if dialect == "" {
		return fmt.Errorf("adding to %s: no SQL dialect", u.table)
	}
	if len(rows) == 0 {
		return nil
	}
	for _, row := range rows {
		if len(row) != len(u.keys)+len(u.adds) {
			return fmt.Errorf("adding to %s: %d values for %d columns", u.table, len(row), len(u.keys)+len(u.adds))
		}
	}
	args := make([]any, 0, len(rows)*len(rows[0]))
	for _, row := range rows {
		args = append(args, row...)
	}
	query := u.query(dialect, len(rows))
	if _, err := c.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("adding to %s: %w", u.table, err)
	}
	return nil
}

// upsertQueries holds each rollup statement built, by its text's inputs
// (upsertKey): the hot writes run a handful of shapes, and building one
// costs more than SQLite takes to run it. A statement of more than
// cachedRows rows, more than any write adds today, would be built each
// time, so the cache stays a few dozen entries whatever a caller adds.
var upsertQueries sync.Map // upsertKey → string

const cachedRows = 16

// upsertKey is what a statement's text depends on.
type upsertKey struct {
	table, dialect, keys, adds string
	rows                       int
}

// query is the statement adding n rows on dialect, built once.
func (u rollupUpsert) query(dialect string, n int) string {
	if n > cachedRows {
		return u.build(dialect, n)
	}
	key := upsertKey{table: u.table, dialect: dialect, keys: strings.Join(u.keys, ","), adds: strings.Join(u.adds, ","), rows: n}
	if q, ok := upsertQueries.Load(key); ok {
		return q.(string)
	}
	q := u.build(dialect, n)
	upsertQueries.Store(key, q)
	return q
}

// build writes the statement adding n rows on dialect.
func (u rollupUpsert) build(dialect string, n int) string {
	ins := sql.Dialect(dialect).Insert(u.table).Columns(append(slices.Clip(u.keys), u.adds...)...)
	// Any value but nil, which the builder would write as NULL rather
	// than as a placeholder.
	row := slices.Repeat([]any{0}, len(u.keys)+len(u.adds))
	for range n {
		ins.Values(row...)
	}
	ins.OnConflict(sql.ConflictColumns(u.keys...), sql.ResolveWith(func(set *sql.UpdateSet) {
		excluded := sql.Dialect(set.Dialect()).Table("excluded")
		for _, col := range u.adds {
			set.Add(col, sql.Expr(excluded.C(col)))
		}
	}))
	q, _ := ins.Query()
	return q
}
