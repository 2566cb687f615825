package rest

import (
	"net/http"

	"github.com/lendingpipe/svc/ent/task"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/tasks"
)

// taskHandlers translates GET /v1/tasks (PRODUCT 10.2) onto GraphQL's
// tasks(where:): the same filters, page and order. Who may read is the
// ent privacy policy's rule (leads:read); the writes are GraphQL
// mutations.
type taskHandlers struct {
	resolver *graph.Resolver
}

func (h taskHandlers) list(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, taskResource, func(page, limit *int) (*graph.TaskPage, error) {
		var f tasks.Filter
		var err error
		if f.AssigneeID, err = uuidParam(r, "assigneeId"); err != nil {
			return nil, err
		}
		if f.Status, err = typedEnumParam[task.Status](r, "status", enum.TaskStatuses); err != nil {
			return nil, err
		}
		if f.LeadID, err = uuidParam(r, "leadId"); err != nil {
			return nil, err
		}
		if f.DueBefore, err = timeParam(r, h.resolver, "dueBefore", true); err != nil {
			return nil, err
		}
		return h.resolver.Query().Tasks(r.Context(), &f, page, limit)
	})
}
