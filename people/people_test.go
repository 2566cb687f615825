package people_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/password"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/people"
)

const pw = "a long enough passphrase"

// world is one database with an organization, its admin's context and a
// user to invite; the clock is the test's.
type world struct {
	c     *ent.Client
	org   uuid.UUID
	admin context.Context
	user  *ent.User
	now   time.Time
}

func newWorld(t *testing.T) *world {
	t.Helper()
	db := storetest.Open(t)
	org, _, err := store.CreateOrganization(context.Background(), db.Client, "People Co")
	if err != nil {
		t.Fatal(err)
	}
	w := &world{c: db.Client, org: org.ID, now: time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)}
	w.admin = w.at(viewer.NewContext(context.Background(), viewer.Viewer{OrgID: org.ID, Scopes: []string{viewer.ScopeAdmin}}))
	w.user = w.newUser(t, org.ID, "Pat", "Person")
	return w
}

func (w *world) at(ctx context.Context) context.Context {
	return apitime.WithClock(ctx, func() time.Time { return w.now })
}

func (w *world) newUser(t *testing.T, org uuid.UUID, first, last string) *ent.User {
	t.Helper()
	u, err := store.CreateUser(context.Background(), w.c, store.UserSpec{OrgID: org, First: first, Last: last,
		Email: strings.ToLower(first + "." + last + "@example.com"), Role: "advisor"})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func code(err error) string {
	if e, ok := apperr.As(err); ok {
		return e.Code + " " + e.Field
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// An invitation works once and for 72 hours.
func TestInvitationIsSingleUseAndExpires(t *testing.T) {
	w := newWorld(t)
	a := people.New(people.Settings{})
	inv, err := a.InviteUser(w.admin, w.c, w.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(inv.Token, people.InvitationPrefix) || !inv.ExpiresAt.Equal(w.now.Add(72*time.Hour)) {
		t.Fatalf("invitation %q until %s", inv.Token, inv.ExpiresAt)
	}
	w.now = w.now.Add(72*time.Hour - time.Second)
	if _, err := a.AcceptInvitation(w.at(context.Background()), w.c, inv.Token, pw); err != nil {
		t.Fatalf("accepting a second before it expires: %v", err)
	}
	if _, err := a.AcceptInvitation(w.at(context.Background()), w.c, inv.Token, pw); code(err) != "VALIDATION_ERROR token" {
		t.Fatalf("accepting it twice: %v, want VALIDATION_ERROR on token", err)
	}
	other := w.newUser(t, w.org, "Exp", "Ired")
	late, err := a.InviteUser(w.admin, w.c, other.ID)
	if err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(72 * time.Hour)
	if _, err := a.AcceptInvitation(w.at(context.Background()), w.c, late.Token, pw); code(err) != "VALIDATION_ERROR token" {
		t.Fatalf("accepting an expired invitation: %v, want VALIDATION_ERROR on token", err)
	}
}

// Of two acceptances racing with one invitation, one sets the password.
func TestConcurrentAcceptancesSetOnePassword(t *testing.T) {
	w := newWorld(t)
	a := people.New(people.Settings{})
	inv, err := a.InviteUser(w.admin, w.c, w.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = a.AcceptInvitation(w.at(context.Background()), w.c, inv.Token, pw+strings.Repeat("!", i))
		})
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case code(err) != "VALIDATION_ERROR token":
			t.Errorf("a losing acceptance: %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d acceptances succeeded, want 1: %v", ok, errs)
	}
}

// A reset ends the person's sessions, clears the password and issues a
// new invitation; inviting someone who signs in is a conflict.
func TestResetEndsSessions(t *testing.T) {
	w := newWorld(t)
	a := people.New(people.Settings{})
	inv, _ := a.InviteUser(w.admin, w.c, w.user.ID)
	if _, err := a.AcceptInvitation(w.at(context.Background()), w.c, inv.Token, pw); err != nil {
		t.Fatal(err)
	}
	if _, err := a.InviteUser(w.admin, w.c, w.user.ID); code(err) != "CONFLICT " {
		t.Fatalf("inviting an active person: %v, want CONFLICT", err)
	}
	s, err := a.SignIn(w.at(context.Background()), w.c, w.user.Email, pw, people.Client{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.ResetUserSignIn(w.admin, w.c, w.user.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.Authenticate(w.at(context.Background()), w.c, s.Token); !errors.Is(err, people.ErrNoSession) {
		t.Fatalf("a session after the reset: %v, want none", err)
	}
	if _, err := a.SignIn(w.at(context.Background()), w.c, w.user.Email, pw, people.Client{}); code(err) != "UNAUTHORIZED " {
		t.Fatalf("the old password after the reset: %v, want UNAUTHORIZED", err)
	}
}

// A sign-in email is unique across organizations and follows the user's
// email.
func TestSignInEmailIsUniqueAndFollowsEmail(t *testing.T) {
	w := newWorld(t)
	a := people.New(people.Settings{})
	if _, err := a.InviteUser(w.admin, w.c, w.user.ID); err != nil {
		t.Fatal(err)
	}
	org2, _, err := store.CreateOrganization(context.Background(), w.c, "Other Co")
	if err != nil {
		t.Fatal(err)
	}
	twin := w.newUser(t, org2.ID, "Pat", "Person") // the same email, in another organization
	admin2 := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: org2.ID, Scopes: []string{viewer.ScopeAdmin}})
	if _, err := a.InviteUser(admin2, w.c, twin.ID); code(err) != "CONFLICT " {
		t.Fatalf("inviting an email another organization's person signs in with: %v, want CONFLICT", err)
	}
	if _, err := a.InviteUser(admin2, w.c, w.user.ID); code(err) != "NOT_FOUND " {
		t.Fatalf("inviting another organization's user: %v, want NOT_FOUND", err)
	}
	inv, err := a.ResetUserSignIn(w.admin, w.c, w.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.AcceptInvitation(w.at(context.Background()), w.c, inv.Token, pw); err != nil {
		t.Fatal(err)
	}
	if err := w.c.User.UpdateOneID(w.user.ID).SetEmail("Pat.New@Example.com").Exec(rule.SystemContext(context.Background())); err != nil {
		t.Fatal(err)
	}
	if _, err := a.SignIn(w.at(context.Background()), w.c, "pat.new@example.com", pw, people.Client{}); err != nil {
		t.Fatalf("signing in with the new email: %v", err)
	}
	if _, err := a.SignIn(w.at(context.Background()), w.c, "pat.person@example.com", pw, people.Client{}); code(err) != "UNAUTHORIZED " {
		t.Fatalf("signing in with the old email: %v, want UNAUTHORIZED", err)
	}
}

// A hash made with weaker parameters is upgraded at the next sign-in.
func TestPasswordHashUpgradedAtSignIn(t *testing.T) {
	w := newWorld(t)
	weak := password.Params{Time: 1, MemoryKiB: 8 * 1024, Threads: 1, SaltLen: 16, KeyLen: 32}
	old := people.New(people.Settings{Password: weak})
	inv, _ := old.InviteUser(w.admin, w.c, w.user.ID)
	if _, err := old.AcceptInvitation(w.at(context.Background()), w.c, inv.Token, pw); err != nil {
		t.Fatal(err)
	}
	stored := func() string {
		u, err := w.c.User.Get(rule.SystemContext(context.Background()), w.user.ID)
		if err != nil || u.PasswordHash == nil {
			t.Fatalf("reading the hash: %v", err)
		}
		return *u.PasswordHash
	}
	before := stored()
	if !strings.Contains(before, "m=8192,t=1,p=1") {
		t.Fatalf("the weak hash %q does not carry its parameters", before)
	}
	if _, err := people.New(people.Settings{}).SignIn(w.at(context.Background()), w.c, w.user.Email, pw, people.Client{}); err != nil {
		t.Fatal(err)
	}
	after := stored()
	if after == before || strings.Contains(after, "m=8192,t=1,p=1") {
		t.Fatalf("the hash was not upgraded: %q", after)
	}
	if _, err := people.New(people.Settings{}).SignIn(w.at(context.Background()), w.c, w.user.Email, pw, people.Client{}); err != nil {
		t.Fatalf("signing in with the upgraded hash: %v", err)
	}
}
