package analytics

import (
	"context"
	"fmt"
	"strings"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/lendingpipe/svc/ent"
)

// A read of hundreds of short rows can take them packed in one text.
// SQLite's driver crosses into C two or three times per column of every
// row, and for rows read by the hundred those crossings cost more than
// SQLite's reading. Each row's values are joined by unitSep and the rows
// by recordSep: control characters, which the columns packed (ids,
// integers and JSON text, which escapes them) cannot hold.
const (
	unitSep   = "\x1f"
	recordSep = "\x1e"
)

// packedRows is the rows' count and the aggregate of columns as one text,
// NULL when there are none, each value as its text. The columns are NOT
// NULL ones (concat_ws leaves NULLs out, which eachPacked refuses).
func packedRows(columns ...string) []sql.Querier {
	return []sql.Querier{sql.Raw("COUNT(*)"), sql.ExprFunc(func(b *sql.Builder) {
		agg := "group_concat("
		if b.Dialect() == dialect.Postgres {
			agg = "string_agg("
		}
		b.WriteString(agg + "concat_ws(").Arg(unitSep)
		for _, c := range columns {
			b.Comma().Ident(c)
		}
		b.WriteString("), ").Arg(recordSep).WriteByte(')')
	})}
}

// eachPacked runs query, whose one row is a packedRows of width columns,
// and calls each with every packed row's values, which each must not keep
// (the slice is reused). A read whose rows or values do not come out as
// many as were packed fails: a value held a separator.
func eachPacked(ctx context.Context, c *ent.Client, query string, args []any, width int, each func(values []string) error) error {
	var (
		count  int
		packed sql.NullString
	)
	if err := eachRow(ctx, c, query, args, []any{&count, &packed}, func() {}); err != nil {
		return err
	}
	values, rows := make([]string, width), 0
	if packed.Valid {
		for row := range strings.SplitSeq(packed.String, recordSep) {
			if err := split(row, values); err != nil {
				return err
			}
			if err := each(values); err != nil {
				return err
			}
			rows++
		}
	}
	if rows != count {
		return fmt.Errorf("reading packed rows: %d rows where %d were packed", rows, count)
	}
	return nil
}

// split puts row's values into values, which it must fill exactly.
func split(row string, values []string) error {
	rest := row
	for i := range values {
		v, after, found := strings.Cut(rest, unitSep)
		if last := i == len(values)-1; found == last {
			return fmt.Errorf("reading packed rows: %d values where %d were expected", strings.Count(row, unitSep)+1, len(values))
		}
		values[i], rest = v, after
	}
	return nil
}
