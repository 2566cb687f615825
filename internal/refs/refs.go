// Package refs tells readers that cache pipeline stages or users (the lead
// renderer in graph), or API keys (the key cache), that one of them
// changed in this process: every committed write of a stage or a user
// bumps Version, and every change to what decides whether a key works
// bumps KeysVersion.
//
// It imports only internal/commit.
package refs

import (
	"context"

	"entgo.io/ent"

	"github.com/lendingpipe/svc/events"
)

var version versionCounter

// Version changes after every committed change to a stage or a user.
func Version() int64 { return version.load() }

// BumpOnCommit is an ent hook for the schemas whose rows are cached: once
// the mutation's transaction commits, Version moves on.
func BumpOnCommit(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		v, err := next.Mutate(ctx, m)
		if err == nil {
			events.AfterCommit(ctx, version.bump)
		}
		return v, err
	})
}

var keysVersion versionCounter

// KeysVersion changes after every committed change to an API key that
// decides whether it works: a revocation, a rotation, a new expiry or new
// scopes. The key cache reads such a key again at once.
func KeysVersion() int64 { return keysVersion.load() }

// BumpKeysOnCommit is the API keys' hook: once a change to what decides
// whether a key works commits, KeysVersion moves on.
func BumpKeysOnCommit(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		v, err := next.Mutate(ctx, m)
		if err == nil && keyDecisive(m) {
			events.AfterCommit(ctx, keysVersion.bump)
		}
		return v, err
	})
}

// keyDecisive reports whether m changes what decides whether a key works.
func keyDecisive(m ent.Mutation) bool {
	for _, f := range []string{"revoked_at", "expires_at", "scopes", "replaced_by"} {
		if _, set := m.Field(f); set || m.FieldCleared(f) {
			return true
		}
	}
	return m.Op().Is(ent.OpDelete | ent.OpDeleteOne)
}
