package schema_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
	"github.com/lendingpipe/svc/seed"
)

// sameData fails unless an event's data is want, as a receiver would read
// it (ids as strings).
func sameData(t *testing.T, ev *ent.WebhookEvent, want map[string]any) {
	t.Helper()
	if !reflect.DeepEqual(ev.Data, want) {
		t.Errorf("%s data =\n  %v\nwant\n  %v", ev.EventType, ev.Data, want)
	}
}

// Creating a lead writes lead.created with the catalog's payload: the
// lead's fields as stored, the stage it starts in and who created it.
func TestLeadCreateEmitsLeadCreated(t *testing.T) {
	e := newEnv(t)
	var l *ent.Lead
	evs := e.newEvents(t, e.a, func() {
		l = e.createLead(t, e.a, func(c *ent.LeadCreate) {
			c.SetBusinessName("Corner Bakery").SetContactFirstName("Ada").SetEmail("ada@bakery.example").
				SetSource(lead.SourceAPI).SetPriority(lead.PriorityHigh)
		})
	})
	if got := types(evs); !slices.Equal(got, []string{event.LeadCreated}) {
		t.Fatalf("events = %v, want [lead.created]", got)
	}
	sameData(t, evs[0], map[string]any{
		"leadId": l.ID.String(), "orgId": e.a.ID.String(), "businessName": "Corner Bakery",
		"contactFirstName": "Ada", "contactLastName": nil, "email": "ada@bakery.example",
		"source": "api", "priority": "high", "stageId": e.a.stages[0].ID.String(), "advisorId": nil,
	})
	if evs[0].Dispatched || evs[0].Depth != 0 {
		t.Errorf("a new event is dispatched = %v at depth %d, want undispatched at 0", evs[0].Dispatched, evs[0].Depth)
	}
	if n := len(e.events(t, e.b)); n != 0 {
		t.Errorf("the other organization has %d events", n)
	}
}

