package schema

import (
	"context"
	"fmt"
	"slices"

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
	for _, row := range rows {
		if len(row) != len(u.keys)+len(u.adds) {
			return fmt.Errorf("adding to %s: %d values for %d columns", u.table, len(row), len(u.keys)+len(u.adds))
		}
	}
	ins := sql.Dialect(dialect).Insert(u.table).Columns(append(slices.Clip(u.keys), u.adds...)...)
	for _, row := range rows {
		ins.Values(row...)
	}
	ins.OnConflict(sql.ConflictColumns(u.keys...), sql.ResolveWith(func(set *sql.UpdateSet) {
		excluded := sql.Dialect(set.Dialect()).Table("excluded")
		for _, col := range u.adds {
			set.Add(col, sql.Expr(excluded.C(col)))
		}
	}))
	query, args := ins.Query()
	if _, err := c.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("adding to %s: %w", u.table, err)
	}
	return nil
}
