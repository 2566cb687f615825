package lending_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/lending"
)

// TestFundingFindsItsStageAsTheOrganizationOrdersThem funds a lead where
// the pipeline's won stages are not simple: two at one position (the one
// of the smaller id is first), or none (the lead stays where it is and
// records its conversion). On SQLite the stages come with the read of the
// lead, on PostgreSQL from a query of their own; both answer the same.
func TestFundingFindsItsStageAsTheOrganizationOrdersThem(t *testing.T) {
	won := func(t *testing.T, e *env) *ent.PipelineStage {
		for _, st := range e.a.stages {
			if st.SemanticSlot == pipelinestage.SemanticSlotWon {
				return st
			}
		}
		t.Fatal("the default pipeline has no won stage")
		return nil
	}
	fund := func(t *testing.T, e *env) *ent.Lead {
		l := e.lendingLead(t)
		err := e.tx(e.a.as, func(ctx context.Context, c *ent.Client) error {
			_, err := lending.Fund(ctx, c, lending.Funding{ApplicationID: l.approved})
			return err
		})
		if err != nil {
			t.Fatalf("funding: %v", err)
		}
		got, err := e.db.Client.Lead.Get(rule.SystemContext(context.Background()), l.lead)
		if err != nil {
			t.Fatal(err)
		}
		if got.ConvertedAt == nil {
			t.Error("the funded lead has no convertedAt")
		}
		return got
	}
	t.Run("TwoAtOnePosition", func(t *testing.T) {
		e := newEnv(t)
		first := won(t, e)
		var twin *ent.PipelineStage
		err := e.tx(e.a.as, func(ctx context.Context, c *ent.Client) (err error) {
			twin, err = c.PipelineStage.Create().SetStageKey("won_too").SetStageLabel("Won too").
				SetSemanticSlot(pipelinestage.SemanticSlotWon).SetPosition(first.Position).Save(ctx)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		want := first.ID
		if bytes.Compare(twin.ID[:], first.ID[:]) < 0 {
			want = twin.ID
		}
		if got := fund(t, e); got.StageID != want {
			t.Errorf("funded lead in stage %s, want %s (of %s and %s, one position)", got.StageID, want, first.ID, twin.ID)
		}
	})
	t.Run("NoneOfTheSlot", func(t *testing.T) {
		e := newEnv(t)
		err := e.tx(e.a.as, func(ctx context.Context, c *ent.Client) error {
			return c.PipelineStage.UpdateOneID(won(t, e).ID).SetSemanticSlot(pipelinestage.SemanticSlotLost).Exec(ctx)
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := fund(t, e); got.StageID != e.a.stages[0].ID {
			t.Errorf("funded lead in stage %s, want it left in %s: no stage is won", got.StageID, e.a.stages[0].ID)
		}
	})
}
