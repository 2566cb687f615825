// Package board tells this process's live agents boards which rows changed,
// once the change has committed. The hooks of every schema a board row is
// built from (presence, call events, users, leads) report here, so every
// surface that writes them (GraphQL, REST, the dialer connector,
// automations) updates the board, and a rolled-back change never does.
//
// It imports only the generated ent client and internal/commit.
package board

import (
	"context"
	"sync"

	"entgo.io/ent"
	"github.com/google/uuid"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/commit"
)

// Change names the rows of one organization that changed: its agents', and
// those of the agents whose current lead is one of Leads (its name shows).
type Change struct {
	OrgID  uuid.UUID
	Agents []uuid.UUID
	Leads  []uuid.UUID
}

var listeners = struct {
	sync.Mutex
	byOrg map[uuid.UUID]map[*func(Change)]struct{}
}{byOrg: map[uuid.UUID]map[*func(Change)]struct{}{}}

// Listen calls fn with orgID's committed changes until stop is called.
// fn runs in the committing goroutine: it must not block.
func Listen(orgID uuid.UUID, fn func(Change)) (stop func()) {
	key := &fn
	listeners.Lock()
	defer listeners.Unlock()
	if listeners.byOrg[orgID] == nil {
		listeners.byOrg[orgID] = map[*func(Change)]struct{}{}
	}
	listeners.byOrg[orgID][key] = struct{}{}
	return func() {
		listeners.Lock()
		defer listeners.Unlock()
		delete(listeners.byOrg[orgID], key)
		if len(listeners.byOrg[orgID]) == 0 {
			delete(listeners.byOrg, orgID)
		}
	}
}

// Changed reports c once m's transaction commits (at once when m ran
// outside one). An organization nobody listens to costs nothing.
func Changed(ctx context.Context, m ent.Mutation, c Change) {
	if txm, ok := m.(interface{ Tx() (*gen.Tx, error) }); ok {
		// The mutation's own transaction, whether or not ctx names it.
		if tx, err := txm.Tx(); err == nil {
			ctx = gen.NewTxContext(ctx, tx)
		}
	}
	commit.After(ctx, func() { notify(c) })
}

func notify(c Change) {
	listeners.Lock()
	fns := make([]func(Change), 0, len(listeners.byOrg[c.OrgID]))
	for fn := range listeners.byOrg[c.OrgID] {
		fns = append(fns, *fn)
	}
	listeners.Unlock()
	for _, fn := range fns {
		fn(c)
	}
}
