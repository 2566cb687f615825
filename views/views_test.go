package views_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/savedview"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/errclass"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/views"
)

// env is a real database (SQLite, or PostgreSQL when SVC_TEST_DATABASE_URL
// is set) with two organizations' people.
type env struct {
	c                  *ent.Client
	ada, bob, boss, we context.Context // org A: two advisors, an admin, a key bound to no one
	other              context.Context // org B's advisor
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := storetest.Open(t)
	ctx := context.Background()
	org := func(name string) uuid.UUID {
		o, _, err := store.CreateOrganization(ctx, db.Client, name)
		if err != nil {
			t.Fatal(err)
		}
		return o.ID
	}
	a, b := org("Acme Brokers"), org("Other Brokers")
	as := func(org uuid.UUID, user uuid.UUID, role string) context.Context {
		return viewer.NewContext(ctx, viewer.Viewer{OrgID: org, KeyID: uuid.New(), UserID: user, Scopes: viewer.RoleScopes[role]})
	}
	return &env{c: db.Client,
		ada: as(a, uuid.New(), viewer.RoleAdvisor), bob: as(a, uuid.New(), viewer.RoleAdvisor),
		boss: as(a, uuid.New(), viewer.RoleAdmin), we: as(a, uuid.Nil, viewer.RoleAdmin),
		other: as(b, uuid.New(), viewer.RoleAdvisor)}
}

func (e *env) save(t *testing.T, ctx context.Context, name string, screen savedview.Screen, shared bool, filters map[string]any) *ent.SavedView {
	t.Helper()
	v, err := views.Save(ctx, e.c, views.Input{Name: name, Screen: screen, Filters: filters, Shared: shared})
	if err != nil {
		t.Fatalf("saving %s: %v", name, err)
	}
	return v
}

func names(t *testing.T, ctx context.Context, c *ent.Client, screen savedview.Screen) []string {
	t.Helper()
	list, err := views.List(ctx, c, &screen)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range list {
		out = append(out, v.Name)
	}
	return out
}

// code and field are err's as the surfaces answer it.
func code(err error) string {
	if err == nil {
		return ""
	}
	return errclass.Of(err).Code
}

func field(err error) string {
	if err == nil {
		return ""
	}
	return errclass.Of(err).Field
}

// A person lists their own views of a screen and the organization's shared
// ones, by name; never another person's own, another screen's or another
// organization's.
func TestListOwnAndShared(t *testing.T) {
	e := newEnv(t)
	board := savedview.ScreenBOARD
	e.save(t, e.ada, "Mine", board, false, map[string]any{"search": "acme"})
	e.save(t, e.ada, "Everyone's", board, true, map[string]any{"where": map[string]any{"priority": "high"}})
	e.save(t, e.bob, "Bob's own", board, false, nil)
	e.save(t, e.bob, "Bob's shared", board, true, nil)
	e.save(t, e.ada, "Applications", savedview.ScreenAPPLICATIONS, false, map[string]any{"status": "approved"})
	e.save(t, e.other, "Elsewhere", board, true, nil)

	for _, tc := range []struct {
		name string
		as   context.Context
		want []string
	}{
		{"Ada", e.ada, []string{"Bob's shared", "Everyone's", "Mine"}},
		{"Bob", e.bob, []string{"Bob's own", "Bob's shared", "Everyone's"}},
		{"Admin", e.boss, []string{"Bob's shared", "Everyone's"}},
		{"OtherOrganization", e.other, []string{"Elsewhere"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := names(t, tc.as, e.c, board); !slices.Equal(got, tc.want) {
				t.Errorf("views = %v, want %v", got, tc.want)
			}
		})
	}
	if got := names(t, e.ada, e.c, savedview.ScreenAPPLICATIONS); !slices.Equal(got, []string{"Applications"}) {
		t.Errorf("Ada's application views = %v", got)
	}
	// Every screen's, when none is named.
	all, err := views.List(e.ada, e.c, nil)
	if err != nil || len(all) != 4 {
		t.Errorf("Ada's views of every screen: %d, %v; want 4", len(all), err)
	}
	// What was saved reads back: the filters as given, the owner.
	list, _ := views.List(e.ada, e.c, &board)
	mine := list[2]
	if mine.Filters["search"] != "acme" || mine.Shared {
		t.Errorf("Ada's view reads back as %+v", mine)
	}
	v, _ := viewer.FromContext(e.ada)
	if mine.OwnerID != v.UserID {
		t.Errorf("owner %s, want Ada %s", mine.OwnerID, v.UserID)
	}
}

