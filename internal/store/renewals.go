package store

import (
	"context"
	"fmt"
	"time"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/rule"
)

// renewalBackfillBatch bounds one transaction of backfillRenewals.
const renewalBackfillBatch = 500

// backfillRenewals gives the deals funded before deals knew their renewal
// date (PRODUCT 12.2) that date, from their funding and term, as funding
// now sets it, and whether their lead has moved on from them (the flag the
// schema's hooks keep from then on). A deal whose renewal came due before then is marked
// announced as well: its moment passed before the service tracked
// renewals, and announcing years of deals at once would flood the
// organization's subscribers; it is in the renewal queue all the same.
// Idempotent and cheap once done: it reads only deals with no date, by
// the (renewal_announced_at, renewal_eligible_at) index.
func (s *DB) backfillRenewals(ctx context.Context, now time.Time) error {
	sys := rule.SystemContext(ctx)
	now = apitime.Truncate(now)
	for {
		deals, err := s.Client.FundedDeal.Query().
			Where(fundeddeal.RenewalAnnouncedAtIsNil(), fundeddeal.RenewalEligibleAtIsNil()).
			Select(fundeddeal.FieldID, fundeddeal.FieldLeadID, fundeddeal.FieldFundedAt, fundeddeal.FieldTermMonths).
			Limit(renewalBackfillBatch).All(sys)
		if err != nil {
			return fmt.Errorf("reading deals without a renewal date: %w", err)
		}
		if len(deals) == 0 {
			return nil
		}
		err = WithTx(sys, s.Client, func(ctx context.Context, tx *ent.Client) error {
			for _, d := range deals {
				due := lendingrules.RenewalEligibleAt(d.FundedAt.UTC(), d.TermMonths)
				superseded, err := supersededDeal(ctx, tx, d)
				if err != nil {
					return err
				}
				u := tx.FundedDeal.UpdateOneID(d.ID).SetRenewalEligibleAt(due).SetRenewalSuperseded(superseded)
				if !due.After(now) {
					u.SetRenewalAnnouncedAt(due)
				}
				if err := u.Exec(ctx); err != nil {
					return fmt.Errorf("dating deal %s's renewal: %w", d.ID, err)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
}

// supersededDeal reports whether d's lead has moved on from it: an
// application in play, or a deal funded after it.
func supersededDeal(ctx context.Context, tx *ent.Client, d *ent.FundedDeal) (bool, error) {
	open := make([]application.Status, len(lendingrules.Open))
	for i, s := range lendingrules.Open {
		open[i] = application.Status(s)
	}
	inPlay, err := tx.Application.Query().Where(application.LeadID(d.LeadID), application.StatusIn(open...)).Exist(ctx)
	if err != nil || inPlay {
		return inPlay, err
	}
	later, err := tx.FundedDeal.Query().Where(fundeddeal.LeadID(d.LeadID), fundeddeal.IDNEQ(d.ID), fundeddeal.Or(
		fundeddeal.FundedAtGT(d.FundedAt), fundeddeal.And(fundeddeal.FundedAt(d.FundedAt), fundeddeal.IDGT(d.ID)))).Exist(ctx)
	if err != nil {
		return false, fmt.Errorf("reading deal %s's lead: %w", d.ID, err)
	}
	return later, nil
}
