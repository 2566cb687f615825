package graph

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/ent/team"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/enum"
)

// The organization's directory: its pipeline stages, users and teams, in
// offset pages for REST (GET /v1/stages, /v1/users, /v1/teams), so an
// integrator can find the ids the writes take (stageId, advisorId, userId,
// teamId). Who may read them is the ent privacy policy's to say (any key of
// the organization); these only page and filter.

// pageSpan is one page's position: the bounds of pageArgs applied.
type pageSpan struct{ page, limit, skip int }

func spanOf(pageArg, limitArg *int) (pageSpan, error) {
	page, limit, err := pageArgs(pageArg, limitArg)
	if err != nil {
		return pageSpan{}, err
	}
	return pageSpan{page: page, limit: limit, skip: (page - 1) * limit}, nil
}

// hasMore reports whether rows lie beyond a page that returned n of total.
func (o pageSpan) hasMore(n, total int) bool { return o.skip+n < total }

// stagesPage is one page of the pipeline, in pipeline order.
func (r *Resolver) stagesPage(ctx context.Context, pageArg, limitArg *int) (*PipelineStagePage, error) {
	o, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	q := r.client(ctx).PipelineStage.Query()
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	nodes, err := q.Order(pipelinestage.ByPosition(), pipelinestage.ByID()).Limit(o.limit).Offset(o.skip).All(ctx)
	if err != nil {
		return nil, err
	}
	return &PipelineStagePage{Nodes: nodes, Total: total, Page: o.page, Limit: o.limit, HasMore: o.hasMore(len(nodes), total)}, nil
}

// usersPage is one page of the organization's users, within role and teamID
// when given, each with its team loaded (one more query a page).
func (r *Resolver) usersPage(ctx context.Context, role *user.Role, teamID *uuid.UUID, pageArg, limitArg *int) (*UserPage, error) {
	if role != nil && user.RoleValidator(*role) != nil {
		return nil, apperr.Invalid("role", "must be one of %s", strings.Join(enum.UserRoles, ", "))
	}
	o, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	q := r.client(ctx).User.Query()
	if role != nil {
		q = q.Where(user.RoleEQ(*role))
	}
	if teamID != nil {
		q = q.Where(user.TeamID(*teamID))
	}
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	nodes, err := q.WithTeam().Order(user.ByLastName(), user.ByFirstName(), user.ByID()).
		Limit(o.limit).Offset(o.skip).All(ctx)
	if err != nil {
		return nil, err
	}
	return &UserPage{Nodes: nodes, Total: total, Page: o.page, Limit: o.limit, HasMore: o.hasMore(len(nodes), total)}, nil
}

// teamsPage is one page of the organization's teams, by name.
func (r *Resolver) teamsPage(ctx context.Context, pageArg, limitArg *int) (*TeamPage, error) {
	o, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	q := r.client(ctx).Team.Query()
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	nodes, err := q.Order(team.ByName(), team.ByID()).Limit(o.limit).Offset(o.skip).All(ctx)
	if err != nil {
		return nil, err
	}
	return &TeamPage{Nodes: nodes, Total: total, Page: o.page, Limit: o.limit, HasMore: o.hasMore(len(nodes), total)}, nil
}