// Another person's own view is not found by any read (node(id) included);
// a shared one is.
func TestAnothersOwnViewIsNotFound(t *testing.T) {
	e := newEnv(t)
	own := e.save(t, e.bob, "Bob's own", savedview.ScreenBOARD, false, nil)
	shared := e.save(t, e.bob, "Bob's shared", savedview.ScreenBOARD, true, nil)
	if _, err := e.c.SavedView.Get(e.ada, own.ID); !ent.IsNotFound(err) {
		t.Errorf("Ada reading Bob's own view: %v, want not found", err)
	}
	if _, err := e.c.SavedView.Get(e.ada, shared.ID); err != nil {
		t.Errorf("Ada reading Bob's shared view: %v", err)
	}
	if _, err := e.c.SavedView.Get(e.other, shared.ID); !ent.IsNotFound(err) {
		t.Errorf("another organization reading Bob's shared view: %v, want not found", err)
	}
}

// The owner and an admin may delete a view; anyone else who sees it is
// FORBIDDEN, and a view they cannot see is NOT_FOUND.
func TestDelete(t *testing.T) {
	e := newEnv(t)
	t.Run("Owner", func(t *testing.T) {
		v := e.save(t, e.ada, "Mine", savedview.ScreenBOARD, false, nil)
		if err := views.Delete(e.ada, e.c, v.ID); err != nil {
			t.Fatal(err)
		}
		if got := names(t, e.ada, e.c, savedview.ScreenBOARD); len(got) != 0 {
			t.Errorf("after deleting: %v", got)
		}
	})
	t.Run("ErrNotOwner", func(t *testing.T) {
		v := e.save(t, e.ada, "Shared", savedview.ScreenBOARD, true, nil)
		if err := views.Delete(e.bob, e.c, v.ID); code(err) != apperr.Forbidden {
			t.Errorf("Bob deleting Ada's shared view: %v, want FORBIDDEN", err)
		}
		if err := views.Delete(e.other, e.c, v.ID); code(err) != apperr.NotFound {
			t.Errorf("another organization deleting it: %v, want NOT_FOUND", err)
		}
		if err := views.Delete(e.boss, e.c, v.ID); err != nil {
			t.Errorf("the admin deleting it: %v", err)
		}
	})
	t.Run("AdminDeletesAnOwnView", func(t *testing.T) {
		v := e.save(t, e.ada, "Private", savedview.ScreenTASKS, false, nil)
		if err := views.Delete(e.bob, e.c, v.ID); code(err) != apperr.NotFound {
			t.Errorf("Bob deleting Ada's own view: %v, want NOT_FOUND", err)
		}
		if err := views.Delete(e.boss, e.c, v.ID); err != nil {
			t.Errorf("the admin deleting it: %v", err)
		}
		if err := views.Delete(e.boss, e.c, v.ID); code(err) != apperr.NotFound {
			t.Errorf("deleting it again: %v, want NOT_FOUND", err)
		}
	})
}

// Views are a person's: a key bound to no one may neither save, list nor
// delete them.
func TestNeedsAPerson(t *testing.T) {
	e := newEnv(t)
	v := e.save(t, e.ada, "Shared", savedview.ScreenBOARD, true, nil)
	if _, err := views.Save(e.we, e.c, views.Input{Name: "x", Screen: savedview.ScreenBOARD}); code(err) != apperr.Forbidden {
		t.Errorf("Save: %v, want FORBIDDEN", err)
	}
	if _, err := views.List(e.we, e.c, nil); code(err) != apperr.Forbidden {
		t.Errorf("List: %v, want FORBIDDEN", err)
	}
	if err := views.Delete(e.we, e.c, v.ID); code(err) != apperr.Forbidden {
		t.Errorf("Delete: %v, want FORBIDDEN", err)
	}
	if _, err := views.List(context.Background(), e.c, nil); code(err) != apperr.Unauthorized {
		t.Errorf("List without a caller: %v, want UNAUTHORIZED", err)
	}
}

