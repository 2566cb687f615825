package leads

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/rollup"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Set gives a new lead its fields: an input's (ent.CreateLeadInput's
// Mutate), an import's job, or what only a system writer names (the
// organization).
type Set func(m *ent.LeadMutation)

// Create creates a lead from in and what set adds: it starts in its
// organization's first stage unless in names one, records who created
// it, is counted in its stage and on its day, and its history begins. The hooks check its
// fields and references and emit lead.created.
func Create(ctx context.Context, c *ent.Client, in ent.CreateLeadInput, set ...Set) (*ent.Lead, error) {
	created, err := CreateMany(ctx, c, append([]Set{in.Mutate}, set...))
	if err != nil {
		return nil, err
	}
	return created[0], nil
}

// CreateMany creates a lead for each of leads (the fields each sets), all
// in one statement, or none: each as Create creates one.
func CreateMany(ctx context.Context, c *ent.Client, leads ...[]Set) ([]*ent.Lead, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) ([]*ent.Lead, error) {
		return createMany(ctx, c, leads)
	})
}

func createMany(ctx context.Context, c *ent.Client, leads [][]Set) ([]*ent.Lead, error) {
	if err := writable(ctx); err != nil {
		return nil, err
	}
	builders := make([]*ent.LeadCreate, len(leads))
	var firsts []*ent.PipelineStage
	for i, sets := range leads {
		b := c.Lead.Create()
		for _, set := range sets {
			set(b.Mutation())
		}
		first, err := createDefaults(ctx, c, b.Mutation())
		if err != nil {
			return nil, err
		}
		if first != nil {
			firsts = append(firsts, first)
		}
		builders[i] = b
	}
	// The hooks check a first stage against its read here rather than
	// reading it again.
	created, err := insert(WithStagesRead(ctx, firsts...), c, builders)
	if err != nil {
		return nil, err
	}
	for _, l := range created {
		if err := rollup.LeadCreated(ctx, c, l); err != nil {
			return nil, err
		}
	}
	if err := recordCreated(ctx, c, created); err != nil {
		return nil, err
	}
	// A new lead is no agent's current lead: no board row shows it yet.
	return created, nil
}

// createDefaults starts a lead in its organization's first stage when it
// names none (SPEC 3.1), and records who created it. It answers the first
// stage when it read one.
func createDefaults(ctx context.Context, c *ent.Client, m *ent.LeadMutation) (*ent.PipelineStage, error) {
	v, isViewer := viewer.FromContext(ctx)
	if isViewer && v.Actor() != "" {
		m.SetCreatedBy(v.Actor())
	}
	if _, ok := m.StageID(); ok {
		return nil, nil
	}
	org, _ := m.OrgID()
	if isViewer {
		org = v.OrgID // the organization stamped on the row
	}
	// A batch of creates (an import's) reads it once.
	first, err := rollup.FirstStage(ctx, org, func() (uuid.UUID, error) {
		return c.PipelineStage.Query().Where(pipelinestage.OrgID(org)).
			Order(pipelinestage.ByPosition()).FirstID(rule.SystemContext(ctx))
	})
	if err != nil {
		return nil, fmt.Errorf("finding the first pipeline stage: %w", err)
	}
	m.SetStageID(first)
	return &ent.PipelineStage{ID: first, OrgID: org}, nil
}

// insert writes the leads: one INSERT of one row or of them all.
func insert(ctx context.Context, c *ent.Client, builders []*ent.LeadCreate) ([]*ent.Lead, error) {
	if len(builders) == 1 {
		l, err := builders[0].Save(ctx)
		if err != nil {
			return nil, err
		}
		return []*ent.Lead{l}, nil
	}
	return c.Lead.CreateBulk(builders...).Save(ctx)
}

// Fields is the Set of the fields b was given, for a writer that builds
// its leads with the generated builder (the seeder): it creates them here,
// with their defaults and counts.
func Fields(b *ent.LeadCreate) Set {
	return func(m *ent.LeadMutation) {
		from := b.Mutation()
		if id, ok := from.ID(); ok {
			m.SetID(id)
		}
		for _, f := range from.Fields() {
			v, _ := from.Field(f)
			// The field is the builder's own: a value of its type.
			_ = m.SetField(f, v)
		}
	}
}
