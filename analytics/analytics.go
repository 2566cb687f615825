// Package analytics computes the reports of GET /v1/analytics/{report} and
// GraphQL analytics { ... } from the organization's records: counts that
// match the rows, money summed to the cent in SQL (integer cents), ratios
// rounded half-even to four decimals, series cut at local midnight by
// internal/period. GraphQL's resolver and REST's handler call it.
//
// Its queries run with the system context and name the organization
// themselves: a key holding analytics:read reads the figures without
// holding leads:read or lending:read, and the caller (graph) checks that
// scope first.
//
// It imports ent, the store, the rollups it reads (analytics/rollup), the
// analytics definitions beside it and the leaves.
package analytics

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/period"
	"github.com/lendingpipe/svc/internal/rule"
)

// Interval is how a series is cut: day, week or month.
type Interval string

// MarshalGQL writes the interval as its GraphQL enum value.
func (i Interval) MarshalGQL(w io.Writer) { _, _ = io.WriteString(w, strconv.Quote(string(i))) }

// UnmarshalGQL reads the GraphQL enum value.
func (i *Interval) UnmarshalGQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("an interval must be a string, not %T", v)
	}
	checked, err := period.CheckInterval(s, period.Day)
	if err != nil {
		return err
	}
	*i = Interval(checked)
	return nil
}

// Request is one report's parameters, resolved: the organization, the
// range and its zone, the interval, and whose records count.
type Request struct {
	OrgID    uuid.UUID
	Range    period.Range
	Interval Interval
	// People limits the reports to these advisors (leads, deals,
	// commissions) or agents (calls); nil is everyone. An empty, non-nil
	// list matches nobody (a team without members).
	People []uuid.UUID
	// RollupZone is the zone the organization's rollups are cut in, ""
	// when they are not built: reports in that zone read them (rollups.go).
	RollupZone string
	// Dialect is the database's SQL dialect, for the reads built directly
	// (decisionHistogram, the middle decisions).
	Dialect string
	// lenders limits the lenders report to these lenders; nil is every
	// lender (LenderRecords asks for some).
	lenders []uuid.UUID
}

// From is the range's first instant.
func (q *Request) From() time.Time { return q.Range.Start }

// To is the instant just after the range.
func (q *Request) To() time.Time { return q.Range.End }

// Timezone names the zone the range's days are cut in.
func (q *Request) Timezone() string { return q.Range.Loc.String() }

// Filter is the optional people filter of the shared parameters.
type Filter struct {
	AdvisorID *uuid.UUID
	TeamID    *uuid.UUID
}

// People resolves the filter to the user ids it admits, nil when it
// admits everyone: the advisor, the team's members, or the advisor if a
// member of the team.
func (f Filter) People(ctx context.Context, c *ent.Client, org uuid.UUID) ([]uuid.UUID, error) {
	if f.AdvisorID == nil && f.TeamID == nil {
		return nil, nil
	}
	q := c.User.Query().Where(user.OrgID(org))
	if f.AdvisorID != nil {
		q = q.Where(user.ID(*f.AdvisorID))
	}
	if f.TeamID != nil {
		q = q.Where(user.TeamID(*f.TeamID))
	}
	ids, err := q.IDs(rule.SystemContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("resolving the people filter: %w", err)
	}
	if ids == nil {
		ids = []uuid.UUID{}
	}
	return ids, nil
}

// sys is the context the reports read with (see the package comment).
func sys(ctx context.Context) context.Context { return rule.SystemContext(ctx) }

// sumOf is COALESCE(SUM(column), 0) AS as: an exact integer sum, zero over
// no rows (SUM alone would be NULL, which no amount reads as zero).
func sumOf(column, as string) ent.AggregateFunc {
	return func(s *sql.Selector) string { return sql.As(sumExpr(s.C(column)), as) }
}

// sumExpr is COALESCE(SUM(column), 0), for a read built directly.
func sumExpr(column string) string { return "COALESCE(SUM(" + column + "), 0)" }

// countAs is COUNT(*) AS as.
func countAs(as string) ent.AggregateFunc { return ent.As(ent.Count(), as) }

// average is total / n half-even to the cent, 0 when n is 0.
func average(total money.Amount, n int) money.Amount {
	if n == 0 {
		return 0
	}
	avg, err := total.Div(int64(n))
	if err != nil {
		return 0 // unreachable: n > 0
	}
	return avg
}

// userNames are the full names of the users with the ids given.
func (q *Request) userNames(ctx context.Context, c *ent.Client, ids []uuid.UUID) (map[uuid.UUID]string, error) {
	out := make(map[uuid.UUID]string, len(ids))
	var (
		id          uuid.UUID
		first, last string
	)
	err := q.eachByID(ctx, c, user.Table, ids, []any{&id, &first, &last}, func() { out[id] = fullName(first, last) },
		user.FieldID, user.FieldFirstName, user.FieldLastName)
	if err != nil {
		return nil, fmt.Errorf("reading users' names: %w", err)
	}
	return out, nil
}

// eachByID reads columns of table's rows ids into dest, calling each per
// row, by a statement built directly: for the dialer's hundreds of agents
// the generated query's arguments and scan cost more than the read.
func (q *Request) eachByID(ctx context.Context, c *ent.Client, table string, ids []uuid.UUID, dest []any, each func(), columns ...string) error {
	if len(ids) == 0 {
		return nil
	}
	t := sql.Table(table)
	in := make([]any, len(ids))
	for i, id := range ids {
		in[i] = id
	}
	sel := sql.Dialect(q.Dialect).Select().From(t)
	for _, col := range columns {
		sel.AppendSelect(t.C(col))
	}
	query, args := sel.Where(sql.In(t.C(columns[0]), in...)).Query()
	return eachRow(sys(ctx), c, query, args, dest, each)
}

func fullName(first, last string) string {
	switch {
	case first == "":
		return last
	case last == "":
		return first
	}
	return first + " " + last
}

// eachRow runs query and calls each after scanning every row into dest.
func eachRow(ctx context.Context, c *ent.Client, query string, args, dest []any, each func()) error {
	rows, err := c.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		each()
	}
	return rows.Err()
}
