package graph

import (
	"context"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/activity"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
)

// defaultActivityPage is a history page's size when first is omitted.
const defaultActivityPage = 20

// leadActivity is a page of the lead's stored history; the operation's
// bounds (bounds.go) have refused a first over the page size.
func (r *Resolver) leadActivity(ctx context.Context, l *ent.Lead, first *int, after *string) (*ActivityConnection, error) {
	q := activity.Query{Limit: defaultActivityPage}
	if first != nil {
		q.Limit = max(*first, 0)
	}
	if after != nil {
		q.After = *after
	}
	page, err := activity.List(ctx, r.client(ctx), l.ID, q)
	if err != nil {
		return nil, err
	}
	conn := &ActivityConnection{Edges: make([]*ActivityEdge, len(page.Items)), TotalCount: page.Total,
		PageInfo: &ActivityPageInfo{HasNextPage: page.HasMore}}
	for i := range page.Items {
		conn.Edges[i] = &ActivityEdge{Node: &page.Items[i], Cursor: page.Cursors[i]}
	}
	if n := len(page.Cursors); n > 0 {
		conn.PageInfo.EndCursor = &page.Cursors[n-1]
	}
	return conn, nil
}

// LeadActivityPage is a page of the lead's stored history as REST lists
// it, newest first: page and limit as every offset list takes them. A lead
// the viewer may not read, or of another organization, is NOT_FOUND.
func (r *Resolver) LeadActivityPage(ctx context.Context, leadID uuid.UUID, pageArg, limitArg *int) (*Page[activity.Item], error) {
	s, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	c := r.client(ctx)
	if _, err := c.Lead.Query().Where(lead.ID(leadID)).OnlyID(ctx); err != nil {
		return nil, err
	}
	p, err := activity.List(ctx, c, leadID, activity.Query{Offset: s.skip, Limit: s.limit})
	if err != nil {
		return nil, err
	}
	out := pageOf(s, p.Items, p.Total)
	return &out, nil
}
