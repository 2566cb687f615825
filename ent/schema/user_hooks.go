package schema

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
		hook.On(signInEmailFollowsEmail, ent.OpUpdate|ent.OpUpdateOne),
		// A deactivation stops the keys bound to the user.
		events.BumpKeysOnCommit,
	}
}

// signInEmailFollowsEmail keeps a user's sign-in email equal to their
// email, lower-cased, whoever changes the email: the person then signs in
// with the new one, and its uniqueness across organizations holds (a
// second is CONFLICT).
func signInEmailFollowsEmail(next ent.Mutator) ent.Mutator {
	return hook.UserFunc(func(ctx context.Context, m *gen.UserMutation) (gen.Value, error) {
		email, ok := m.Email()
		if !ok {
			return next.Mutate(ctx, m)
		}
		if !m.Op().Is(ent.OpUpdateOne) {
			return nil, errors.New("a user's email is changed one user at a time")
		}
		// Through the generic mutation API: the schema compiles before the
		// typed setters exist.
		old, err := m.OldField(ctx, "sign_in_email")
		if err != nil {
			return nil, fmt.Errorf("reading the user's sign-in email: %w", err)
		}
		if p, ok := old.(*string); ok && p != nil {
			if err := m.SetField("sign_in_email", strings.ToLower(strings.TrimSpace(email))); err != nil {
				return nil, fmt.Errorf("following the email: %w", err)
			}
		}
		return next.Mutate(ctx, m)
	})
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
