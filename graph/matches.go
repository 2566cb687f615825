package graph

import (
	"context"

	"github.com/lendingpipe/svc/lending"
)

// LeadLenderMatches ranks the organization's lenders for a lead, as
// Query.lenderMatches reads them (REST GET /v1/leads/{id}/lender-matches).
func (r *Resolver) LeadLenderMatches(ctx context.Context, q lending.MatchQuery) ([]*lending.Match, error) {
	return lending.Matches(ctx, r.client(ctx), q)
}