// The filters are the screen's own arguments: an unknown key or a value of
// the wrong type is VALIDATION_ERROR naming filters.<key>, and nothing is
// saved.
func TestFiltersAreTheScreensArguments(t *testing.T) {
	e := newEnv(t)
	id := uuid.NewString()
	ok := []struct {
		screen  savedview.Screen
		filters map[string]any
	}{
		{savedview.ScreenBOARD, map[string]any{}},
		{savedview.ScreenBOARD, map[string]any{"search": "acme bakery", "where": map[string]any{
			"primaryAdvisorId": id, "source": "web_form", "priority": "high", "stageIdIn": []any{id},
			"or":           []any{map[string]any{"businessNameContainsFold": "acme"}, map[string]any{"emailContainsFold": "acme"}},
			"createdAtGTE": "2026-01-01T00:00:00Z", "createdAtLT": "2026-02-01T00:00:00+01:00", "leadScoreGTE": 10,
			"hasApplicationsWith": []any{map[string]any{"status": "approved"}}}}},
		{savedview.ScreenBOARD, map[string]any{"where": nil, "search": nil}},
		{savedview.ScreenAPPLICATIONS, map[string]any{"leadId": id, "lenderId": id, "status": "underwriting"}},
		{savedview.ScreenTASKS, map[string]any{"assigneeId": id, "status": "open", "leadId": id, "dueBefore": "2026-12-01T09:00:00.5Z"}},
		{savedview.ScreenRENEWALS, map[string]any{"advisorId": id, "dueBefore": "2027-01-01T00:00:00Z"}},
	}
	for _, tc := range ok {
		if _, err := views.Check(tc.screen, tc.filters); err != nil {
			t.Errorf("%s %v: %v", tc.screen, tc.filters, err)
		}
	}
	bad := []struct {
		name    string
		screen  savedview.Screen
		filters any
		field   string
	}{
		{"UnknownKey", savedview.ScreenBOARD, map[string]any{"stage": "x"}, "filters.stage"},
		{"UnknownWhereKey", savedview.ScreenBOARD, map[string]any{"where": map[string]any{"stageIdd": id}}, "filters.where.stageIdd"},
		{"GoSpelling", savedview.ScreenBOARD, map[string]any{"where": map[string]any{"stageID": id}}, "filters.where.stageID"},
		{"OtherCase", savedview.ScreenBOARD, map[string]any{"Search": "x"}, "filters.Search"},
		{"NestedUnknown", savedview.ScreenBOARD, map[string]any{"where": map[string]any{"or": []any{map[string]any{}, map[string]any{"nope": 1}}}}, "filters.where.or[1].nope"},
		{"Enum", savedview.ScreenBOARD, map[string]any{"where": map[string]any{"source": "carrier_pigeon"}}, "filters.where.source"},
		{"MalformedID", savedview.ScreenBOARD, map[string]any{"where": map[string]any{"primaryAdvisorId": "42"}}, "filters.where.primaryAdvisorId"},
		{"IDWithoutDashes", savedview.ScreenAPPLICATIONS, map[string]any{"leadId": strings.ReplaceAll(id, "-", "")}, "filters.leadId"},
		{"Time", savedview.ScreenBOARD, map[string]any{"where": map[string]any{"createdAtGTE": "yesterday"}}, "filters.where.createdAtGTE"},
		{"Range", savedview.ScreenBOARD, map[string]any{"where": map[string]any{"createdAtGTE": "2026-02-01T00:00:00Z", "createdAtLT": "2026-01-01T00:00:00Z"}}, "filters.where.createdAtLT"},
		{"SearchType", savedview.ScreenBOARD, map[string]any{"search": 5}, "filters.search"},
		{"SearchLength", savedview.ScreenBOARD, map[string]any{"search": strings.Repeat("a", views.MaxSearch+1)}, "filters.search"},
		{"WhereType", savedview.ScreenBOARD, map[string]any{"where": []any{}}, "filters.where"},
		{"ListType", savedview.ScreenBOARD, map[string]any{"where": map[string]any{"stageIdIn": id}}, "filters.where.stageIdIn"},
		{"Integer", savedview.ScreenBOARD, map[string]any{"where": map[string]any{"leadScoreGTE": 1.5}}, "filters.where.leadScoreGTE"},
		{"Boolean", savedview.ScreenBOARD, map[string]any{"where": map[string]any{"isDoNotCall": "yes"}}, "filters.where.isDoNotCall"},
		{"ApplicationStatus", savedview.ScreenAPPLICATIONS, map[string]any{"status": "lost"}, "filters.status"},
		{"ApplicationsTakeNoSearch", savedview.ScreenAPPLICATIONS, map[string]any{"search": "x"}, "filters.search"},
		{"TaskStatus", savedview.ScreenTASKS, map[string]any{"status": "closed"}, "filters.status"},
		{"TaskDue", savedview.ScreenTASKS, map[string]any{"dueBefore": 1700000000}, "filters.dueBefore"},
		{"TaskUnknown", savedview.ScreenTASKS, map[string]any{"assignee": id}, "filters.assignee"},
		{"RenewalAdvisor", savedview.ScreenRENEWALS, map[string]any{"advisorId": true}, "filters.advisorId"},
		{"RenewalUnknown", savedview.ScreenRENEWALS, map[string]any{"lenderId": id}, "filters.lenderId"},
		{"NotAnObject", savedview.ScreenBOARD, []any{"a"}, "filters"},
		{"AString", savedview.ScreenBOARD, "stage=new", "filters"},
		{"TooLarge", savedview.ScreenBOARD, map[string]any{"where": map[string]any{"or": bigOr(300)}}, "filters.where.or"},
		{"TooManyBytes", savedview.ScreenBOARD, map[string]any{"where": map[string]any{"businessNameIn": longList(90, 120)}}, "filters"},
		{"TooDeep", savedview.ScreenBOARD, map[string]any{"where": nestedNot(12)}, "filters.where"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := views.Save(e.ada, e.c, views.Input{Name: tc.name, Screen: tc.screen, Filters: tc.filters})
			if code(err) != apperr.Validation || !strings.HasPrefix(field(err), tc.field) {
				t.Errorf("err = %v (field %q), want VALIDATION_ERROR naming %s", err, field(err), tc.field)
			}
		})
	}
	// A NUL character is refused as in any text the service takes.
	if _, err := views.Save(e.ada, e.c, views.Input{Name: "NUL", Screen: savedview.ScreenBOARD,
		Filters: map[string]any{"search": "a\x00b"}}); code(err) != apperr.BadRequest {
		t.Errorf("a NUL in the filters: %v, want BAD_REQUEST", err)
	}
	for _, s := range []savedview.Screen{savedview.ScreenBOARD, savedview.ScreenAPPLICATIONS, savedview.ScreenTASKS} {
		if got := names(t, e.ada, e.c, s); len(got) != 0 {
			t.Errorf("refused views were saved: %v", got)
		}
	}
}

