package console_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/people"
)

const personPassword = "correct horse battery staple"

// passwordSignIn fills the sign-in form with email and password and
// submits it.
func passwordSignIn(t *testing.T, ctx context.Context, email, password string) {
	t.Helper()
	run(t, ctx,
		chromedp.WaitVisible(chromedp.CSS(`form.sign-in input[name="email"]`)),
		evalVoid(`document.querySelector('form.sign-in input[name="email"]').value = ''; document.querySelector('form.sign-in input[name="password"]').value = ''`),
		chromedp.SendKeys(chromedp.CSS(`form.sign-in input[name="email"]`), email),
		chromedp.SendKeys(chromedp.CSS(`form.sign-in input[name="password"]`), password),
		chromedp.Click(chromedp.CSS(`form.sign-in button[type="submit"]`)),
	)
}

// A person signs in with email and password: a wrong password is refused
// beside the form; the right one shows their name, and the session (not a
// stored key) carries the console; sign-out ends it.
func TestPasswordSignInAndOut(t *testing.T) {
	env := serve(t)
	u := env.NewPerson(env.Org.ID, "Ada", "Advisor", "advisor", personPassword)
	// The wrong password's 401 is the one failed load this test expects.
	ctx := newBrowser(t, "status of 401")
	run(t, ctx, chromedp.Navigate(env.Server.URL+"/console"))
	passwordSignIn(t, ctx, u.Email, "not the password at all")
	waitFor(t, ctx, `document.querySelector('form.sign-in .form-error') !== null`)
	if msg := eval[string](t, ctx, `document.querySelector('form.sign-in .form-error').textContent`); !strings.Contains(msg, "email or password is wrong") {
		t.Errorf("the refusal reads %q", msg)
	}
	shot(t, ctx, "sign-in-wrong-password")

	passwordSignIn(t, ctx, u.Email, personPassword)
	// A person's console opens on their day.
	waitFor(t, ctx, `document.getElementById('who').textContent === 'Ada Advisor' && document.querySelector('main h1')?.textContent === 'My day'`)
	if stored := eval[int](t, ctx, `sessionStorage.length + localStorage.length + document.cookie.length`); stored != 0 {
		t.Errorf("signed in by session, the page stored %d things it can read (the cookie is HttpOnly)", stored)
	}
	if users := eval[bool](t, ctx, `[...document.querySelectorAll('#nav a')].some(a => a.textContent === 'Users')`); users {
		t.Error("an advisor's nav links to Users")
	}
	// Reached by its address, the admins' screen says whose it is.
	run(t, ctx, evalVoid(`location.hash = '#/users'`))
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Users' && document.querySelector('main p.muted') !== null`)
	if text := eval[string](t, ctx, `document.querySelector('main p.muted').textContent`); text != "This screen is for admins; you are signed in as an advisor." {
		t.Errorf("an advisor's Users screen reads %q", text)
	}
	run(t, ctx, evalVoid(`location.hash = '#/board'`))
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Pipeline board' && document.querySelector('.screen-head button.primary') !== null`)
	// A write goes with the session's CSRF token: the advisor creates a
	// lead, which records them as its creator.
	shot(t, ctx, "signed-in-person")
	run(t, ctx,
		chromedp.Click(chromedp.CSS(`.screen-head button.primary`)),
		chromedp.WaitVisible(chromedp.CSS(`form.new-lead input[name="businessName"]`)),
		chromedp.SendKeys(chromedp.CSS(`form.new-lead input[name="businessName"]`), "Session Bakery"),
		chromedp.Click(chromedp.CSS(`form.new-lead button[type="submit"]`)),
	)
	waitFor(t, ctx, `location.hash.startsWith('#/leads/') && document.querySelector('main h1')?.textContent === 'Session Bakery'`)
	id := strings.TrimPrefix(eval[string](t, ctx, `location.hash`), "#/leads/")
	if by := env.Get("/v1/leads/"+id, env.Key).Attr("createdBy"); by != "user:"+u.ID.String() {
		t.Errorf("the lead was created by %v, want user:%s", by, u.ID)
	}
	waitFor(t, ctx, `document.querySelector('form.submit-lenders') !== null`)
	// A reload keeps the person signed in.
	run(t, ctx, chromedp.Reload())
	waitFor(t, ctx, `document.getElementById('who').textContent === 'Ada Advisor'`)

	run(t, ctx, chromedp.Click(chromedp.CSS(`#sign-out`)))
	waitFor(t, ctx, `document.querySelector('form.sign-in input[name="email"]') !== null && document.getElementById('who').textContent === ''`)
	run(t, ctx, chromedp.Reload())
	waitFor(t, ctx, `document.querySelector('form.sign-in input[name="email"]') !== null`)
}