// A change caused by an automation run carries the run's depth, so chains
// of event-triggered automations stop.
func TestEventsCarryTheAutomationDepth(t *testing.T) {
	e := newEnv(t)
	as := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: e.a.ID, Scopes: viewer.AllScopes, Depth: 2})
	evs := e.newEvents(t, e.a, func() {
		err := e.tx(as, func(ctx context.Context, c *ent.Client) error {
			_, err := leads.Create(ctx, c, ent.CreateLeadInput{}, leads.Fields(c.Lead.Create().SetBusinessName("Chained")))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	if len(evs) != 1 || evs[0].Depth != 2 {
		t.Fatalf("events = %v, want one at depth 2", types(evs))
	}
}

// A stage move writes lead.status_changed and lead.stage_changed with the
// same payload, and no lead.updated: the stage is not a detail.
func TestStageMoveEmitsStatusAndStageChanged(t *testing.T) {
	e := newEnv(t)
	l := e.createLead(t, e.a, func(c *ent.LeadCreate) { c.SetBusinessName("Mover") })
	from, to := e.a.stages[0], e.a.stages[2]
	evs := e.newEvents(t, e.a, func() {
		if _, err := e.updateLead(e.a.as, l.ID, func(u *ent.LeadUpdateOne) { u.SetStageID(to.ID) }); err != nil {
			t.Fatal(err)
		}
	})
	if got := types(evs); !slices.Equal(got, []string{event.LeadStatusChanged, event.LeadStageChanged}) {
		t.Fatalf("events = %v, want [lead.status_changed lead.stage_changed]", got)
	}
	want := map[string]any{
		"leadId": l.ID.String(), "orgId": e.a.ID.String(),
		"previousStageId": from.ID.String(), "previousStageLabel": from.StageLabel,
		"newStageId": to.ID.String(), "newStageLabel": to.StageLabel, "changedBy": e.a.key.String(),
	}
	sameData(t, evs[0], want)
	sameData(t, evs[1], want)
}

// Assigning an advisor writes lead.assigned naming the previous one; the
// advisor is not a detail either.
func TestAdvisorChangeEmitsLeadAssigned(t *testing.T) {
	e := newEnv(t)
	first := newUser(t, e, e.a, "first@acme.example")
	second := newUser(t, e, e.a, "second@acme.example")
	l := e.createLead(t, e.a, func(c *ent.LeadCreate) { c.SetBusinessName("Assigned") })
	for _, step := range []struct {
		to       *ent.User
		previous any
	}{{first, nil}, {second, first.ID.String()}} {
		evs := e.newEvents(t, e.a, func() {
			if _, err := e.updateLead(e.a.as, l.ID, func(u *ent.LeadUpdateOne) { u.SetPrimaryAdvisorID(step.to.ID) }); err != nil {
				t.Fatal(err)
			}
		})
		if got := types(evs); !slices.Equal(got, []string{event.LeadAssigned}) {
			t.Fatalf("events = %v, want [lead.assigned]", got)
		}
		sameData(t, evs[0], map[string]any{"leadId": l.ID.String(), "orgId": e.a.ID.String(),
			"advisorId": step.to.ID.String(), "previousAdvisorId": step.previous, "assignedBy": e.a.key.String()})
	}
}

func newUser(t *testing.T, e *env, o *org, email string) *ent.User {
	t.Helper()
	u, err := store.CreateUser(context.Background(), e.db.Client, store.UserSpec{OrgID: o.ID, First: "Al", Last: "Advisor", Email: email, Role: "advisor"})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// A change of details writes lead.updated naming the changed fields in API
// spelling, sorted; an update that changes nothing but bookkeeping writes
// nothing.
func TestDetailsChangeEmitsLeadUpdated(t *testing.T) {
	e := newEnv(t)
	l := e.createLead(t, e.a, func(c *ent.LeadCreate) { c.SetBusinessName("Details") })
	evs := e.newEvents(t, e.a, func() {
		_, err := e.updateLead(e.a.as, l.ID, func(u *ent.LeadUpdateOne) {
			u.SetIndustry("Freight").SetMonthlyRevenue("1200.50").SetTags([]string{"vip"}).
				SetCustomFields(map[string]any{"loanPurpose": "equipment"})
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	if got := types(evs); !slices.Equal(got, []string{event.LeadUpdated}) {
		t.Fatalf("events = %v, want [lead.updated]", got)
	}
	sameData(t, evs[0], map[string]any{"leadId": l.ID.String(), "orgId": e.a.ID.String(),
		"changedFields": []any{"customFields", "industry", "monthlyRevenue", "tags"}, "updatedBy": e.a.key.String()})

	evs = e.newEvents(t, e.a, func() {
		if _, err := e.updateLead(e.a.as, l.ID, func(*ent.LeadUpdateOne) {}); err != nil {
			t.Fatal(err)
		}
	})
	if len(evs) != 0 {
		t.Errorf("an update changing nothing wrote %v", types(evs))
	}
}

// Contacts announce their creation and every change, with the contact's
// fields as stored.
func TestContactEvents(t *testing.T) {
	e := newEnv(t)
	var ct *ent.Contact
	evs := e.newEvents(t, e.a, func() {
		err := e.tx(e.a.as, func(ctx context.Context, c *ent.Client) error {
			var err error
			ct, err = c.Contact.Create().SetFirstName("Cleo").SetEmail("cleo@contact.example").Save(ctx)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	if got := types(evs); !slices.Equal(got, []string{event.ContactCreated}) {
		t.Fatalf("events = %v, want [contact.created]", got)
	}
	sameData(t, evs[0], map[string]any{"contactId": ct.ID.String(), "orgId": e.a.ID.String(),
		"firstName": "Cleo", "lastName": nil, "email": "cleo@contact.example", "phone": nil})

	evs = e.newEvents(t, e.a, func() {
		err := e.tx(e.a.as, func(ctx context.Context, c *ent.Client) error {
			return c.Contact.UpdateOneID(ct.ID).SetPhone("+15550111").Exec(ctx)
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	if got := types(evs); !slices.Equal(got, []string{event.ContactUpdated}) {
		t.Fatalf("events = %v, want [contact.updated]", got)
	}
	sameData(t, evs[0], map[string]any{"contactId": ct.ID.String(), "orgId": e.a.ID.String(),
		"firstName": "Cleo", "lastName": nil, "email": "cleo@contact.example", "phone": "+15550111"})
}

// An event exists only if its change committed: a transaction that rolls
// back takes its events with it, whether the change itself or a later step
// failed.
func TestRolledBackTransactionWritesNoEvent(t *testing.T) {
	e := newEnv(t)
	l := e.createLead(t, e.a, func(c *ent.LeadCreate) { c.SetBusinessName("Kept") })
	later := errors.New("a later step failed")
	evs := e.newEvents(t, e.a, func() {
		err := e.tx(e.a.as, func(ctx context.Context, c *ent.Client) error {
			if _, err := leads.Create(ctx, c, ent.CreateLeadInput{}, leads.Fields(c.Lead.Create().SetBusinessName("Gone"))); err != nil {
				return err
			}
			if err := c.Lead.UpdateOneID(l.ID).SetStageID(e.a.stages[1].ID).SetIndustry("Rolled back").Exec(ctx); err != nil {
				return err
			}
			if err := c.Contact.Create().SetFirstName("Gone").Exec(ctx); err != nil {
				return err
			}
			return later
		})
		if !errors.Is(err, later) {
			t.Fatalf("err = %v, want the later step's", err)
		}
		// A change the hooks refuse fails its own transaction whole.
		err = e.tx(e.a.as, func(ctx context.Context, c *ent.Client) error {
			if _, err := leads.Create(ctx, c, ent.CreateLeadInput{}, leads.Fields(c.Lead.Create().SetBusinessName("Also gone"))); err != nil {
				return err
			}
			return c.Lead.Create().SetStageID(e.b.stages[0].ID).Exec(ctx)
		})
		wantInvalid(t, err, "stageId")
	})
	if len(evs) != 0 {
		t.Errorf("rolled-back transactions left %v in the outbox", types(evs))
	}
	n, err := e.db.Client.Lead.Query().Count(rule.SystemContext(context.Background()))
	if err != nil || n != 1 {
		t.Errorf("%d leads (%v), want the 1 committed", n, err)
	}
}

// The seeding command's bulk load writes no events: a million seeded leads
// must not become a million deliveries.
func TestBulkLoadEmitsNothing(t *testing.T) {
	e := newEnv(t)
	bulk := viewer.WithBulkLoad(e.a.as)
	evs := e.newEvents(t, e.a, func() {
		err := e.tx(bulk, func(ctx context.Context, c *ent.Client) error {
			l, err := c.Lead.Create().SetBusinessName("Seeded").SetStageID(e.a.stages[0].ID).Save(ctx)
			if err != nil {
				return err
			}
			if err := c.Lead.UpdateOneID(l.ID).SetStageID(e.a.stages[1].ID).SetIndustry("Seeded").Exec(ctx); err != nil {
				return err
			}
			return c.Contact.Create().SetFirstName("Seeded").Exec(ctx)
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := seed.Leads(viewer.WithBulkLoad(context.Background()), e.db, e.a.ID, 20, nil); err != nil {
			t.Fatal(err)
		}
	})
	if len(evs) != 0 {
		t.Errorf("a bulk load wrote %d events: %v", len(evs), types(evs))
	}
	// The same changes outside a bulk load are announced.
	evs = e.newEvents(t, e.a, func() { e.createLead(t, e.a, func(c *ent.LeadCreate) { c.SetBusinessName("Announced") }) })
	if len(evs) != 1 {
		t.Errorf("a lead created outside a bulk load wrote %v", types(evs))
	}
}
