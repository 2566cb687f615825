package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
)

// DemoBook writes the demo organization's lending book (its lenders,
// applications, deal and payment) in the demo's transaction, counting what
// it makes in demo. It is lending.CreateDemoBook, which writes through the
// lending flows: they sit above the store.
type DemoBook func(ctx context.Context, tx *ent.Client, org uuid.UUID, leads map[string]*ent.Lead, demo *Demo) error

// TemplateLender creates the lender of the seeded panel named name in org.
func TemplateLender(ctx context.Context, tx *ent.Client, org uuid.UUID, name string) (*ent.Lender, error) {
	t, ok := lenderTemplateNamed(name)
	if !ok {
		return nil, fmt.Errorf("no lender template %q", name)
	}
	return createLender(ctx, tx, org, t, nil)
}
