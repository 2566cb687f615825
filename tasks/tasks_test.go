package tasks_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/activity"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/notification"
	"github.com/lendingpipe/svc/ent/task"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/errclass"
	"github.com/lendingpipe/svc/internal/history"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
	"github.com/lendingpipe/svc/notify"
	"github.com/lendingpipe/svc/tasks"
)

// now is the tests' clock: the flows read it through the context.
var now = time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)

// env is a real database (SQLite, or PostgreSQL when
// SVC_TEST_DATABASE_URL is set) with an organization, its lead, and
// callers, all on the tests' clock.
type env struct {
	c     *ent.Client
	org   *ent.Organization
	lead  *ent.Lead
	other *ent.Lead // a second lead of the organization
	// key is a key bound to no one that may write leads; ada and bob are
	// advisors signed in; agent may only read.
	key, ada, bob, agent context.Context
	adaID, bobID         uuid.UUID
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return orgIn(t, storetest.Open(t).Client)
}

// stranger is another organization of e's database.
func (e *env) stranger(t *testing.T) *env {
	t.Helper()
	return orgIn(t, e.c)
}

// orgIn makes a new organization in the database of c.
func orgIn(t *testing.T, c *ent.Client) *env {
	t.Helper()
	ctx := apitime.WithClock(context.Background(), func() time.Time { return now })
	o, _, err := store.CreateOrganization(ctx, c, "Acme Brokers "+uuid.NewString()[:8])
	if err != nil {
		t.Fatal(err)
	}
	e := &env{c: c, org: o}
	e.key = viewer.NewContext(ctx, viewer.Viewer{OrgID: o.ID, KeyID: uuid.New(),
		Scopes: []string{viewer.ScopeLeadsRead, viewer.ScopeLeadsWrite}})
	e.ada, e.adaID = e.person(t, "Ada", viewer.RoleAdvisor)
	e.bob, e.bobID = e.person(t, "Bob", viewer.RoleAdvisor)
	e.agent, _ = e.person(t, "Al", viewer.RoleAgent)
	for i, name := range []string{"Tasks Bakery", "Other Bakery"} {
		l, err := leads.Create(e.key, c, ent.CreateLeadInput{BusinessName: &name})
		if err != nil {
			t.Fatal(err)
		}
		*[]**ent.Lead{&e.lead, &e.other}[i] = l
	}
	return e
}

// person is a new user of the organization with role, signed in.
func (e *env) person(t *testing.T, first, role string) (context.Context, uuid.UUID) {
	t.Helper()
	u, err := e.c.User.Create().SetOrgID(e.org.ID).SetFirstName(first).SetLastName("Test").
		SetEmail(strings.ToLower(first) + "." + e.org.ID.String()[:8] + "@example.com").SetRole(user.Role(role)).
		Save(rule.SystemContext(e.key))
	if err != nil {
		t.Fatal(err)
	}
	return viewer.NewContext(e.key, viewer.Viewer{OrgID: e.org.ID, UserID: u.ID, SessionID: uuid.New(),
		Scopes: viewer.RoleScopes[role]}), u.ID
}

