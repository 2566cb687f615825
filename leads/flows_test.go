package leads_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/leadcount"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
)

// env is a real database (SQLite, or PostgreSQL when SVC_TEST_DATABASE_URL
// is set) with an organization and a caller acting for it.
type env struct {
	db     *store.DB
	org    uuid.UUID
	as     context.Context
	stages []*ent.PipelineStage
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
	if err != nil || len(stages) < 2 {
		t.Fatalf("the default pipeline: %d stages, %v", len(stages), err)
	}
	as := viewer.NewContext(ctx, viewer.Viewer{OrgID: o.ID, KeyID: uuid.New(), Scopes: viewer.AllScopes})
	return &env{db: db, org: o.ID, as: as, stages: stages}
}

// counted is how many leads the stage's kept count holds.
func (e *env) counted(t *testing.T, stage uuid.UUID) int {
	t.Helper()
	rows, err := e.db.Client.LeadCount.Query().Where(leadcount.OrgID(e.org), leadcount.StageID(stage)).
		All(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rows {
		n += r.N
	}
	return n
}

// events are the types of the organization's outbox events about lead id.
func (e *env) events(t *testing.T, id uuid.UUID) []string {
	t.Helper()
	evs, err := e.db.Client.WebhookEvent.Query().Where(webhookevent.OrgID(e.org)).
		Order(webhookevent.ByOccurredAt(), webhookevent.ByID()).All(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs {
		if ev.Data["leadId"] == id.String() {
			out = append(out, ev.EventType)
		}
	}
	return out
}

func name(s string) *string { return &s }

// isCode reports whether err is the service's error of code.
func isCode(err error, code string) bool {
	e, ok := apperr.As(err)
	return ok && e.Code == code
}

// A created lead starts in the first stage, records its creator, is
// counted in its stage and announced.
func TestCreateDefaultsCountsAndAnnounces(t *testing.T) {
	e := newEnv(t)
	first := e.stages[0].ID
	l, err := leads.Create(e.as, e.db.Client, ent.CreateLeadInput{BusinessName: name("Acme Bakery")})
	if err != nil {
		t.Fatal(err)
	}
	if l.StageID != first || l.CreatedBy == nil || *l.CreatedBy == "" {
		t.Errorf("stage %s, createdBy %v; want the first stage %s and the caller", l.StageID, l.CreatedBy, first)
	}
	if n := e.counted(t, first); n != 1 {
		t.Errorf("first stage counts %d leads, want 1", n)
	}
	if got := e.events(t, l.ID); !slices.Equal(got, []string{event.LeadCreated}) {
		t.Errorf("events %v, want lead.created", got)
	}
}

// CreateMany writes every lead or none.
func TestCreateManyIsAllOrNothing(t *testing.T) {
	e := newEnv(t)
	ok := func(m *ent.LeadMutation) { m.SetBusinessName("Fine") }
	bad := func(m *ent.LeadMutation) { m.SetStageID(uuid.New()) } // no such stage
	if _, err := leads.CreateMany(e.as, e.db.Client, []leads.Set{ok}, []leads.Set{bad}); err == nil {
		t.Fatal("a batch with an invalid lead was created")
	}
	if n := e.counted(t, e.stages[0].ID); n != 0 {
		t.Errorf("a refused batch counted %d leads", n)
	}
	created, err := leads.CreateMany(e.as, e.db.Client, []leads.Set{ok}, []leads.Set{ok})
	if err != nil || len(created) != 2 {
		t.Fatalf("created %d, %v; want 2", len(created), err)
	}
	if n := e.counted(t, e.stages[0].ID); n != 2 {
		t.Errorf("first stage counts %d leads, want 2", n)
	}
}

// A move takes the lead from one stage's count to the other's, and is
// announced as a status and a stage change; a move to its own stage is
// nothing.
func TestMoveStageCountsAndAnnounces(t *testing.T) {
	e := newEnv(t)
	from, to := e.stages[0].ID, e.stages[1].ID
	l, err := leads.Create(e.as, e.db.Client, ent.CreateLeadInput{BusinessName: name("Mover")})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := leads.MoveStage(e.as, e.db.Client, l.ID, to); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := e.counted(t, from), e.counted(t, to); a != 0 || b != 1 {
		t.Errorf("counts %d, %d; want 0, 1", a, b)
	}
	want := []string{event.LeadCreated, event.LeadStatusChanged, event.LeadStageChanged}
	if got := e.events(t, l.ID); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}

// BulkUpdate changes every lead or none, each announced as its own
// update is.
func TestBulkUpdateIsAllOrNothingWithEachLeadsEvents(t *testing.T) {
	e := newEnv(t)
	var ids []uuid.UUID
	for _, n := range []string{"One", "Two"} {
		l, err := leads.Create(e.as, e.db.Client, ent.CreateLeadInput{BusinessName: name(n)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID)
	}
	high := lead.PriorityHigh
	in := leads.BulkChange{Priority: &high}
	if _, err := leads.BulkUpdate(e.as, e.db.Client, append(slices.Clone(ids), uuid.New()), in); !isCode(err, apperr.NotFound) {
		t.Fatalf("a bulk update naming a missing lead: err = %v, want not found", err)
	}
	for _, id := range ids {
		if got := e.events(t, id); !slices.Equal(got, []string{event.LeadCreated}) {
			t.Errorf("a refused bulk update left %v", got)
		}
	}
	updated, err := leads.BulkUpdate(e.as, e.db.Client, ids, in)
	if err != nil || len(updated) != 2 {
		t.Fatalf("updated %d, %v; want 2", len(updated), err)
	}
	for i, id := range ids {
		if updated[i].Priority != high {
			t.Errorf("lead %d: priority %v", i, updated[i].Priority)
		}
		if got := e.events(t, id); !slices.Equal(got, []string{event.LeadCreated, event.LeadUpdated}) {
			t.Errorf("lead %d: events %v, want lead.created, lead.updated", i, got)
		}
	}
}
