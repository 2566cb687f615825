package graph

import "context"

// Page is one offset page of a list: what the *Page queries answer and the
// REST lists render. Each GraphQL page type (LeadPage, LenderPage, ...) is
// this type for its node (pages.go), so one helper reads them all.
type Page[T any] struct {
	Nodes   []T
	Total   int
	Page    int
	Limit   int
	HasMore bool
}

// span is one page's position: page and limit within their bounds
// (pageArgs), and the rows before it.
type span struct{ page, limit, skip int }

func spanOf(pageArg, limitArg *int) (span, error) {
	page, limit, err := pageArgs(pageArg, limitArg)
	if err != nil {
		return span{}, err
	}
	return span{page: page, limit: limit, skip: (page - 1) * limit}, nil
}

// pageOf is the page at s holding nodes, of total.
func pageOf[T any](s span, nodes []T, total int) Page[T] {
	return Page[T]{Nodes: nodes, Total: total, Page: s.page, Limit: s.limit, HasMore: s.skip+len(nodes) < total}
}

// withNodes is p with its nodes replaced (an agent's board row for its
// user, say): the position and the total stay.
func withNodes[T, U any](p Page[T], nodes []U) Page[U] {
	return Page[U]{Nodes: nodes, Total: p.Total, Page: p.Page, Limit: p.Limit, HasMore: p.HasMore}
}

// query is what an ent query offers for paging.
type query[Q, T any] interface {
	Clone() Q
	Count(context.Context) (int, error)
	Limit(int) Q
	Offset(int) Q
	All(context.Context) ([]T, error)
}

// readPage reads the page at s of q, filtered and ordered: the total of
// its matches (ent drops the order from a count), then the page's rows.
func readPage[T any, Q query[Q, T]](ctx context.Context, q Q, s span) (Page[T], error) {
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return Page[T]{}, err
	}
	nodes, err := q.Limit(s.limit).Offset(s.skip).All(ctx)
	if err != nil {
		return Page[T]{}, err
	}
	return pageOf(s, nodes, total), nil
}

// PageType is any of the GraphQL page types: a Page of T under its own
// name.
type PageType[T any] interface {
	~struct {
		Nodes   []T
		Total   int
		Page    int
		Limit   int
		HasMore bool
	}
}

// answer is p as the GraphQL page type P, or err.
func answer[P PageType[T], T any](p Page[T], err error) (*P, error) {
	if err != nil {
		return nil, err
	}
	out := P(p)
	return &out, nil
}
