package schema_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/event/eventtest"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
)

// org is an organization of a test database and a caller acting for it.
type org struct {
	*ent.Organization
	// key is the caller's API key id: the actor its changes name.
	key uuid.UUID
	// as acts for the organization with every scope.
	as     context.Context
	stages []*ent.PipelineStage
}

// env is a real database (SQLite, or PostgreSQL when SVC_TEST_DATABASE_URL
// is set) with two organizations, so rules that keep them apart can be seen
// to hold.
type env struct {
	db   *store.DB
	a, b *org
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := storetest.Open(t)
	return &env{db: db, a: newOrg(t, db, "Acme Brokers"), b: newOrg(t, db, "Beta Lending")}
}

func newOrg(t *testing.T, db *store.DB, name string) *org {
	t.Helper()
	o, _, err := store.CreateOrganization(context.Background(), db.Client, name)
	if err != nil {
		t.Fatal(err)
	}
	key := uuid.New()
	stages, err := db.Client.PipelineStage.Query().Where(pipelinestage.OrgID(o.ID)).
		Order(pipelinestage.ByPosition()).All(rule.SystemContext(context.Background()))
	if err != nil || len(stages) < 3 {
		t.Fatalf("the default pipeline: %d stages, %v", len(stages), err)
	}
	return &org{Organization: o, key: key, stages: stages,
		as: viewer.NewContext(context.Background(), viewer.Viewer{OrgID: o.ID, KeyID: key, Scopes: viewer.AllScopes})}
}

// tx runs fn in one transaction as the operations do (hooks join it
// through the context); it rolls back when fn fails.
func (e *env) tx(ctx context.Context, fn func(ctx context.Context, c *ent.Client) error) error {
	return store.WithTx(ctx, e.db.Client, fn)
}

// createLead creates a lead for o in its own transaction.
func (e *env) createLead(t *testing.T, o *org, set func(*ent.LeadCreate)) *ent.Lead {
	t.Helper()
	var l *ent.Lead
	err := e.tx(o.as, func(ctx context.Context, c *ent.Client) error {
		create := c.Lead.Create()
		set(create)
		var err error
		l, err = leads.Create(ctx, c, ent.CreateLeadInput{}, leads.Fields(create))
		return err
	})
	if err != nil {
		t.Fatalf("creating lead: %v", err)
	}
	return l
}

// updateLead applies set to the lead in its own transaction.
func (e *env) updateLead(ctx context.Context, id uuid.UUID, set func(*ent.LeadUpdateOne)) (*ent.Lead, error) {
	var l *ent.Lead
	err := e.tx(ctx, func(ctx context.Context, c *ent.Client) error {
		u := c.Lead.UpdateOneID(id)
		set(u)
		var err error
		l, err = u.Save(ctx)
		return err
	})
	return l, err
}

// events returns o's outbox events, oldest first.
func (e *env) events(t *testing.T, o *org) []*ent.WebhookEvent {
	t.Helper()
	evs, err := e.db.Client.WebhookEvent.Query().Where(webhookevent.OrgID(o.ID)).
		Order(webhookevent.ByOccurredAt(), webhookevent.ByID()).All(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// newEvents returns the events of o written by fn, each checked against
// the catalog's schema of its type.
func (e *env) newEvents(t *testing.T, o *org, fn func()) []*ent.WebhookEvent {
	t.Helper()
	before := len(e.events(t, o))
	fn()
	evs := e.events(t, o)[before:]
	for _, ev := range evs {
		if err := eventtest.Check(ev.EventType, ev.Data); err != nil {
			t.Errorf("%v\npayload: %v", err, ev.Data)
		}
	}
	return evs
}

// types lists the events' types in order.
func types(evs []*ent.WebhookEvent) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.EventType
	}
	return out
}

// wantInvalid fails unless err is a VALIDATION_ERROR naming field.
func wantInvalid(t *testing.T, err error, field string) {
	t.Helper()
	var e *apperr.Error
	if !errors.As(err, &e) || e.Code != apperr.Validation || e.Field != field {
		t.Errorf("err = %v, want a validation error naming %s", err, field)
	}
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }
