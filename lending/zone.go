package lending

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/rollup"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/store"
)

// lockLead is store.LockLead with the rollups' zone read beside the lead
// (on SQLite; PostgreSQL reads it apart, sharing the organization's row)
// and kept for the flow's counts, saving them a statement.
func lockLead(ctx context.Context, c *ent.Client, read store.LeadRead, ps ...predicate.Lead) (*ent.Lead, error) {
	read.Beside = rollup.SelectZone
	l, err := store.LockLead(ctx, c, read, ps...)
	if err != nil {
		return nil, err
	}
	return l, rollup.KeepZone(ctx, l.OrgID, l)
}

// paidCommission is store.PaidCommission with the rollups' zone read
// beside the commission, as lockLead reads it beside a lead.
func paidCommission(ctx context.Context, c *ent.Client, id uuid.UUID) (*ent.Commission, time.Time, error) {
	cm, fundedAt, err := store.PaidCommission(ctx, c, id, rollup.SelectZone)
	if err != nil {
		return nil, time.Time{}, err
	}
	if err := rollup.KeepZone(ctx, cm.OrgID, cm); err != nil {
		return nil, time.Time{}, fmt.Errorf("reading the commission: %w", err)
	}
	return cm, fundedAt, nil
}
