package myday_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/errclass"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
	"github.com/lendingpipe/svc/lending"
	"github.com/lendingpipe/svc/myday"
	"github.com/lendingpipe/svc/tasks"
)

// now is 23:30 on Monday 9 March 2026 in New York (UTC-4 since the 8th),
// already Tuesday the 10th in UTC.
var now = time.Date(2026, 3, 10, 3, 30, 0, 0, time.UTC)

type env struct {
	c                   *ent.Client
	org                 *ent.Organization
	lead                *ent.Lead
	key, ada, bob, boss context.Context
	adaID, bobID        uuid.UUID
}

func newEnv(t *testing.T, c *ent.Client, zone string) *env {
	t.Helper()
	ctx := apitime.WithClock(context.Background(), func() time.Time { return now })
	o, _, err := store.CreateOrganization(ctx, c, "Acme Brokers "+uuid.NewString()[:8])
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Organization.UpdateOne(o).SetTimezone(zone).Exec(rule.SystemContext(ctx)); err != nil {
		t.Fatal(err)
	}
	e := &env{c: c, org: o}
	e.key = viewer.NewContext(ctx, viewer.Viewer{OrgID: o.ID, KeyID: uuid.New(),
		Scopes: []string{viewer.ScopeLeadsRead, viewer.ScopeLeadsWrite}})
	person := func(first, role string) (context.Context, uuid.UUID) {
		u, err := c.User.Create().SetOrgID(o.ID).SetFirstName(first).SetLastName("Test").
			SetEmail(strings.ToLower(first) + "." + o.ID.String()[:8] + "@example.com").SetRole(user.Role(role)).
			Save(rule.SystemContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		return viewer.NewContext(ctx, viewer.Viewer{OrgID: o.ID, UserID: u.ID, SessionID: uuid.New(),
			Scopes: viewer.RoleScopes[role]}), u.ID
	}
	e.ada, e.adaID = person("Ada", viewer.RoleAdvisor)
	e.bob, e.bobID = person("Bob", viewer.RoleAdvisor)
	e.boss, _ = person("Boss", viewer.RoleAdmin)
	name := "My Day Bakery"
	if e.lead, err = leads.Create(e.key, c, ent.CreateLeadInput{BusinessName: &name}); err != nil {
		t.Fatal(err)
	}
	return e
}

// task gives a task due at due to the user, as the key.
func (e *env) task(t *testing.T, userID uuid.UUID, due time.Time) uuid.UUID {
	t.Helper()
	tk, err := tasks.Create(e.key, e.c, tasks.Input{LeadID: e.lead.ID, Title: "x", DueAt: due, AssigneeID: &userID})
	if err != nil {
		t.Fatal(err)
	}
	return tk.ID
}

func ids(t *testing.T, read func() (myday.Tasks, error)) []uuid.UUID {
	t.Helper()
	s, err := read()
	if err != nil {
		t.Fatal(err)
	}
	out := []uuid.UUID{}
	for _, tk := range s.Nodes {
		out = append(out, tk.ID)
	}
	if s.Total < len(out) {
		t.Errorf("total %d under the %d listed", s.Total, len(out))
	}
	return out
}

// Today is the organization's: in New York, 23:30 on the 9th leaves half
// an hour of today; in UTC it is the 10th with most of the day ahead.
func TestTodayInTheOrganizationsZone(t *testing.T) {
	c := storetest.Open(t).Client
	for _, tc := range []struct {
		zone, date string
		laterToday bool // whether a task due at 05:00 UTC is due today
	}{
		{"America/New_York", "2026-03-09", false},
		{"UTC", "2026-03-10", true},
	} {
		t.Run(tc.zone, func(t *testing.T) {
			e := newEnv(t, c, tc.zone)
			overdue := e.task(t, e.adaID, now.Add(-time.Hour))   // 02:30 UTC
			older := e.task(t, e.adaID, now.Add(-48*time.Hour))  // two days ago
			soon := e.task(t, e.adaID, now.Add(15*time.Minute))  // 03:45 UTC: today either way
			later := e.task(t, e.adaID, now.Add(90*time.Minute)) // 05:00 UTC
			e.task(t, e.adaID, now.Add(30*time.Hour))            // tomorrow either way
			e.task(t, e.bobID, now.Add(-time.Hour))              // Bob's
			done := e.task(t, e.adaID, now.Add(-3*time.Hour))    // done: not listed
			if _, err := tasks.Complete(e.ada, e.c, done); err != nil {
				t.Fatal(err)
			}
			d, err := myday.Of(e.ada, e.c, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d.UserID != e.adaID || d.Date != tc.date || d.Timezone != tc.zone {
				t.Errorf("day %+v; want Ada's %s in %s", d, tc.date, tc.zone)
			}
			if got, want := ids(t, func() (myday.Tasks, error) { return myday.Overdue(e.ada, e.c, d) }), []uuid.UUID{older, overdue}; !slices.Equal(got, want) {
				t.Errorf("overdue %v; want %v", got, want)
			}
			want := []uuid.UUID{soon}
			if tc.laterToday {
				want = append(want, later)
			}
			if got := ids(t, func() (myday.Tasks, error) { return myday.DueToday(e.ada, e.c, d) }); !slices.Equal(got, want) {
				t.Errorf("due today %v; want %v", got, want)
			}
			r, err := myday.RenewalsDue(e.ada, e.c, d)
			if err != nil || len(r.Nodes) != 0 || r.Total != 0 || r.Nodes == nil {
				t.Errorf("renewals %+v, %v; want an empty list", r, err)
			}
		})
	}
}

// A section lists at most 100 and counts them all.
func TestSectionsAreCapped(t *testing.T) {
	e := newEnv(t, storetest.Open(t).Client, "UTC")
	sys := rule.SystemContext(e.key)
	builders := make([]*ent.TaskCreate, myday.MaxItems+1)
	for i := range builders {
		builders[i] = e.c.Task.Create().SetOrgID(e.org.ID).SetLeadID(e.lead.ID).SetTitle("x").
			SetAssigneeID(e.adaID).SetDueAt(now.Add(-time.Duration(i+1) * time.Minute))
	}
	if err := e.c.Task.CreateBulk(builders...).Exec(sys); err != nil {
		t.Fatal(err)
	}
	d, err := myday.Of(e.ada, e.c, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := myday.Overdue(e.ada, e.c, d)
	if err != nil || len(s.Nodes) != myday.MaxItems || s.Total != myday.MaxItems+1 {
		t.Errorf("overdue %d listed of %d (%v); want %d of %d", len(s.Nodes), s.Total, err, myday.MaxItems, myday.MaxItems+1)
	}
	if len(s.Nodes) > 0 && !s.Nodes[0].DueAt.Equal(now.Add(-time.Duration(myday.MaxItems+1)*time.Minute)) {
		t.Errorf("the first overdue is due %s; want the longest overdue", s.Nodes[0].DueAt)
	}
}

// Whose day: the acting user's by default; another's needs admin.
func TestWhoseDay(t *testing.T) {
	c := storetest.Open(t).Client
	e := newEnv(t, c, "UTC")
	stranger := newEnv(t, c, "UTC")
	e.task(t, e.bobID, now.Add(-time.Hour))
	code := func(err error) (string, string) {
		if err == nil {
			return "", ""
		}
		x := errclass.Of(err)
		return x.Code, x.Field
	}
	for _, tc := range []struct {
		name      string
		as        context.Context
		user      *uuid.UUID
		code, fld string
		who       uuid.UUID
	}{
		{"OwnByDefault", e.bob, nil, "", "", e.bobID},
		{"OwnNamed", e.bob, &e.bobID, "", "", e.bobID},
		{"AdminReadsAnothers", e.boss, &e.bobID, "", "", e.bobID},
		{"ErrAnothersWithoutAdmin", e.ada, &e.bobID, apperr.Forbidden, "", uuid.Nil},
		{"ErrKeyBoundToNoOneNamesNone", e.key, nil, apperr.Validation, "userId", uuid.Nil},
		{"ErrKeyWithoutAdminNamesSomeone", e.key, &e.bobID, apperr.Forbidden, "", uuid.Nil},
		{"ErrUserOfAnotherOrganization", stranger.boss, &e.bobID, apperr.Validation, "userId", uuid.Nil},
		{"ErrUnknownUser", e.boss, ptr(uuid.New()), apperr.Validation, "userId", uuid.Nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := myday.Of(tc.as, c, tc.user)
			if c, f := code(err); c != tc.code || f != tc.fld {
				t.Fatalf("got %s naming %q (%v); want %q naming %q", c, f, err, tc.code, tc.fld)
			}
			if err != nil {
				return
			}
			if d.UserID != tc.who {
				t.Errorf("the day of %s; want %s", d.UserID, tc.who)
			}
			if s, err := myday.Overdue(tc.as, c, d); err != nil || s.Total != 1 {
				t.Errorf("Bob's overdue %d (%v); want 1", s.Total, err)
			}
		})
	}
	t.Run("ErrNoScope", func(t *testing.T) {
		none := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: e.org.ID, KeyID: uuid.New()})
		if _, err := myday.Of(none, c, nil); err == nil {
			t.Error("a key without scopes read a day")
		} else if c, _ := code(err); c != apperr.Forbidden {
			t.Errorf("got %v; want FORBIDDEN", err)
		}
	})
}

