package schema

import (
	"context"

	"entgo.io/ent"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/hook"
	"github.com/lendingpipe/svc/ent/team"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/rule"
)

func (User) Hooks() []ent.Hook {
	return []ent.Hook{
		// The agents board's row is the user flows' step (dialer.AgentWritten).
		hook.On(checkUserTeam, ent.OpCreate|ent.OpUpdate|ent.OpUpdateOne), events.BumpOnCommit,
	}
}

// checkUserTeam keeps users in teams of their own organization.
func checkUserTeam(next ent.Mutator) ent.Mutator {
	return hook.UserFunc(func(ctx context.Context, m *gen.UserMutation) (gen.Value, error) {
		teamID, ok := m.TeamID()
		if !ok {
			return next.Mutate(ctx, m)
		}
		orgID, _ := mutationOrgOf(ctx, m)
		n, err := m.Client().Team.Query().Where(team.ID(teamID), team.OrgID(orgID)).Count(rule.SystemContext(ctx))
		if err != nil || n == 0 {
			return nil, refError(err, "teamId", "team")
		}
		return next.Mutate(ctx, m)
	})
}
