// Package stagesread carries pipeline stages that the code making a lead
// write read in the same transaction to choose the lead's stage (a
// lending flow moving its lead, a create's first stage, the seeder): the
// lead hooks take the new stage's organization and the stages' labels
// from them instead of reading the stages again.
//
// It imports the generated ent package only.
package stagesread

import (
	"context"
	"slices"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
)

type key struct{}

// With marks ctx with stages, besides those it carries, each read with at
// least its id and organization, and its label when a lead moves from or
// to it.
func With(ctx context.Context, stages ...*ent.PipelineStage) context.Context {
	carried, _ := ctx.Value(key{}).([]*ent.PipelineStage)
	return context.WithValue(ctx, key{}, append(slices.Clip(carried), stages...))
}

// Of is the stage id as ctx carries it, if it does.
func Of(ctx context.Context, id uuid.UUID) (*ent.PipelineStage, bool) {
	stages, _ := ctx.Value(key{}).([]*ent.PipelineStage)
	for _, st := range stages {
		if st.ID == id {
			return st, true
		}
	}
	return nil, false
}
