package store

import (
	"context"
	stdsql "database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/rule"
)

// MatchRecords tallies, by lender, the organization's applications in an
// amount band and of leads of an industry key, submitted at or after
// since: the lead's similar applications with every lender, which the
// lender matches rank on when there are enough of them. The counts are
// summed by the database; the median stays exact, read from the
// decisions themselves. (The lenders' whole windows, read when the
// similar ones are too few, are the lenders report's sums:
// analytics.LenderRecords.)
//
// Two statements. The counts are one range of the index that holds every
// column they read, (org_id, amount_band, industry_key, submitted_at,
// lender_id, status, decision_seconds). The middle decisions are, for each
// lender with one, a walk in order of the (org_id, amount_band,
// industry_key, lender_id, decision_seconds, submitted_at) index to the
// middle, LIMIT 1 or 2 OFFSET (decided - 1) / 2, the lenders' walks joined
// by UNION ALL: no sort, and no row of another band, industry or lender.
// Both databases take the same text: SQLite numbers $1, $2, ... in the
// order they first appear, which is their order here.
func MatchRecords(ctx context.Context, c *ent.Client, org uuid.UUID, since time.Time, band int, industry string) (map[uuid.UUID]*lendingrules.Record, error) {
	out := map[uuid.UUID]*lendingrules.Record{}
	counts, args := matchCounts(org, since, band, industry)
	decided := map[uuid.UUID]int{}
	err := eachRow(ctx, c, counts, args, func(rows *stdsql.Rows) error {
		var id uuid.UUID
		var r lendingrules.Record
		var n int
		if err := rows.Scan(&id, &r.Sample, &r.Approved, &r.Declined, &r.Funded, &n); err != nil {
			return err
		}
		out[id], decided[id] = &r, n
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("counting the lenders' similar applications: %w", err)
	}
	middle, args := matchMiddle(org, since, band, industry, decided)
	if middle == "" {
		return out, nil
	}
	err = eachRow(ctx, c, middle, args, func(rows *stdsql.Rows) error {
		var id uuid.UUID
		var secs int
		if err := rows.Scan(&id, &secs); err != nil {
			return err
		}
		if r := out[id]; r != nil {
			r.Middle = append(r.Middle, secs)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the lenders' median decisions: %w", err)
	}
	for _, r := range out {
		slices.Sort(r.Middle) // each walk's rows come in order; the union's need not
	}
	return out, nil
}

// matchWhere is the window, band and industry, and the arguments they
// take.
func matchWhere(org uuid.UUID, since time.Time, band int, industry string) (string, []any) {
	return "org_id = $1 AND amount_band = $2 AND industry_key = $3 AND submitted_at >= $4",
		[]any{org, band, industry, since.UTC()}
}

// matchCounts is the statement counting each lender's applications:
// all, approved, declined, funded, decided.
func matchCounts(org uuid.UUID, since time.Time, band int, industry string) (string, []any) {
	where, args := matchWhere(org, since, band, industry)
	return `SELECT lender_id, COUNT(*),
	SUM(CASE WHEN decision_seconds IS NOT NULL AND status <> 'declined' THEN 1 ELSE 0 END),
	SUM(CASE WHEN status = 'declined' THEN 1 ELSE 0 END),
	SUM(CASE WHEN status = 'funded' THEN 1 ELSE 0 END),
	COUNT(decision_seconds)
FROM applications WHERE ` + where + ` GROUP BY lender_id`, args
}

// matchMiddle is the statement reading the middle one or two decisions
// of each lender with decided ones, in order of lender id; "" when none
// has any.
func matchMiddle(org uuid.UUID, since time.Time, band int, industry string, decided map[uuid.UUID]int) (string, []any) {
	where, args := matchWhere(org, since, band, industry)
	ids := make([]uuid.UUID, 0, len(decided))
	for id, n := range decided {
		if n > 0 {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
	parts := make([]string, 0, len(ids))
	for i, id := range ids {
		n := decided[id]
		args = append(args, id)
		parts = append(parts, fmt.Sprintf(`SELECT * FROM (SELECT lender_id, decision_seconds FROM applications
	WHERE %s AND lender_id = $%d AND decision_seconds IS NOT NULL
	ORDER BY decision_seconds LIMIT %d OFFSET %d) AS middle%d`, where, len(args), 2-n%2, (n-1)/2, i))
	}
	return strings.Join(parts, "\nUNION ALL\n"), args
}

// eachRow runs query and calls fn on each row.
func eachRow(ctx context.Context, c *ent.Client, query string, args []any, fn func(*stdsql.Rows) error) error {
	rows, err := c.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// KeepIndustryKey gives the lead's applications the industry key of its
// industry now: the lead update calls it when the industry changes, so
// the lender matches compare applications by their lead's industry as it
// is. The applications' updatedAt stays: what they say has not changed.
func KeepIndustryKey(ctx context.Context, c *ent.Client, leadID uuid.UUID, industry *string) error {
	u := c.Application.Update().Where(application.LeadID(leadID)).Modify(keepUpdatedAt)
	if key := lendingrules.IndustryKey(industry); key != nil {
		u.SetIndustryKey(*key)
	} else {
		u.ClearIndustryKey()
	}
	if _, err := u.Save(rule.SystemContext(ctx)); err != nil {
		return fmt.Errorf("keeping the applications' industry: %w", err)
	}
	return nil
}

// keepUpdatedAt leaves an update's rows' updated_at as it was: the
// columns the matches keep are no change of the application's own.
func keepUpdatedAt(u *sql.UpdateBuilder) {
	u.Set(application.FieldUpdatedAt, sql.Expr(application.FieldUpdatedAt))
}

// matchKeysBatch bounds one transaction of backfillMatchKeys.
const matchKeysBatch = 500

// backfillMatchKeys gives the applications submitted before applications
// kept what the lender matches compare them by their amount band and
// their lead's industry key, as a submission now sets them. Idempotent,
// and cheap once done: it reads only the applications without a band.
// The key is computed here rather than in SQL, whose lower() folds case
// differently on each database.
func (s *DB) backfillMatchKeys(ctx context.Context) error {
	sys := rule.SystemContext(ctx)
	for {
		apps, err := s.Client.Application.Query().Where(application.AmountBandIsNil()).
			Select(application.FieldLeadID, application.FieldRequestedAmount).Limit(matchKeysBatch).All(sys)
		if err != nil {
			return fmt.Errorf("reading applications without an amount band: %w", err)
		}
		if len(apps) == 0 {
			return nil
		}
		leadIDs := make([]uuid.UUID, 0, len(apps))
		for _, a := range apps {
			leadIDs = append(leadIDs, a.LeadID)
		}
		leads, err := s.Client.Lead.Query().Where(lead.IDIn(leadIDs...)).
			Select(lead.FieldIndustry).All(sys)
		if err != nil {
			return fmt.Errorf("reading the applications' leads: %w", err)
		}
		industry := make(map[uuid.UUID]*string, len(leads))
		for _, l := range leads {
			industry[l.ID] = l.Industry
		}
		type keys struct {
			band int
			key  string // "" for none
		}
		groups := map[keys][]uuid.UUID{}
		for _, a := range apps {
			k := keys{band: lendingrules.AmountBand(a.RequestedAmount)}
			if key := lendingrules.IndustryKey(industry[a.LeadID]); key != nil {
				k.key = *key
			}
			groups[k] = append(groups[k], a.ID)
		}
		err = WithTx(sys, s.Client, func(ctx context.Context, tx *ent.Client) error {
			for k, ids := range groups {
				u := tx.Application.Update().Where(application.IDIn(ids...)).SetAmountBand(k.band).Modify(keepUpdatedAt)
				if k.key != "" {
					u.SetIndustryKey(k.key)
				}
				if err := u.Exec(ctx); err != nil {
					return fmt.Errorf("keeping the applications' amount band: %w", err)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
}
