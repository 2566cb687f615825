package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/leadcount"
	"github.com/lendingpipe/svc/ent/rule"
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

// backfillLeadCounts starts the counts of a database whose leads predate
// them. It runs at start-up and does nothing once any count exists; ON
// CONFLICT makes replicas starting together agree.
func (s *DB) backfillLeadCounts(ctx context.Context) error {
	n, err := s.Client.LeadCount.Query().Limit(1).Count(rule.SystemContext(ctx))
	if err != nil || n > 0 {
		return err
	}
	_, err = s.write.ExecContext(ctx, `INSERT INTO lead_counts (org_id, slot, n)
		SELECT org_id, 0, COUNT(*) FROM leads GROUP BY org_id
		ON CONFLICT (org_id, slot) DO NOTHING`)
	if err != nil {
		return fmt.Errorf("counting existing leads: %w", err)
	}
	return nil
}
