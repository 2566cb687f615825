package store

import (
	"context"
	stdsql "database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
)

// DecisionWalk is one ordered read of a lender's decisions: the whole
// seconds to decision in [Lo, Hi) of the organization's applications
// submitted in the range, in order, Limit of them from Offset.
type DecisionWalk struct {
	Lender                uuid.UUID
	Lo, Hi, Limit, Offset int
}

// DecisionWalks reads each walk of org's applications submitted in
// [start, end), in one statement: a walk of the (org_id, lender_id,
// decision_seconds, submitted_at) index each. The i-th answer is the
// i-th walk's seconds, in order.
//
// On SQLite the walks are parts of a UNION ALL. On PostgreSQL such a
// statement is planned part by part, and planning fifty parts took longer
// than running them (each part weighs every index that starts with
// org_id): there the walks are rows of arrays, each walked by a LATERAL
// subquery, one plan for any number of walks.
func DecisionWalks(ctx context.Context, c *ent.Client, dialectName string, org uuid.UUID, start, end time.Time, walks []DecisionWalk) ([][]int, error) {
	out := make([][]int, len(walks))
	if len(walks) == 0 {
		return out, nil
	}
	query, args := unionWalks(org, start, end, walks)
	if dialectName == dialect.Postgres {
		query, args = lateralWalks(org, start, end, walks)
	}
	err := eachRow(ctx, c, query, args, func(rows *stdsql.Rows) error {
		var part, secs int
		if err := rows.Scan(&part, &secs); err != nil {
			return err
		}
		if part < 0 || part >= len(out) {
			return fmt.Errorf("a walk numbered %d of %d", part, len(out))
		}
		out[part] = append(out[part], secs)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walking the lenders' decisions: %w", err)
	}
	return out, nil
}

// walkWhere is what every walk reads: the organization's applications
// submitted in the range ($1 to $3).
const walkWhere = `org_id = $1 AND submitted_at >= $2 AND submitted_at < $3`

// unionWalks is the walks joined by UNION ALL, numbered from 0. The text
// depends only on how many walks there are (limits and offsets are
// arguments), so a panel's reads reuse one prepared statement. SQLite
// numbers $1, $2, ... in the order they first appear, which is their
// order here.
func unionWalks(org uuid.UUID, start, end time.Time, walks []DecisionWalk) (string, []any) {
	args := []any{org, start.UTC(), end.UTC()}
	parts := make([]string, len(walks))
	for i, w := range walks {
		n := len(args)
		parts[i] = fmt.Sprintf(`SELECT %d AS part, decision_seconds FROM (SELECT decision_seconds FROM applications
	WHERE %s AND lender_id = $%d AND decision_seconds >= $%d AND decision_seconds < $%d
	ORDER BY decision_seconds LIMIT $%d OFFSET $%d) AS w%d`, i, walkWhere, n+1, n+2, n+3, n+4, n+5, i)
		args = append(args, w.Lender, w.Lo, w.Hi, w.Limit, w.Offset)
	}
	return strings.Join(parts, "\nUNION ALL\n"), args
}

// lateralWalks is the walks as PostgreSQL arrays, one element each,
// walked in turn; they are passed as array literals of text, which any
// driver passes on.
func lateralWalks(org uuid.UUID, start, end time.Time, walks []DecisionWalk) (string, []any) {
	lenders := make([]string, len(walks))
	cols := make([][]string, 4)
	for i, w := range walks {
		lenders[i] = w.Lender.String()
		for j, v := range []int{w.Lo, w.Hi, w.Limit, w.Offset} {
			cols[j] = append(cols[j], strconv.Itoa(v))
		}
	}
	array := func(items []string) string { return "{" + strings.Join(items, ",") + "}" }
	return `SELECT w.part - 1, a.decision_seconds
FROM unnest(CAST($4 AS uuid[]), CAST($5 AS bigint[]), CAST($6 AS bigint[]), CAST($7 AS bigint[]), CAST($8 AS bigint[]))
	WITH ORDINALITY AS w(lender, lo, hi, lim, off, part)
CROSS JOIN LATERAL (SELECT decision_seconds FROM applications
	WHERE ` + walkWhere + ` AND lender_id = w.lender AND decision_seconds >= w.lo AND decision_seconds < w.hi
	ORDER BY decision_seconds LIMIT w.lim OFFSET w.off) AS a
ORDER BY w.part, a.decision_seconds`,
		[]any{org, start.UTC(), end.UTC(), array(lenders), array(cols[0]), array(cols[1]), array(cols[2]), array(cols[3])}
}
