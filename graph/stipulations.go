package graph

import (
	"context"

	"github.com/lendingpipe/svc/lending"
)

// stipulationsPage is a page of the organization's stipulations that where
// keeps, oldest first (the REST list too).
func (r *Resolver) stipulationsPage(ctx context.Context, where *lending.StipulationFilter, pageArg, limitArg *int) (*StipulationPage, error) {
	s, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	var f lending.StipulationFilter
	if where != nil {
		f = *where
	}
	return answer[StipulationPage](readPage(ctx, lending.ListStipulations(r.client(ctx), f), s))
}
