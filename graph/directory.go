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

// stagesPage is one page of the pipeline, in pipeline order.
func (r *Resolver) stagesPage(ctx context.Context, pageArg, limitArg *int) (*PipelineStagePage, error) {
	s, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	q := r.client(ctx).PipelineStage.Query().Order(pipelinestage.ByPosition(), pipelinestage.ByID())
	return answer[PipelineStagePage](readPage(ctx, q, s))
}

// usersPage is one page of the organization's users, within role and teamID
// when given, each with its team loaded (one more query a page).
func (r *Resolver) usersPage(ctx context.Context, role *user.Role, teamID *uuid.UUID, pageArg, limitArg *int) (*UserPage, error) {
	if role != nil && user.RoleValidator(*role) != nil {
		return nil, apperr.Invalid("role", "must be one of %s", strings.Join(enum.UserRoles, ", "))
	}
	s, err := spanOf(pageArg, limitArg)
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
	q = q.WithTeam().Order(user.ByLastName(), user.ByFirstName(), user.ByID())
	return answer[UserPage](readPage(ctx, q, s))
}

// teamsPage is one page of the organization's teams, by name.
func (r *Resolver) teamsPage(ctx context.Context, pageArg, limitArg *int) (*TeamPage, error) {
	s, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	return answer[TeamPage](readPage(ctx, r.client(ctx).Team.Query().Order(team.ByName(), team.ByID()), s))
}
