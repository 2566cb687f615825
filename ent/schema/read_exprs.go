package schema

import (
	"slices"
	"sync"

	"entgo.io/ent/dialect/sql"
)

// The columns the lending writes add to their read of the lead on SQLite
// (selectZone, selectWasApproved, selectOthersOpen, selectSlotStages) are
// subqueries whose text depends only on the dialect and the table read:
// each is written once and reused. ent's builder takes longer to write a
// subquery than SQLite takes to run it, and a funding or a decision reads
// its lead with six of them.

// readExprs holds each subquery written, by readExprKey.
var readExprs sync.Map // readExprKey → readExpr

type readExprKey struct{ alias, dialect, table string }

// readExpr is a subquery's text and its arguments, with a readArg where
// the caller's values go.
type readExpr struct {
	text string
	args []any
}

// readArg stands, in a written subquery's arguments, for the caller's
// value of that index.
type readArg int

// appendReadExpr adds to s, as alias, the subquery build writes for s with
// vals, the values that change between reads. build must write the same
// text whatever vals hold, passing each to the builder as an argument.
func appendReadExpr(s *sql.Selector, alias string, build func(s *sql.Selector, vals ...any) sql.Querier, vals ...any) {
	key := readExprKey{alias: alias, dialect: s.Dialect(), table: s.TableName()}
	x, ok := readExprs.Load(key)
	if !ok {
		marks := make([]any, len(vals))
		for i := range vals {
			marks[i] = readArg(i)
		}
		b := &sql.Builder{}
		b.SetDialect(s.Dialect())
		text, args := b.Join(build(s, marks...)).Query()
		x = readExpr{text: text, args: args}
		readExprs.Store(key, x)
	}
	e := x.(readExpr)
	args := slices.Clone(e.args)
	for i, a := range args {
		if mark, ok := a.(readArg); ok {
			args[i] = vals[mark]
		}
	}
	s.AppendSelectExprAs(sql.Expr(e.text, args...), alias)
}