// create makes a task as the caller, failing the test on an error.
func (e *env) create(t *testing.T, as context.Context, in tasks.Input) *ent.Task {
	t.Helper()
	if in.LeadID == uuid.Nil {
		in.LeadID = e.lead.ID
	}
	if in.DueAt.IsZero() {
		in.DueAt = now.Add(time.Hour)
	}
	if in.Title == "" {
		in.Title = "Call back"
	}
	tk, err := tasks.Create(as, e.c, in)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// notices are the kinds and records of the user's notifications.
func (e *env) notices(t *testing.T, userID uuid.UUID) []uuid.UUID {
	t.Helper()
	ns, err := e.c.Notification.Query().Where(notification.UserID(userID)).Order(notification.ByAt(), notification.ByID()).
		All(rule.SystemContext(e.key))
	if err != nil {
		t.Fatal(err)
	}
	var out []uuid.UUID
	for _, n := range ns {
		if n.Kind != notify.TaskAssigned {
			t.Errorf("notification of kind %s; want task.assigned", n.Kind)
		}
		out = append(out, *n.RecordID)
	}
	return out
}

func code(err error) (string, string) {
	if err == nil {
		return "", ""
	}
	e := errclass.Of(err)
	return e.Code, e.Field
}

func TestCreateTask(t *testing.T) {
	e := newEnv(t)
	t.Run("OK", func(t *testing.T) {
		tk := e.create(t, e.ada, tasks.Input{Title: "Chase the bank statements"})
		if tk.AssigneeID != e.adaID || tk.Status != task.StatusOpen || tk.CreatedBy == nil || *tk.CreatedBy != "user:"+e.adaID.String() ||
			tk.CompletedAt != nil || tk.CompletedBy != nil || !tk.DueAt.Equal(now.Add(time.Hour)) {
			t.Errorf("task %+v; want Ada's open task due in an hour, created by her", tk)
		}
		page, err := activity.List(e.key, e.c, e.lead.ID, activity.Query{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := page.Items[0]; got.Kind != history.TaskCreated || *got.RecordID != tk.ID || got.Summary != "Task: Chase the bank statements" {
			t.Errorf("the newest history entry %+v; want task.created", got)
		}
	})
	t.Run("Bounds", func(t *testing.T) {
		for _, tc := range []struct {
			name, title string
			due         time.Time
			code, field string
		}{
			{"TitleOfOne", "x", now, "", ""},
			{"TitleOf200", strings.Repeat("é", 200), now, "", ""},
			{"ErrTitleEmpty", "", now, apperr.Validation, "title"},
			{"ErrTitleOf201", strings.Repeat("é", 201), now, apperr.Validation, "title"},
			{"ErrTitleNUL", "a\x00", now, apperr.BadRequest, "title"},
			{"DueAt1970", "x", apitime.Earliest, "", ""},
			{"DueInFiveYears", "x", now.AddDate(5, 0, 0), "", ""},
			{"ErrDueBefore1970", "x", apitime.Earliest.Add(-time.Millisecond), apperr.Validation, "dueAt"},
			{"ErrDueAfterFiveYears", "x", now.AddDate(5, 0, 0).Add(time.Millisecond), apperr.Validation, "dueAt"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := tasks.Create(e.ada, e.c, tasks.Input{LeadID: e.lead.ID, Title: tc.title, DueAt: tc.due})
				if c, f := code(err); c != tc.code || f != tc.field {
					t.Errorf("got %s naming %q (%v); want %q naming %q", c, f, err, tc.code, tc.field)
				}
			})
		}
	})
	t.Run("Assignee", func(t *testing.T) {
		gone, goneID := e.person(t, "Gone", viewer.RoleAdvisor)
		_ = gone
		if err := e.c.User.UpdateOneID(goneID).SetDeactivatedAt(now).Exec(rule.SystemContext(e.key)); err != nil {
			t.Fatal(err)
		}
		stranger := e.stranger(t)
		for _, tc := range []struct {
			name     string
			as       context.Context
			assignee *uuid.UUID
			want     uuid.UUID
			code     string
		}{
			{"DefaultsToTheActingUser", e.bob, nil, e.bobID, ""},
			{"NamedByAKey", e.key, &e.adaID, e.adaID, ""},
			{"ErrKeyBoundToNoOneNamesNone", e.key, nil, uuid.Nil, apperr.Validation},
			{"ErrDeactivated", e.ada, &goneID, uuid.Nil, apperr.Validation},
			{"ErrUserOfAnotherOrganization", e.ada, &stranger.adaID, uuid.Nil, apperr.Validation},
			{"ErrUnknownUser", e.ada, ptr(uuid.New()), uuid.Nil, apperr.Validation},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tk, err := tasks.Create(tc.as, e.c, tasks.Input{LeadID: e.lead.ID, Title: "x", DueAt: now, AssigneeID: tc.assignee})
				c, f := code(err)
				if c != tc.code || (c != "" && f != "assigneeId") {
					t.Fatalf("got %s naming %q (%v); want %q naming assigneeId", c, f, err, tc.code)
				}
				if err == nil && tk.AssigneeID != tc.want {
					t.Errorf("assignee %s; want %s", tk.AssigneeID, tc.want)
				}
			})
		}
	})
	t.Run("ErrLead", func(t *testing.T) {
		stranger := e.stranger(t)
		for _, id := range []uuid.UUID{uuid.New(), stranger.lead.ID} {
			_, err := tasks.Create(e.ada, e.c, tasks.Input{LeadID: id, Title: "x", DueAt: now})
			if c, f := code(err); c != apperr.Validation || f != "leadId" {
				t.Errorf("got %s naming %q; want VALIDATION_ERROR naming leadId", c, f)
			}
		}
	})
	t.Run("ErrReaderMayNotWrite", func(t *testing.T) {
		_, err := tasks.Create(e.agent, e.c, tasks.Input{LeadID: e.lead.ID, Title: "x", DueAt: now})
		if c, _ := code(err); c != apperr.Forbidden {
			t.Errorf("an agent (leads:read) created a task: %v", err)
		}
	})
}

