package events

import (
	"context"

	entgo "entgo.io/ent"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/signals"
)

// BumpOnCommit is an ent hook for the schemas whose rows readers cache
// (stages and users, which the lead renderer in graph keeps): once the
// mutation's transaction commits, its store's Version moves on.
func BumpOnCommit(next entgo.Mutator) entgo.Mutator {
	return entgo.MutateFunc(func(ctx context.Context, m entgo.Mutation) (entgo.Value, error) {
		v, err := next.Mutate(ctx, m)
		if err == nil {
			AfterCommit(ctx, signalsOf(m).BumpVersion)
		}
		return v, err
	})
}

// BumpKeysOnCommit is the API keys' hook: once a change to what decides
// whether a key works commits, its store's KeysVersion moves on, and the
// key cache reads such a key again at once.
func BumpKeysOnCommit(next entgo.Mutator) entgo.Mutator {
	return entgo.MutateFunc(func(ctx context.Context, m entgo.Mutation) (entgo.Value, error) {
		v, err := next.Mutate(ctx, m)
		if err == nil && keyDecisive(m) {
			AfterCommit(ctx, signalsOf(m).BumpKeysVersion)
		}
		return v, err
	})
}

// signalsOf is the signals of the store m's client belongs to (nil, which
// signals nothing, for a client opened without them).
func signalsOf(m entgo.Mutation) *signals.Set {
	if cm, ok := m.(interface{ Client() *ent.Client }); ok {
		return cm.Client().Signals
	}
	return nil
}

// keyDecisive reports whether m changes what decides whether a credential
// works or what it may do: a key's own fields; the deactivation or role of
// the user a key or session is bound to; a session's end (a delete).
func keyDecisive(m entgo.Mutation) bool {
	for _, f := range []string{"revoked_at", "expires_at", "scopes", "replaced_by", "deactivated_at", "role"} {
		if _, set := m.Field(f); set || m.FieldCleared(f) {
			return true
		}
	}
	return m.Op().Is(entgo.OpDelete | entgo.OpDeleteOne)
}