// An invitation link sets the person's password and signs them in.
func TestAcceptInvitationLink(t *testing.T) {
	env := serve(t)
	u := env.NewUser(env.Org.ID, "Ivy", "Invited", "admin", "")
	admin := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: env.Org.ID, Scopes: []string{viewer.ScopeAdmin}})
	inv, err := people.New(people.Settings{}).InviteUser(admin, env.DB.Client, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t, "status of 422")
	run(t, ctx, chromedp.Navigate(env.Server.URL+"/console/#/accept/"+inv.Token),
		chromedp.WaitVisible(chromedp.CSS(`form.accept input[name="password"]`)))
	// A password on the common list is refused beside its field.
	run(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`form.accept input[name="password"]`), "password1234"),
		chromedp.SendKeys(chromedp.CSS(`form.accept input[name="confirm"]`), "password1234"),
		chromedp.Click(chromedp.CSS(`form.accept button[type="submit"]`)))
	waitFor(t, ctx, `document.querySelector('form.accept .form-error') !== null`)
	if msg := eval[string](t, ctx, `document.querySelector('form.accept .form-error').textContent`); !strings.Contains(msg, "common") {
		t.Errorf("a common password's refusal reads %q", msg)
	}
	run(t, ctx,
		evalVoid(`for (const i of document.querySelectorAll('form.accept input')) i.value = ''`),
		chromedp.SendKeys(chromedp.CSS(`form.accept input[name="password"]`), personPassword),
		chromedp.SendKeys(chromedp.CSS(`form.accept input[name="confirm"]`), personPassword),
		chromedp.Click(chromedp.CSS(`form.accept button[type="submit"]`)))
	waitFor(t, ctx, `document.getElementById('who').textContent === 'Ivy Invited' && location.hash === '#/my-day' && document.querySelector('main h1')?.textContent === 'My day'`)
	if users := eval[bool](t, ctx, `[...document.querySelectorAll('#nav a')].some(a => a.textContent === 'Users')`); !users {
		t.Error("an admin's nav has no Users")
	}
}

// An admin invites a person from the Users screen: the link shows once,
// and the person's status says invited; "Use an API key" still signs in.
func TestUsersScreenInvites(t *testing.T) {
	env := serve(t)
	admin := env.NewPerson(env.Org.ID, "Ari", "Admin", "admin", personPassword)
	env.NewUser(env.Org.ID, "Nell", "Newcomer", "advisor", "")
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(env.Server.URL+"/console"))
	passwordSignIn(t, ctx, admin.Email, personPassword)
	waitFor(t, ctx, `document.getElementById('who').textContent === 'Ari Admin'`)
	run(t, ctx, evalVoid(`location.hash = '#/users'`))
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Users' && document.querySelector('button[aria-label="Invite Nell Newcomer"]') !== null`)
	run(t, ctx, chromedp.Click(chromedp.CSS(`button[aria-label="Invite Nell Newcomer"]`)))
	waitFor(t, ctx, `document.querySelector('.secret input')?.value.includes('/console/#/accept/svc_inv_')`)
	waitFor(t, ctx, `[...document.querySelectorAll('main tr')].some(r => r.textContent.includes('Nell') && r.textContent.includes('Invited until'))`)
	shot(t, ctx, "users")
	link := eval[string](t, ctx, `document.querySelector('.secret input').value`)
	if !strings.HasPrefix(link, env.Server.URL+"/console/#/accept/svc_inv_") {
		t.Errorf("the invitation link is %q", link)
	}
	run(t, ctx, chromedp.Click(chromedp.CSS(`#sign-out`)))
	waitFor(t, ctx, `document.querySelector('form.sign-in button.use-key') !== null`)
	// Developers still sign in with a key.
	run(t, ctx, chromedp.Click(chromedp.CSS(`form.sign-in button.use-key`)))
	signInHere(t, ctx, env.Key)
	waitFor(t, ctx, `document.getElementById('who').textContent === 'API key'`)
}

// The playground uses a person's session when the console holds no key:
// the default query answers with the organization.
func TestPlaygroundUsesSession(t *testing.T) {
	env := serve(t)
	u := env.NewPerson(env.Org.ID, "Pia", "Playground", "advisor", personPassword)
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(env.Server.URL+"/console"))
	passwordSignIn(t, ctx, u.Email, personPassword)
	waitFor(t, ctx, `document.getElementById('who').textContent === 'Pia Playground'`)
	run(t, ctx, chromedp.Navigate(env.Server.URL+"/playground"))
	waitFor(t, ctx, `document.querySelector('.graphiql-execute-button') !== null`)
	run(t, ctx, chromedp.Click(chromedp.CSS(`.graphiql-execute-button`)))
	waitFor(t, ctx, `document.querySelector('.graphiql-response')?.textContent.includes('`+env.Org.Name+`')`)
}