// The assignee hears of a task someone else gave them; nobody hears of
// their own doing.
func TestAssigneeNotified(t *testing.T) {
	e := newEnv(t)
	own := e.create(t, e.ada, tasks.Input{})                       // Ada's own: no news
	given := e.create(t, e.bob, tasks.Input{AssigneeID: &e.adaID}) // Bob gives Ada one
	byKey := e.create(t, e.key, tasks.Input{AssigneeID: &e.adaID}) // so does a key
	if got, want := e.notices(t, e.adaID), []uuid.UUID{given.ID, byKey.ID}; !slices.Equal(got, want) {
		t.Errorf("Ada's notices %v; want %v (not her own %s)", got, want, own.ID)
	}
	// Reassigned: Ada gives her own task to Bob, who hears of it; Bob
	// takes the key's task himself, and nobody hears of it.
	if _, err := tasks.Update(e.ada, e.c, own.ID, tasks.Change{AssigneeID: &e.bobID}); err != nil {
		t.Fatal(err)
	}
	if _, err := tasks.Update(e.bob, e.c, byKey.ID, tasks.Change{AssigneeID: &e.bobID}); err != nil {
		t.Fatal(err)
	}
	// A change that keeps the assignee tells nobody again.
	if _, err := tasks.Update(e.ada, e.c, own.ID, tasks.Change{AssigneeID: &e.bobID, Title: ptr("Renamed")}); err != nil {
		t.Fatal(err)
	}
	if got, want := e.notices(t, e.bobID), []uuid.UUID{own.ID}; !slices.Equal(got, want) {
		t.Errorf("Bob's notices %v; want %v", got, want)
	}
	if got := e.notices(t, e.adaID); len(got) != 2 {
		t.Errorf("Ada's notices after the reassignments %v; want the 2 she had", got)
	}
}

func TestUpdateTask(t *testing.T) {
	e := newEnv(t)
	tk := e.create(t, e.ada, tasks.Input{})
	due := now.Add(48 * time.Hour)
	got, err := tasks.Update(e.ada, e.c, tk.ID, tasks.Change{Title: ptr("Send the contract"), DueAt: &due})
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "Send the contract" || !got.DueAt.Equal(due) || got.AssigneeID != e.adaID {
		t.Errorf("updated %+v", got)
	}
	for _, tc := range []struct {
		name  string
		ch    tasks.Change
		field string
	}{
		{"ErrTitleEmpty", tasks.Change{Title: ptr("")}, "title"},
		{"ErrDueAfterFiveYears", tasks.Change{DueAt: ptr(now.AddDate(6, 0, 0))}, "dueAt"},
		{"ErrAssigneeUnknown", tasks.Change{AssigneeID: ptr(uuid.New())}, "assigneeId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tasks.Update(e.ada, e.c, tk.ID, tc.ch)
			if c, f := code(err); c != apperr.Validation || f != tc.field {
				t.Errorf("got %s naming %q; want VALIDATION_ERROR naming %s", c, f, tc.field)
			}
		})
	}
	t.Run("ErrUnknownTask", func(t *testing.T) {
		_, err := tasks.Update(e.ada, e.c, uuid.New(), tasks.Change{Title: ptr("x")})
		if c, _ := code(err); c != apperr.NotFound {
			t.Errorf("got %v; want NOT_FOUND", err)
		}
	})
	t.Run("ErrTaskOfAnotherOrganization", func(t *testing.T) {
		stranger := e.stranger(t)
		_, err := tasks.Update(stranger.ada, stranger.c, tk.ID, tasks.Change{Title: ptr("x")})
		if c, _ := code(err); c != apperr.NotFound {
			t.Errorf("got %v; want NOT_FOUND", err)
		}
	})
}

