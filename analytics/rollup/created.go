package rollup

import (
	"context"

	gen "github.com/lendingpipe/svc/ent"
)

// countCreated adds a created lead to its day (LeadDay) and to its
// stage's count and requested sum (LeadCount), in that order: the organization's rollup
// zone is read first (sharing its row on PostgreSQL, see rollupLocation),
// then the day's row is taken, then the stage's, the order of every
// create and of a rebuild.
func countCreated(ctx context.Context, c *gen.Client, l *gen.Lead) error {
	if err := addLeadStep(ctx, c, l, leadStep{leads: 1}); err != nil {
		return err
	}
	return addStage(ctx, c, l.OrgID, l.StageID, requestStep(l.RequestedAmount))
}
