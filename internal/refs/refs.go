// Package refs tells readers that cache pipeline stages or users (the lead
// renderer in graph) that one of them changed in this process: every
// committed write of either bumps Version.
//
// It imports only internal/commit.
package refs

import (
	"context"

	"entgo.io/ent"

	"github.com/lendingpipe/svc/internal/commit"
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
			commit.After(ctx, version.bump)
		}
		return v, err
	})
}
