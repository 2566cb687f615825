package graph

import (
	"context"
	"slices"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/dialer"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/viewer"
)

// The agents board lists the organization's agents (users with the agent
// role) by last name, first name and id, in offset pages for REST and as a
// Relay connection for dashboards; the agentPresenceChanged subscription
// keeps either up to date row by row.

// boardQuery is the board's agents, within teamID when given.
func (r *Resolver) boardQuery(ctx context.Context, teamID *uuid.UUID) (*ent.UserQuery, uuid.UUID, error) {
	v, ok := viewer.FromContext(ctx)
	if !ok {
		return nil, uuid.Nil, apperr.New(apperr.Unauthorized, "authentication required")
	}
	q := r.client(ctx).User.Query().Where(user.RoleEQ(user.RoleAgent))
	if teamID != nil {
		q = q.Where(user.TeamID(*teamID))
	}
	return q, v.OrgID, nil
}

// agentsBoardPage is one offset page of the board (REST GET /v1/dialer/agents).
func (r *Resolver) agentsBoardPage(ctx context.Context, teamID *uuid.UUID, pageArg, limitArg *int) (*AgentBoardPage, error) {
	s, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	q, orgID, err := r.boardQuery(ctx, teamID)
	if err != nil {
		return nil, err
	}
	users, err := readPage(ctx, q.Order(user.ByLastName(), user.ByFirstName(), user.ByID()), s)
	if err != nil {
		return nil, err
	}
	rows, err := dialer.Enrich(ctx, r.client(ctx), orgID, users.Nodes, r.now())
	return answer[AgentBoardPage](withNodes(users, rows), err)
}

// agentsBoard is the board as a Relay connection. Its cursors carry the
// row's sort key (last name, first name, id), so a page continues from
// where the last one ended even when agents come and go meanwhile.
func (r *Resolver) agentsBoard(ctx context.Context, after *ent.Cursor, first *int, before *ent.Cursor, last *int, teamID *uuid.UUID) (*AgentStatusConnection, error) {
	if first != nil && last != nil {
		return nil, apperr.Invalid("last", "cannot be combined with first")
	}
	q, orgID, err := r.boardQuery(ctx, teamID)
	if err != nil {
		return nil, err
	}
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range []struct {
		arg    string
		cursor *ent.Cursor
		beyond func(boardKey) predicate.User
	}{{"after", after, boardKey.after}, {"before", before, boardKey.before}} {
		if c.cursor == nil {
			continue
		}
		k, err := keyOf(c.arg, c.cursor)
		if err != nil {
			return nil, err
		}
		q = q.Where(c.beyond(k))
	}
	backwards := last != nil
	n := DefaultMaxPageSize
	if first != nil {
		n = *first
	} else if last != nil {
		n = *last
	}
	users, err := boardUsers(ctx, q, n, backwards)
	if err != nil {
		return nil, err
	}
	more := len(users) > n
	users = users[:min(n, len(users))]
	if backwards {
		slices.Reverse(users)
	}
	rows, err := dialer.Enrich(ctx, r.client(ctx), orgID, users, r.now())
	if err != nil {
		return nil, err
	}
	return boardConnection(users, rows, total, more, after, before, backwards), nil
}

// boardUsers reads n+1 agents from the cursor on, in board order or
// (backwards) its reverse; the extra one tells whether more follow.
func boardUsers(ctx context.Context, q *ent.UserQuery, n int, backwards bool) ([]*ent.User, error) {
	if n <= 0 {
		return nil, nil
	}
	if backwards {
		desc := sql.OrderDesc()
		return q.Order(user.ByLastName(desc), user.ByFirstName(desc), user.ByID(desc)).Limit(n + 1).All(ctx)
	}
	return q.Order(user.ByLastName(), user.ByFirstName(), user.ByID()).Limit(n + 1).All(ctx)
}

// boardConnection builds the connection of rows (in board order), as ent
// builds its own: a page after a cursor has a previous page, one before a
// cursor has a next page, and the extra row read tells the other side.
func boardConnection(users []*ent.User, rows []*dialer.AgentStatus, total int, more bool, after, before *ent.Cursor, backwards bool) *AgentStatusConnection {
	c := &AgentStatusConnection{
		Edges:      make([]*AgentStatusEdge, len(rows)),
		PageInfo:   &ent.PageInfo{HasNextPage: before != nil || (more && !backwards), HasPreviousPage: after != nil || (more && backwards)},
		TotalCount: total,
	}
	for i, row := range rows {
		c.Edges[i] = &AgentStatusEdge{Node: row, Cursor: boardKey{users[i].LastName, users[i].FirstName, users[i].ID}.cursor()}
	}
	if n := len(c.Edges); n > 0 {
		c.PageInfo.StartCursor, c.PageInfo.EndCursor = &c.Edges[0].Cursor, &c.Edges[n-1].Cursor
	}
	return c
}

// boardKey is a row's place in the board's order.
type boardKey struct {
	last, first string
	id          uuid.UUID
}

func (k boardKey) cursor() ent.Cursor {
	return ent.Cursor{ID: k.id, Value: []any{k.last, k.first}}
}

// before matches the rows that sort before k; after, those after it. A
// cursor's row itself is on neither side, so it is never listed twice.
func (k boardKey) before() predicate.User {
	return user.Or(user.LastNameLT(k.last), user.And(user.LastName(k.last),
		user.Or(user.FirstNameLT(k.first), user.And(user.FirstName(k.first), user.IDLT(k.id)))))
}

func (k boardKey) after() predicate.User {
	return user.Or(user.LastNameGT(k.last), user.And(user.LastName(k.last),
		user.Or(user.FirstNameGT(k.first), user.And(user.FirstName(k.first), user.IDGT(k.id)))))
}

// keyOf reads a board cursor; a cursor of another list is refused, naming arg.
func keyOf(arg string, c *ent.Cursor) (boardKey, error) {
	v, ok := c.Value.([]any)
	if ok && len(v) == 2 {
		last, ok1 := v[0].(string)
		first, ok2 := v[1].(string)
		if ok1 && ok2 {
			return boardKey{last, first, c.ID}, nil
		}
	}
	return boardKey{}, apperr.Invalid(arg, "is not a cursor of the agents board")
}