// A view's name is 1 to 100 characters; its screen one of the four.
func TestNameAndScreen(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		name, value string
		screen      savedview.Screen
		field       string
	}{
		{"ErrNameRequired", "", savedview.ScreenBOARD, "name"},
		{"ErrNameBlank", "   ", savedview.ScreenBOARD, "name"},
		{"ErrNameTooLong", strings.Repeat("é", 101), savedview.ScreenBOARD, "name"},
		{"ErrScreen", "x", savedview.Screen("LEADS"), "screen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := views.Save(e.ada, e.c, views.Input{Name: tc.value, Screen: tc.screen})
			if code(err) != apperr.Validation || field(err) != tc.field {
				t.Errorf("err = %v (field %q), want VALIDATION_ERROR naming %s", err, field(err), tc.field)
			}
		})
	}
	if v := e.save(t, e.ada, "  "+strings.Repeat("é", 100)+" ", savedview.ScreenBOARD, false, nil); v.Name != strings.Repeat("é", 100) {
		t.Errorf("a 100-character name saved as %q", v.Name)
	}
}

func bigOr(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{"priority": "high"}
	}
	return out
}

func longList(n, size int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = strings.Repeat("x", size)
	}
	return out
}

func nestedNot(depth int) map[string]any {
	w := map[string]any{"priority": "high"}
	for range depth {
		w = map[string]any{"not": w}
	}
	return w
}
