package analytics

import (
	"context"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/rollup"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
)

// RebuildRollups computes orgID's analytics rollups, which the reports
// read, again from its records (rollup.Rebuild), in one transaction of c.
func RebuildRollups(ctx context.Context, c *ent.Client, orgID uuid.UUID) error {
	return store.WithTx(rule.SystemContext(ctx), c, func(ctx context.Context, tx *ent.Client) error {
		return rollup.Rebuild(ctx, tx, orgID)
	})
}