func ptr[T any](v T) *T { return &v }

// Waiting on stipulations: the approved applications of the person's
// leads with one outstanding, until none is.
func TestWaitingOnStipulations(t *testing.T) {
	e := newEnv(t, storetest.Open(t).Client, "UTC")
	all := viewer.NewContext(e.key, viewer.Viewer{OrgID: e.org.ID, KeyID: uuid.New(), Scopes: viewer.AllScopes})
	ld, err := e.c.Lender.Create().SetName("Alpha Capital").Save(all)
	if err != nil {
		t.Fatal(err)
	}
	approve := func(advisor uuid.UUID, conditions ...string) *ent.Application {
		t.Helper()
		name := "Waiting Bakery"
		l, err := leads.Create(all, e.c, ent.CreateLeadInput{BusinessName: &name, PrimaryAdvisorID: &advisor})
		if err != nil {
			t.Fatal(err)
		}
		amount := money.FromCents(1_000_000)
		a, err := lending.Submit(all, e.c, lending.Submission{LeadID: l.ID, LenderID: ld.ID, RequestedAmount: &amount})
		if err != nil {
			t.Fatal(err)
		}
		rate, _ := money.ParseRate("1.25")
		term, kind := 6, application.RateTypeFactor
		a, err = lending.Decide(all, e.c, a.ID, lending.Decision{Approved: true, InterestRate: &rate, RateType: &kind,
			TermMonths: &term, Conditions: conditions})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	waiting := approve(e.adaID, "Voided check")
	approve(e.adaID)                 // ready: not waiting
	approve(e.bobID, "Voided check") // Bob's
	d, err := myday.Of(e.ada, e.c, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := myday.WaitingOnStipulations(e.ada, e.c, d)
	if err != nil || got.Total != 1 || len(got.Nodes) != 1 || got.Nodes[0].ID != waiting.ID {
		t.Fatalf("Ada waits on %+v (%v); want the one application %s", got, err, waiting.ID)
	}
	st, err := lending.ApplicationStipulations(all, e.c, waiting.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lending.WaiveStipulation(all, e.c, st[0].ID, "the lender dropped it"); err != nil {
		t.Fatal(err)
	}
	if got, err := myday.WaitingOnStipulations(e.ada, e.c, d); err != nil || got.Total != 0 || len(got.Nodes) != 0 {
		t.Errorf("after the waiver Ada waits on %+v (%v); want none", got, err)
	}
}