// An agent signed in sees a lead's page without lending actions, and the
// lending records not at all: their role holds leads:read and dialer:write.
func TestAgentSeesNoLendingActions(t *testing.T) {
	env := serve(t)
	agent := env.NewPerson(env.Org.ID, "Al", "Agent", "agent", personPassword)
	id := env.Post("/v1/leads", env.Key, map[string]any{"businessName": "Agent Deli"}).Data()["id"].(string)
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(env.Server.URL+"/console"))
	passwordSignIn(t, ctx, agent.Email, personPassword)
	waitFor(t, ctx, `document.getElementById('who').textContent === 'Al Agent'`)
	run(t, ctx, evalVoid(`location.hash = '#/leads/`+id+`'`))
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Agent Deli' && document.querySelector('section.lending') !== null`)
	if n := eval[int](t, ctx, `document.querySelectorAll('section.lending form, section.lending button').length`); n != 0 {
		t.Errorf("an agent's lead page shows %d lending forms and buttons", n)
	}
	if text := eval[string](t, ctx, `document.querySelector('section.lending').textContent`); !strings.Contains(text, "does not show lending") {
		t.Errorf("an agent's lending section reads %q", text)
	}
}

// A user who never had a sign-in may still have an API key acting as them:
// the header names them and the key, and an admin deactivates them from
// the Users screen, which stops the key.
func TestUsersScreenDeactivatesAKeysPerson(t *testing.T) {
	env := serve(t)
	admin := env.NewPerson(env.Org.ID, "Ari", "Admin", "admin", personPassword)
	bo := env.NewUser(env.Org.ID, "Bo", "Bound", "advisor", "")
	key, _, err := store.CreateKey(context.Background(), env.DB.Client, env.Org.ID,
		store.KeySpec{Kind: "live", Name: "bo's script", Scopes: []string{viewer.ScopeLeadsRead}, UserID: &bo.ID})
	if err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	signIn(t, ctx, env, key)
	waitFor(t, ctx, `document.getElementById('who').textContent === 'Bo Bound (API key)'`)
	run(t, ctx, chromedp.Click(chromedp.CSS(`#sign-out`)))

	passwordSignIn(t, ctx, admin.Email, personPassword)
	waitFor(t, ctx, `document.getElementById('who').textContent === 'Ari Admin'`)
	run(t, ctx, evalVoid(`location.hash = '#/users'`))
	waitFor(t, ctx, `document.querySelector('button[aria-label="Deactivate Bo Bound"]') !== null`)
	if n := eval[int](t, ctx, `document.querySelectorAll('button[aria-label="Reset sign-in of Bo Bound"]').length`); n != 0 {
		t.Error("a user with no sign-in has a Reset button")
	}
	run(t, ctx, chromedp.Click(chromedp.CSS(`button[aria-label="Deactivate Bo Bound"]`)))
	confirmOpenDialog(t, ctx)
	waitFor(t, ctx, `[...document.querySelectorAll('main tr')].some(r => r.textContent.includes('Bo Bound') && r.textContent.includes('Deactivated')) && document.querySelector('button[aria-label="Invite Bo Bound"]') !== null`)
	if n := eval[int](t, ctx, `document.querySelectorAll('button[aria-label="Deactivate Bo Bound"]').length`); n != 0 {
		t.Error("a deactivated user still has a Deactivate button")
	}
	if r := env.Get("/v1/leads", key); r.Status != http.StatusUnauthorized {
		t.Errorf("the deactivated person's key answered %d, want 401", r.Status)
	}
}

// A session that ends while the console is open (here the person is
// deactivated) brings back the sign-in form at the next call, saying why.
func TestEndedSessionReturnsToSignIn(t *testing.T) {
	env := serve(t)
	u := env.NewPerson(env.Org.ID, "Eve", "Ended", "advisor", personPassword)
	ctx := newBrowser(t, "status of 401")
	run(t, ctx, chromedp.Navigate(env.Server.URL+"/console"))
	passwordSignIn(t, ctx, u.Email, personPassword)
	waitFor(t, ctx, `document.getElementById('who').textContent === 'Eve Ended' && document.querySelector('main h1')?.textContent === 'My day'`)

	r := env.Post("/graphql", env.Key, map[string]any{
		"query":     `mutation($id: ID!) { deactivateUser(userId: $id) { signIn } }`,
		"variables": map[string]any{"id": u.ID.String()},
	})
	if r.Status != http.StatusOK || r.Body["errors"] != nil {
		t.Fatalf("deactivating: %d %s", r.Status, r.Raw)
	}
	run(t, ctx, evalVoid(`location.hash = '#/lenders'`))
	waitAfterLeaving(t, ctx, `document.querySelector('form.sign-in input[name="email"]') !== null && (document.querySelector('#errors .error')?.textContent || '').includes('Your session ended; sign in again')`)
	if who := eval[string](t, ctx, `document.getElementById('who').textContent`); who != "" {
		t.Errorf("after the session ended the header names %q", who)
	}
}
