package graph

import (
	"context"

	"github.com/lendingpipe/svc/renewals"
)

// RenewalPage is renewalQueue's page (gqlgen.yml).
type RenewalPage Page[renewals.Entry]

// renewalPage reads one page of the renewal queue through the domain's
// read: GraphQL's renewalQueue and REST's GET /v1/renewals.
func (r *Resolver) renewalPage(ctx context.Context, where *renewals.Filter, pageArg, limitArg *int) (*RenewalPage, error) {
	s, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	var f renewals.Filter
	if where != nil {
		f = *where
	}
	p, err := renewals.Queue(ctx, r.client(ctx), f, s.skip, s.limit)
	return answer[RenewalPage](pageOf(s, p.Entries, p.Total), err)
}
