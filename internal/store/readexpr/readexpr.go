// Package readexpr adds columns to a read the writes make anyway: on
// SQLite, a lending write reads its lead, or its commission, with what it
// would otherwise ask in statements of their own (the rollups' zone,
// whether the lead was approved, the stages of its move). Each such column
// is a subquery whose text depends only on the table read, so it is
// written once and reused: ent's builder takes longer to write a subquery
// than SQLite takes to run it, and a funding reads its lead with up to
// seven of them (BenchmarkReadExprs in internal/store).
//
// It imports ent's SQL builder only.
package readexpr

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
)

// Builder writes a subquery for s, with vals, the values that change
// between reads. It must write the same text whatever vals hold, passing
// each to the builder as an argument (a string or an id, which the builder
// writes as a placeholder).
type Builder func(s *sql.Selector, vals ...any) sql.Querier

// written holds each subquery written, by key.
var written sync.Map // key → expr

// key is what a subquery's text depends on: its alias and the qualified
// name of a column of the table read (its alias, or its name and schema).
// Only SQLite's are kept: PostgreSQL numbers its arguments, so a text
// written apart would number them wrong.
type key struct{ alias, qualifier string }

// expr is a subquery's text and its arguments, with an arg where the
// caller's values go.
type expr struct {
	text string
	args []any
}

// arg stands, in a written subquery's arguments, for the caller's value of
// that index.
type arg int

// fresh counts the callers of Fresh: while any runs, every subquery is
// written afresh.
var fresh atomic.Int32

// Append adds to s, as alias, the subquery build writes for s with vals.
func Append(s *sql.Selector, alias string, build Builder, vals ...any) {
	if fresh.Load() > 0 || s.Dialect() != dialect.SQLite {
		s.AppendSelectExprAs(build(s, vals...), alias)
		return
	}
	k := key{alias: alias, qualifier: s.C("id")}
	x, ok := written.Load(k)
	if !ok {
		marks := make([]any, len(vals))
		for i := range vals {
			marks[i] = arg(i)
		}
		b := &sql.Builder{}
		b.SetDialect(dialect.SQLite)
		text, args := b.Join(build(s, marks...)).Query()
		x = expr{text: text, args: args}
		written.Store(k, x)
	}
	e := x.(expr)
	args := slices.Clone(e.args)
	for i, a := range args {
		if mark, ok := a.(arg); ok {
			args[i] = vals[mark]
		}
	}
	s.AppendSelectExprAs(sql.Expr(e.text, args...), alias)
}

// Fresh runs fn with every subquery written afresh by the builder: the
// tests and the benchmark that compare the reused texts with the
// builder's.
func Fresh(fn func()) {
	fresh.Add(1)
	defer fresh.Add(-1)
	fn()
}

// Written is how many subqueries have been written for reuse.
func Written() (n int) {
	written.Range(func(any, any) bool { n++; return true })
	return n
}

// Forget drops the subqueries written, for a test that counts them.
func Forget() { written.Clear() }

// Row is an entity whose read can add columns (ent's Value).
type Row interface {
	Value(string) (ent.Value, error)
}

// Text is a text value as the SQLite driver scans it into an any, and
// whether v is text at all.
func Text(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case []byte:
		return string(v), true
	}
	return "", false
}

// Int64 is the integer column alias (what) that a read of row added, and
// whether it added it.
func Int64(row Row, alias, what string) (n int64, read bool, err error) {
	v, err := row.Value(alias)
	if err != nil {
		return 0, false, nil // not selected
	}
	if n, ok := v.(int64); ok {
		return n, true, nil
	}
	return 0, false, fmt.Errorf("reading %s: unexpected %T", what, v)
}

// MustInt64 is Int64 of a column every read adds.
func MustInt64(row Row, alias, what string) (int64, error) {
	n, read, err := Int64(row, alias, what)
	if err == nil && !read {
		err = fmt.Errorf("reading %s: not read", what)
	}
	return n, err
}

// Exists is the EXISTS column alias (what) that a read of row added, if it
// did: SQLite's reads add such columns, PostgreSQL's do not.
func Exists(row Row, alias, what string) (exists, read bool, err error) {
	n, read, err := Int64(row, alias, what)
	return n != 0, read, err
}