// A task moves open -> done and done -> open only; any other move is
// CONFLICT naming status with from and to.
func TestCompleteAndReopen(t *testing.T) {
	e := newEnv(t)
	tk := e.create(t, e.ada, tasks.Input{Title: "Collect the voided check"})
	done, err := tasks.Complete(e.bob, e.c, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != task.StatusDone || done.CompletedAt == nil || !done.CompletedAt.Equal(now) ||
		done.CompletedBy == nil || *done.CompletedBy != "user:"+e.bobID.String() {
		t.Errorf("completed %+v; want done now by Bob", done)
	}
	page, err := activity.List(e.key, e.c, e.lead.ID, activity.Query{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := page.Items[0]; got.Kind != history.TaskCompleted || *got.RecordID != tk.ID || got.Summary != "Completed: Collect the voided check" {
		t.Errorf("the newest history entry %+v; want task.completed", got)
	}
	conflict := func(t *testing.T, err error, from, to string) {
		t.Helper()
		e, ok := apperr.As(err)
		if !ok || e.Code != apperr.Conflict || e.Field != "status" || e.Detail["from"] != from || e.Detail["to"] != to {
			t.Errorf("got %#v; want CONFLICT naming status from %s to %s", err, from, to)
		}
	}
	_, err = tasks.Complete(e.ada, e.c, tk.ID)
	conflict(t, err, "done", "done")
	open, err := tasks.Reopen(e.ada, e.c, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	if open.Status != task.StatusOpen || open.CompletedAt != nil || open.CompletedBy != nil {
		t.Errorf("reopened %+v; want open with no completion", open)
	}
	_, err = tasks.Reopen(e.ada, e.c, tk.ID)
	conflict(t, err, "open", "open")
	if _, err := tasks.Complete(e.key, e.c, tk.ID); err != nil {
		t.Fatal(err)
	}
	got, _ := e.c.Task.Get(e.key, tk.ID)
	if v, _ := viewer.FromContext(e.key); got.CompletedBy == nil || *got.CompletedBy != v.KeyID.String() {
		t.Errorf("completed by a key: %v; want the key's id", got.CompletedBy)
	}
	t.Run("ErrReaderMayNotMove", func(t *testing.T) {
		if _, err := tasks.Reopen(e.agent, e.c, tk.ID); err == nil {
			t.Error("an agent (leads:read) reopened a task")
		} else if c, _ := code(err); c != apperr.Forbidden {
			t.Errorf("got %v; want FORBIDDEN", err)
		}
	})
}

// A task, its history entry and its notice commit together or not at all.
func TestTaskRollsBackWithItsEntryAndNotice(t *testing.T) {
	e := newEnv(t)
	before, err := activity.List(e.key, e.c, e.lead.ID, activity.Query{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	failed := errors.New("the operation fails after the task")
	err = store.WithTx(e.bob, e.c, func(ctx context.Context, c *ent.Client) error {
		if _, err := tasks.Create(ctx, c, tasks.Input{LeadID: e.lead.ID, Title: "x", DueAt: now, AssigneeID: &e.adaID}); err != nil {
			return err
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("the transaction: %v", err)
	}
	if n, _ := e.c.Task.Query().Count(e.key); n != 0 {
		t.Errorf("%d tasks after the rollback; want 0", n)
	}
	if got := e.notices(t, e.adaID); len(got) != 0 {
		t.Errorf("Ada's notices after the rollback: %v", got)
	}
	after, err := activity.List(e.key, e.c, e.lead.ID, activity.Query{Limit: 10})
	if err != nil || after.Total != before.Total {
		t.Errorf("history %d entries after the rollback (%v); want %d", after.Total, err, before.Total)
	}
	// Completing rolls back the same way.
	tk := e.create(t, e.ada, tasks.Input{})
	err = store.WithTx(e.ada, e.c, func(ctx context.Context, c *ent.Client) error {
		if _, err := tasks.Complete(ctx, c, tk.ID); err != nil {
			return err
		}
		return failed
	})
	if got, _ := e.c.Task.Get(e.key, tk.ID); !errors.Is(err, failed) || got.Status != task.StatusOpen {
		t.Errorf("after a rolled back completion: %v, status %s; want open", err, got.Status)
	}
	page, _ := activity.List(e.key, e.c, e.lead.ID, activity.Query{Limit: 1})
	if page.Items[0].Kind == history.TaskCompleted {
		t.Error("a rolled back completion left task.completed in the history")
	}
}

// The list keeps what each filter says, by due time then id.
func TestListFiltersAndOrder(t *testing.T) {
	e := newEnv(t)
	at := func(h int) time.Time { return now.Add(time.Duration(h) * time.Hour) }
	t1 := e.create(t, e.ada, tasks.Input{DueAt: at(3)})
	t2 := e.create(t, e.ada, tasks.Input{DueAt: at(1), LeadID: e.other.ID})
	t3 := e.create(t, e.bob, tasks.Input{DueAt: at(2)})
	t4 := e.create(t, e.ada, tasks.Input{DueAt: at(2)}) // ties with t3: by id
	t5 := e.create(t, e.bob, tasks.Input{DueAt: at(-5), AssigneeID: &e.adaID})
	if _, err := tasks.Complete(e.ada, e.c, t5.ID); err != nil {
		t.Fatal(err)
	}
	tie := []uuid.UUID{t3.ID, t4.ID}
	slices.SortFunc(tie, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
	open, done := task.StatusOpen, task.StatusDone
	for _, tc := range []struct {
		name string
		f    tasks.Filter
		want []uuid.UUID
	}{
		{"All", tasks.Filter{}, []uuid.UUID{t5.ID, t2.ID, tie[0], tie[1], t1.ID}},
		{"Assignee", tasks.Filter{AssigneeID: &e.adaID}, []uuid.UUID{t5.ID, t2.ID, t4.ID, t1.ID}},
		{"Open", tasks.Filter{Status: &open}, []uuid.UUID{t2.ID, tie[0], tie[1], t1.ID}},
		{"Done", tasks.Filter{Status: &done}, []uuid.UUID{t5.ID}},
		{"Lead", tasks.Filter{LeadID: &e.other.ID}, []uuid.UUID{t2.ID}},
		{"DueBefore", tasks.Filter{DueBefore: ptr(at(2))}, []uuid.UUID{t5.ID, t2.ID}},
		{"DueBeforeInAnotherOffset", tasks.Filter{DueBefore: ptr(at(2).In(time.FixedZone("", -4*3600)))}, []uuid.UUID{t5.ID, t2.ID}},
		{"Together", tasks.Filter{AssigneeID: &e.adaID, Status: &open, LeadID: &e.lead.ID, DueBefore: ptr(at(4))}, []uuid.UUID{t4.ID, t1.ID}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tasks.List(e.c, tc.f).IDs(e.key)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v; want %v", got, tc.want)
			}
		})
	}
	openOfLead, err := tasks.OpenOf(e.key, e.c, e.lead.ID)
	if err != nil {
		t.Fatal(err)
	}
	var ids []uuid.UUID
	for _, tk := range openOfLead {
		ids = append(ids, tk.ID)
	}
	if want := []uuid.UUID{tie[0], tie[1], t1.ID}; !slices.Equal(ids, want) {
		t.Errorf("the lead's open tasks %v; want %v", ids, want)
	}
	// Another organization lists none of these.
	stranger := e.stranger(t)
	if n, err := tasks.List(stranger.c, tasks.Filter{}).Count(stranger.key); err != nil || n != 0 {
		t.Errorf("another organization counts %d tasks (%v); want 0", n, err)
	}
}

func ptr[T any](v T) *T { return &v }

// Two writers completing one task at once: one completes it, the other is
// refused as a move from done to done.
func TestConcurrentCompletions(t *testing.T) {
	e := newEnv(t)
	tk := e.create(t, e.ada, tasks.Input{})
	errs := make(chan error, 2)
	for _, as := range []context.Context{e.ada, e.bob} {
		go func() {
			_, err := tasks.Complete(as, e.c, tk.ID)
			errs <- err
		}()
	}
	var ok, conflicts int
	for range 2 {
		err := <-errs
		switch x, isApp := apperr.As(err); {
		case err == nil:
			ok++
		case isApp && x.Code == apperr.Conflict && x.Detail["from"] == "done" && x.Detail["to"] == "done":
			conflicts++
		default:
			t.Errorf("a completion failed otherwise: %v", err)
		}
	}
	if ok != 1 || conflicts != 1 {
		t.Errorf("%d completed and %d refused; want one of each", ok, conflicts)
	}
	page, err := activity.List(e.key, e.c, e.lead.ID, activity.Query{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, it := range page.Items {
		if it.Kind == history.TaskCompleted {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d task.completed entries; want 1", n)
	}
}
