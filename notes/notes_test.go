package notes_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/activity"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/errclass"
	"github.com/lendingpipe/svc/internal/history"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
	"github.com/lendingpipe/svc/notes"
)

// env is a real database (SQLite, or PostgreSQL when
// SVC_TEST_DATABASE_URL is set) with an organization, its lead, and callers.
type env struct {
	c    *ent.Client
	lead *ent.Lead
	// key is a key bound to no one with every scope but admin; admin an
	// admin's; ada and bob advisors signed in; agent may only read.
	key, admin, ada, bob, agent context.Context
	adaID                       uuid.UUID
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return orgIn(t, storetest.Open(t).Client)
}

// orgIn makes a new organization in the database of c.
func orgIn(t *testing.T, c *ent.Client) *env {
	t.Helper()
	ctx := context.Background()
	o, _, err := store.CreateOrganization(ctx, c, "Acme Brokers "+uuid.NewString()[:8])
	if err != nil {
		t.Fatal(err)
	}
	e := &env{c: c}
	writer := []string{viewer.ScopeLeadsRead, viewer.ScopeLeadsWrite}
	e.key = viewer.NewContext(ctx, viewer.Viewer{OrgID: o.ID, KeyID: uuid.New(), Scopes: writer})
	person := func(first, role string) (context.Context, uuid.UUID) {
		u, err := c.User.Create().SetOrgID(o.ID).SetFirstName(first).SetLastName("Test").
			SetEmail(strings.ToLower(first) + "." + o.ID.String()[:8] + "@example.com").SetRole(user.Role(role)).Save(rule.SystemContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		return viewer.NewContext(ctx, viewer.Viewer{OrgID: o.ID, UserID: u.ID, SessionID: uuid.New(),
			Scopes: viewer.RoleScopes[role]}), u.ID
	}
	e.ada, e.adaID = person("Ada", viewer.RoleAdvisor)
	e.bob, _ = person("Bob", viewer.RoleAdvisor)
	e.admin, _ = person("Alice", viewer.RoleAdmin)
	e.agent, _ = person("Al", viewer.RoleAgent)
	name := "Notes Bakery"
	if e.lead, err = leads.Create(e.key, c, ent.CreateLeadInput{BusinessName: &name}); err != nil {
		t.Fatal(err)
	}
	return e
}

// code is err's code and field as the surfaces would answer it.
func code(err error) (string, string) {
	if err == nil {
		return "", ""
	}
	e := errclass.Of(err)
	return e.Code, e.Field
}

func TestAddNote(t *testing.T) {
	e := newEnv(t)
	t.Run("OK", func(t *testing.T) {
		n, err := notes.Add(e.ada, e.c, notes.Input{LeadID: e.lead.ID, Body: "Owner asked us to call back\nafter the 15th."})
		if err != nil {
			t.Fatal(err)
		}
		if n.AuthorID == nil || *n.AuthorID != e.adaID || n.LeadID != e.lead.ID {
			t.Errorf("note author %v lead %s; want Ada and the lead", n.AuthorID, n.LeadID)
		}
		page, err := activity.List(e.key, e.c, e.lead.ID, activity.Query{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		got := page.Items[0]
		if got.Kind != history.NoteAdded || got.RecordID == nil || *got.RecordID != n.ID ||
			got.Summary != "Owner asked us to call back after the 15th." || got.Actor.Type != history.ActorUser {
			t.Errorf("the newest history entry: %+v; want note.added of the note by Ada", got)
		}
	})
	t.Run("KeyBoundToNoOneWritesNoAuthor", func(t *testing.T) {
		n, err := notes.Add(e.key, e.c, notes.Input{LeadID: e.lead.ID, Body: "From the integration"})
		if err != nil || n.AuthorID != nil {
			t.Fatalf("note %+v, %v; want one without an author", n, err)
		}
	})
	t.Run("LongBodySummarized", func(t *testing.T) {
		body := strings.Repeat("word ", 2000) // 10,000 characters
		if _, err := notes.Add(e.ada, e.c, notes.Input{LeadID: e.lead.ID, Body: body}); err != nil {
			t.Fatal(err)
		}
		page, _ := activity.List(e.key, e.c, e.lead.ID, activity.Query{Limit: 1})
		if s := page.Items[0].Summary; len([]rune(s)) != 80 || !strings.HasSuffix(s, "...") {
			t.Errorf("summary %q (%d characters); want 80 ending in ...", s, len([]rune(s)))
		}
	})
	for _, tc := range []struct {
		name, body, code, field string
		lead                    uuid.UUID
	}{
		{"ErrBodyEmpty", "", apperr.Validation, "body", e.lead.ID},
		{"ErrBodyTooLong", strings.Repeat("é", 10_001), apperr.Validation, "body", e.lead.ID},
		{"ErrBodyNUL", "a\x00b", apperr.BadRequest, "body", e.lead.ID},
		{"ErrLeadUnknown", "x", apperr.Validation, "leadId", uuid.New()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := notes.Add(e.ada, e.c, notes.Input{LeadID: tc.lead, Body: tc.body})
			if c, f := code(err); c != tc.code || f != tc.field {
				t.Errorf("got %s naming %q (%v); want %s naming %s", c, f, err, tc.code, tc.field)
			}
		})
	}
	t.Run("ErrLeadOfAnotherOrganization", func(t *testing.T) {
		other := orgIn(t, e.c)
		_, err := notes.Add(e.ada, e.c, notes.Input{LeadID: other.lead.ID, Body: "x"})
		if c, f := code(err); c != apperr.Validation || f != "leadId" {
			t.Errorf("got %s naming %q; want VALIDATION_ERROR naming leadId", c, f)
		}
	})
	t.Run("ErrReaderMayNotWrite", func(t *testing.T) {
		_, err := notes.Add(e.agent, e.c, notes.Input{LeadID: e.lead.ID, Body: "x"})
		if c, _ := code(err); c != apperr.Forbidden {
			t.Errorf("an agent (leads:read) added a note: %v", err)
		}
	})
}

// Only a note's author or an admin changes or deletes it.
func TestAuthorOrAdmin(t *testing.T) {
	e := newEnv(t)
	mine, err := notes.Add(e.ada, e.c, notes.Input{LeadID: e.lead.ID, Body: "Ada's"})
	if err != nil {
		t.Fatal(err)
	}
	unsigned, err := notes.Add(e.key, e.c, notes.Input{LeadID: e.lead.ID, Body: "the key's"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		as   context.Context
		note *ent.Note
		want string
	}{
		{"AuthorUpdates", e.ada, mine, ""},
		{"AdminUpdates", e.admin, mine, ""},
		{"ErrOtherAdvisor", e.bob, mine, apperr.Forbidden},
		{"ErrKeyBoundToNoOne", e.key, mine, apperr.Forbidden},
		{"ErrNoteWithoutAuthor", e.key, unsigned, apperr.Forbidden},
		{"AdminUpdatesUnsigned", e.admin, unsigned, ""},
		{"ErrReader", e.agent, mine, apperr.Forbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := notes.Update(tc.as, e.c, tc.note.ID, "changed by "+tc.name)
			if c, _ := code(err); c != tc.want {
				t.Fatalf("update: %v; want %q", err, tc.want)
			}
			if err == nil && n.Body != "changed by "+tc.name {
				t.Errorf("updated note %+v", n)
			}
			if err := notes.Delete(tc.as, e.c, tc.note.ID); tc.want != "" {
				if c, _ := code(err); c != tc.want {
					t.Errorf("delete: %v; want %s", err, tc.want)
				}
			}
			if tc.want == "" {
				// Deleted: write it back for the next case.
				if _, err := e.c.Note.Get(e.key, tc.note.ID); !ent.IsNotFound(err) {
					t.Fatalf("the note after its delete: %v", err)
				}
				if err := e.c.Note.Create().SetID(tc.note.ID).SetLeadID(tc.note.LeadID).SetBody("back").
					SetNillableAuthorID(tc.note.AuthorID).Exec(e.key); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	t.Run("ErrBodyEmpty", func(t *testing.T) {
		_, err := notes.Update(e.ada, e.c, mine.ID, "")
		if c, f := code(err); c != apperr.Validation || f != "body" {
			t.Errorf("got %s naming %q; want VALIDATION_ERROR naming body", c, f)
		}
	})
	t.Run("ErrUnknownNote", func(t *testing.T) {
		_, err := notes.Update(e.admin, e.c, uuid.New(), "x")
		if c, _ := code(err); c != apperr.NotFound {
			t.Errorf("got %v; want NOT_FOUND", err)
		}
		if c, _ := code(notes.Delete(e.admin, e.c, uuid.New())); c != apperr.NotFound {
			t.Errorf("delete of no note: %s; want NOT_FOUND", c)
		}
	})
}

// A note and its history entry commit together or not at all.
func TestNoteRollsBackWithItsEntry(t *testing.T) {
	e := newEnv(t)
	before, err := activity.List(e.key, e.c, e.lead.ID, activity.Query{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	failed := errors.New("the operation fails after the note")
	err = store.WithTx(e.ada, e.c, func(ctx context.Context, c *ent.Client) error {
		if _, err := notes.Add(ctx, c, notes.Input{LeadID: e.lead.ID, Body: "rolled back"}); err != nil {
			return err
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("the transaction: %v", err)
	}
	if n, _ := e.c.Note.Query().Count(e.key); n != 0 {
		t.Errorf("%d notes after the rollback; want 0", n)
	}
	after, err := activity.List(e.key, e.c, e.lead.ID, activity.Query{Limit: 10})
	if err != nil || after.Total != before.Total {
		t.Errorf("history %d entries after the rollback (%v); want %d", after.Total, err, before.Total)
	}
}

func TestSummary(t *testing.T) {
	for in, want := range map[string]string{
		"short":                   "short",
		"  two\n\nlines\t here ":  "two lines here",
		strings.Repeat("a", 80):   strings.Repeat("a", 80),
		strings.Repeat("a", 81):   strings.Repeat("a", 77) + "...",
		strings.Repeat("ab ", 30): strings.TrimSpace(strings.Repeat("ab ", 26)) + "...",
		strings.Repeat("é", 100):  strings.Repeat("é", 77) + "...",
	} {
		if got := notes.Summary(in); got != want {
			t.Errorf("Summary(%q) = %q; want %q", in, got, want)
		}
	}
}
