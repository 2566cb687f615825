// Package stagesread carries pipeline stages that the code making a lead
// write read in the same transaction to choose the lead's stage (a
// lending flow moving its lead, a create's first stage, the seeder): the
// lead hooks take the new stage's organization and the stages' labels
// from them instead of reading the stages again.
//
// It is a leaf: it carries the few fields the hooks use, not ent's rows.
package stagesread

import (
	"context"
	"slices"

	"github.com/google/uuid"
)

// Stage is what the lead hooks use of a stage read by the caller.
type Stage struct {
	ID, OrgID uuid.UUID
	// Label is set when a lead moves from or to the stage.
	Label string
}

type key struct{}

// With marks ctx with stages, besides those it carries.
func With(ctx context.Context, stages ...Stage) context.Context {
	carried, _ := ctx.Value(key{}).([]Stage)
	return context.WithValue(ctx, key{}, append(slices.Clip(carried), stages...))
}

// Of is the stage id as ctx carries it, if it does.
func Of(ctx context.Context, id uuid.UUID) (Stage, bool) {
	stages, _ := ctx.Value(key{}).([]Stage)
	for _, st := range stages {
		if st.ID == id {
			return st, true
		}
	}
	return Stage{}, false
}
