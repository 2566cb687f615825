package graph

import (
	"context"

	"github.com/lendingpipe/svc/tasks"
)

// tasksPage is a page of the organization's tasks that where keeps, by due
// time then id (the REST list too).
func (r *Resolver) tasksPage(ctx context.Context, where *tasks.Filter, pageArg, limitArg *int) (*TaskPage, error) {
	s, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	var f tasks.Filter
	if where != nil {
		f = *where
	}
	return answer[TaskPage](readPage(ctx, tasks.List(r.client(ctx), f), s))
}

// section is one of My day's sections as GraphQL answers it, or err.
func section[T any](v T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return &v, nil
}
