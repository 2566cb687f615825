package analytics

import (
	"context"
	"fmt"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/organization"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/period"
)

// LenderRecords is each lender's record with the organization over the
// applications submitted at or after since, now being the time of the
// read, as the lender matches rank on
// it (PRODUCT 13): the lenders report's counts, the submitted ones being
// the sample, and the middle one or two of its decision seconds. It is
// the lenders report's own computation for everyone, cut in the
// organization's rollup zone, so the rollups answer the range's whole
// days (a lender's days, months and years: rows by days, not by
// applications) and only since's partial day reads the applications: the
// range ends with the day of now, so today is a whole day of the rollups.
// Only the lenders named are read (nil: every lender); those with no
// application in the range are absent.
func LenderRecords(ctx context.Context, c *ent.Client, org uuid.UUID, since, now time.Time, lenders []uuid.UUID) (map[uuid.UUID]*lendingrules.Record, error) {
	q, err := everyoneRequest(ctx, c, org, since, now)
	if err != nil {
		return nil, err
	}
	q.lenders = lenders
	r, err := Lenders(ctx, c, q)
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]*lendingrules.Record, len(r.Lenders))
	for _, s := range r.Lenders {
		out[s.LenderID] = &lendingrules.Record{Sample: s.Submitted, Approved: s.Approved, Declined: s.Declined,
			Funded: s.Funded, Middle: s.middle}
	}
	return out, nil
}

// everyoneRequest is a request of the organization's for everyone from
// start to the end of the day of now, in its rollup zone when its rollups
// are built (else UTC: the records alone answer it, in any zone).
func everyoneRequest(ctx context.Context, c *ent.Client, org uuid.UUID, start, now time.Time) (*Request, error) {
	var dialect string
	o, err := c.Organization.Query().Where(organization.ID(org)).Select(organization.FieldRollupZone).
		Modify(func(s *sql.Selector) { dialect = s.Dialect() }).Only(sys(ctx))
	if err != nil {
		return nil, fmt.Errorf("reading the organization's rollup zone: %w", err)
	}
	q := &Request{OrgID: org, Interval: period.Day, Dialect: dialect}
	loc := time.UTC
	if o.RollupZone != nil {
		if loc, err = period.Location(*o.RollupZone); err != nil {
			return nil, err
		}
		q.RollupZone = *o.RollupZone
	}
	end := period.DayStart(period.LocalDay(now, loc)+1, loc)
	q.Range = period.Range{Start: start.UTC(), End: end.UTC(), Loc: loc}
	return q, nil
}
