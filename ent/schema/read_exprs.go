package schema

import (
	"slices"
	"sync"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
)

// The columns the lending writes add on SQLite to a read they make anyway,
// the lead's or the commission's (selectZone, selectWasApproved,
// selectOthersOpen, selectSlotStages), are subqueries whose text depends
// only on the table read: each is written once and reused. ent's builder
// takes longer to write a subquery than SQLite takes to run it, and a
// funding or a decision reads its lead with up to seven of them.

// readExprs holds each subquery written, by readExprKey.
var readExprs sync.Map // readExprKey → readExpr

// readExprKey is what a subquery's text depends on: its alias and the
// qualified name of a column of the table read (its alias, or its name
// and schema). Only SQLite's are kept: PostgreSQL numbers its arguments,
// so a text written apart would number them wrong.
type readExprKey struct{ alias, qualifier string }

// readExpr is a subquery's text and its arguments, with a readArg where
// the caller's values go.
type readExpr struct {
	text string
	args []any
}

// readArg stands, in a written subquery's arguments, for the caller's
// value of that index.
type readArg int

// reuseReadExprs is off only in tests, which compare the reused texts
// with the builder's.
var reuseReadExprs = true

// appendReadExpr adds to s, as alias, the subquery build writes for s with
// vals, the values that change between reads. build must write the same
// text whatever vals hold, passing each to the builder as an argument (a
// string or an id, which the builder writes as a placeholder).
func appendReadExpr(s *sql.Selector, alias string, build func(s *sql.Selector, vals ...any) sql.Querier, vals ...any) {
	if !reuseReadExprs || s.Dialect() != dialect.SQLite {
		s.AppendSelectExprAs(build(s, vals...), alias)
		return
	}
	key := readExprKey{alias: alias, qualifier: s.C("id")}
	x, ok := readExprs.Load(key)
	if !ok {
		marks := make([]any, len(vals))
		for i := range vals {
			marks[i] = readArg(i)
		}
		b := &sql.Builder{}
		b.SetDialect(dialect.SQLite)
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
