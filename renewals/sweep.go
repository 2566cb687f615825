package renewals

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/notify"
)

// DefaultSweep is how often the sweeper looks for deals come due
// (SVC_RENEWAL_SWEEP): an announcement is at most this late.
const DefaultSweep = time.Minute

// batch bounds one sweep transaction: a backlog (a server stopped for a
// day) is announced in several short transactions, not one long one.
const batch = 100

// Sweep announces every deal come due by now and not yet announced:
// deal.renewal_eligible and a notification to the deal's advisor, in the
// transaction that claims the deal. It answers how many it announced.
//
// Sweepers of several replicas may run at once on one database: a deal is
// claimed by a conditional UPDATE (renewal_announced_at still null), and
// only the transaction whose UPDATE changed the row announces it. On
// PostgreSQL the second UPDATE waits for the first's row lock, then finds
// the claim taken; SQLite runs one writing transaction at a time.
func Sweep(ctx context.Context, c *ent.Client, now time.Time) (int, error) {
	ctx = rule.SystemContext(apitime.WithClock(ctx, func() time.Time { return now }))
	now = apitime.Truncate(now)
	total := 0
	for {
		n, more, err := sweepBatch(ctx, c, now)
		total += n
		if err != nil || !more {
			return total, err
		}
	}
}

// sweepBatch claims and announces up to batch deals come due; more is set
// when there may be others.
func sweepBatch(ctx context.Context, c *ent.Client, now time.Time) (n int, more bool, err error) {
	err = store.WithTx(ctx, c, func(ctx context.Context, tx *ent.Client) error {
		n, more = 0, false
		due, err := tx.FundedDeal.Query().
			Where(fundeddeal.RenewalAnnouncedAtIsNil(), fundeddeal.RenewalEligibleAtLTE(now)).
			Order(fundeddeal.ByRenewalEligibleAt(), fundeddeal.ByID()).Limit(batch).All(ctx)
		if err != nil {
			return fmt.Errorf("reading the deals come due: %w", err)
		}
		more = len(due) == batch
		for _, d := range due {
			claimed, err := claim(ctx, tx, d.ID, now)
			if err != nil {
				return err
			}
			if !claimed {
				continue // another sweeper's
			}
			if err := announce(ctx, tx, d); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, more, err
}

// claim marks the deal announced at now unless another sweeper has: true
// when this one did.
func claim(ctx context.Context, tx *ent.Client, id uuid.UUID, now time.Time) (bool, error) {
	n, err := tx.FundedDeal.Update().Where(fundeddeal.ID(id), fundeddeal.RenewalAnnouncedAtIsNil()).
		SetRenewalAnnouncedAt(now).Save(ctx)
	if err != nil {
		return false, fmt.Errorf("claiming deal %s's renewal: %w", id, err)
	}
	return n == 1, nil
}

// announce emits deal.renewal_eligible for d and tells its advisor.
func announce(ctx context.Context, tx *ent.Client, d *ent.FundedDeal) error {
	data := map[string]any{"dealId": d.ID, "orgId": d.OrgID, "leadId": d.LeadID, "lenderId": d.LenderID,
		"advisorId": d.AdvisorID, "renewalEligibleAt": apitime.Format(*d.RenewalEligibleAt)}
	if err := events.Emit(ctx, tx, d.OrgID, event.DealRenewalEligible, data); err != nil {
		return err
	}
	if d.AdvisorID == nil {
		return nil
	}
	return notify.Send(ctx, tx, notify.Notice{OrgID: d.OrgID, UserID: *d.AdvisorID, Kind: notify.RenewalDue,
		RecordID: d.ID, LeadID: d.LeadID, Summary: fmt.Sprintf("Renewal due: %s funded by %s", d.FundedAmount, d.LenderName)})
}

// Run sweeps every interval until ctx ends, first at once: what a server
// runs so renewals are announced within interval of coming due.
func Run(ctx context.Context, c *ent.Client, interval time.Duration, clock func() time.Time, log *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if n, err := Sweep(ctx, c, clock()); err != nil && ctx.Err() == nil {
			log.Warn("announcing renewals come due", "err", err)
		} else if n > 0 {
			log.Info("announced renewals come due", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
