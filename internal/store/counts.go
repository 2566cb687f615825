package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/fundeddealday"
	"github.com/lendingpipe/svc/ent/leadcount"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/rule"
)

// LeadTotal is orgID's number of leads, from the few rows of its count
// (schema.LeadCount) rather than a scan of its leads.
func (s *DB) LeadTotal(ctx context.Context, orgID uuid.UUID) (int, error) {
	slots, err := s.Client.LeadCount.Query().Where(leadcount.OrgID(orgID)).All(rule.SystemContext(ctx))
	if err != nil {
		return 0, fmt.Errorf("reading the lead count: %w", err)
	}
	total := 0
	for _, c := range slots {
		total += c.N
	}
	return total, nil
}

// LeadStageTotal is the number of orgID's leads in the given stages, from
// their counts (schema.LeadCount) rather than a scan of their leads. ok is
// false when the organization still has counts kept before they were kept
// by stage (the rollups' rebuild replaces them): those leads could be in
// any stage, so only a count of the leads themselves is exact.
func (s *DB) LeadStageTotal(ctx context.Context, orgID uuid.UUID, stages []uuid.UUID) (total int, ok bool, err error) {
	slots, err := s.Client.LeadCount.Query().
		Where(leadcount.OrgID(orgID), leadcount.Or(leadcount.StageIDIn(stages...), leadcount.StageIDIsNil())).
		All(rule.SystemContext(ctx))
	if err != nil {
		return 0, false, fmt.Errorf("reading the stages' lead counts: %w", err)
	}
	for _, c := range slots {
		if c.StageID == nil {
			if c.N != 0 {
				return 0, false, nil
			}
			continue
		}
		total += c.N
	}
	return total, true, nil
}

// backfillLeadCounts starts the counts of a database whose leads predate
// them. It runs at start-up and does nothing once any count exists; ON
// CONFLICT makes replicas starting together agree.
func (s *DB) backfillLeadCounts(ctx context.Context) error {
	n, err := s.Client.LeadCount.Query().Limit(1).Count(rule.SystemContext(ctx))
	if err != nil || n > 0 {
		return err
	}
	_, err = s.write.ExecContext(ctx, `INSERT INTO lead_counts (org_id, stage_id, slot, n)
		SELECT org_id, stage_id, 0, COUNT(*) FROM leads GROUP BY org_id, stage_id
		ON CONFLICT (org_id, stage_id, slot) DO NOTHING`)
	if err != nil {
		return fmt.Errorf("counting existing leads: %w", err)
	}
	return nil
}

// LenderDealTotal is how many of lenderID's deals in orgID were funded at
// or after from and before to (each nil for no bound): the day counts
// (schema.FundedDealDay) of the whole days in the range, and a count of the
// deals themselves on the partial days at its ends. The work grows with the
// days, not the deals.
func (s *DB) LenderDealTotal(ctx context.Context, orgID, lenderID uuid.UUID, from, to *time.Time) (int, error) {
	sys := rule.SystemContext(ctx)
	// Whole days: [first, last), each nil for no bound.
	var first, last *int
	if from != nil {
		d := apitime.Day(*from)
		if apitime.DayStart(d).Before(*from) {
			d++
		}
		first = &d
	}
	if to != nil {
		d := apitime.Day(*to)
		last = &d
	}
	deals := func(lo, hi time.Time) (int, error) {
		return s.Client.FundedDeal.Query().Where(fundeddeal.OrgID(orgID), fundeddeal.LenderID(lenderID),
			fundeddeal.FundedAtGTE(lo), fundeddeal.FundedAtLT(hi)).Count(sys)
	}
	if first != nil && last != nil && *first >= *last {
		return deals(*from, *to) // no whole day: the range is within a day or two
	}
	q := s.Client.FundedDealDay.Query().Where(fundeddealday.OrgID(orgID), fundeddealday.LenderID(lenderID))
	if first != nil {
		q = q.Where(fundeddealday.DayGTE(*first))
	}
	if last != nil {
		q = q.Where(fundeddealday.DayLT(*last))
	}
	var sum []struct{ Sum sql.NullInt64 }
	if err := q.Aggregate(ent.Sum(fundeddealday.FieldN)).Scan(sys, &sum); err != nil {
		return 0, fmt.Errorf("summing the lender's day counts: %w", err)
	}
	total := 0
	if len(sum) > 0 {
		total = int(sum[0].Sum.Int64)
	}
	if first != nil && apitime.DayStart(*first).After(*from) {
		n, err := deals(*from, apitime.DayStart(*first))
		if err != nil {
			return 0, fmt.Errorf("counting the lender's deals: %w", err)
		}
		total += n
	}
	if last != nil && apitime.DayStart(*last).Before(*to) {
		n, err := deals(apitime.DayStart(*last), *to)
		if err != nil {
			return 0, fmt.Errorf("counting the lender's deals: %w", err)
		}
		total += n
	}
	return total, nil
}

// backfillDealDays starts the day counts of a database whose deals predate
// them, as backfillLeadCounts does for leads.
func (s *DB) backfillDealDays(ctx context.Context) error {
	sys := rule.SystemContext(ctx)
	if n, err := s.Client.FundedDealDay.Query().Limit(1).Count(sys); err != nil || n > 0 {
		return err
	}
	deals, err := s.Client.FundedDeal.Query().Select(fundeddeal.FieldOrgID, fundeddeal.FieldLenderID, fundeddeal.FieldFundedAt).All(sys)
	if err != nil || len(deals) == 0 {
		return err
	}
	type key struct {
		org, lender uuid.UUID
		day         int
	}
	days := map[key]int{}
	for _, d := range deals {
		days[key{d.OrgID, d.LenderID, apitime.Day(d.FundedAt)}]++
	}
	return WithTx(sys, s.Client, func(ctx context.Context, tx *ent.Client) error {
		for k, n := range days {
			err := tx.FundedDealDay.Create().SetOrgID(k.org).SetLenderID(k.lender).SetDay(k.day).SetSlot(0).SetN(n).
				OnConflictColumns(fundeddealday.FieldOrgID, fundeddealday.FieldLenderID, fundeddealday.FieldDay, fundeddealday.FieldSlot).
				DoNothing().Exec(ctx)
			if err != nil {
				return fmt.Errorf("counting existing deals: %w", err)
			}
		}
		return nil
	})
}
