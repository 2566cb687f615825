package lending_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
)

// org is an organization of a test database and a caller acting for it
// with every scope, with its pipeline in order.
type org struct {
	*ent.Organization
	as     context.Context
	stages []*ent.PipelineStage
}

// env is a real database (SQLite, or PostgreSQL when SVC_TEST_DATABASE_URL
// is set) with an organization.
type env struct {
	db *store.DB
	a  *org
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := storetest.Open(t)
	ctx := context.Background()
	o, _, err := store.CreateOrganization(ctx, db.Client, "Acme Brokers")
	if err != nil {
		t.Fatal(err)
	}
	stages, err := db.Client.PipelineStage.Query().Where(pipelinestage.OrgID(o.ID)).
		Order(pipelinestage.ByPosition()).All(rule.SystemContext(ctx))
	if err != nil || len(stages) < 3 {
		t.Fatalf("the default pipeline: %d stages, %v", len(stages), err)
	}
	as := viewer.NewContext(ctx, viewer.Viewer{OrgID: o.ID, KeyID: uuid.New(), Scopes: viewer.AllScopes})
	return &env{db: db, a: &org{Organization: o, as: as, stages: stages}}
}

// tx runs fn in one transaction as the operations do (hooks join it
// through the context); it rolls back when fn fails.
func (e *env) tx(ctx context.Context, fn func(ctx context.Context, c *ent.Client) error) error {
	return store.WithTx(ctx, e.db.Client, fn)
}
