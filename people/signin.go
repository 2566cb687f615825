package people

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/signinfailure"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/token"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Sign-in methods, as a session records them.
const (
	MethodPassword = "password"
	MethodOIDC     = "oidc"
)

// SignedIn is a session just begun: its token goes in the svc_session
// cookie and is never shown again; only its hash is stored.
type SignedIn struct {
	Token string
	Session
}

// wrongCredentials is the one answer to every refused password sign-in,
// whatever was wrong: an unknown email, a wrong password, a user with no
// password yet or deactivated (PRODUCT 9.2). Each costs one password hash,
// so the time says no more than the words.
func wrongCredentials() error {
	return apperr.New(apperr.Unauthorized, "email or password is wrong")
}

// SignIn signs a person in with email and password (PRODUCT 9.2). An
// email locked out by repeated failures is refused first, with how long
// it has to wait; every other refusal is wrongCredentials. A password
// hash made with weaker parameters than the current ones is upgraded.
func (a *Accounts) SignIn(ctx context.Context, c *ent.Client, email, pw string, from Client) (*SignedIn, error) {
	ctx = rule.SystemContext(ctx)
	email = normalEmail(email)
	if err := locked(ctx, c, email); err != nil {
		return nil, err
	}
	u, err := c.User.Query().Where(user.SignInEmail(email)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, fmt.Errorf("reading the user: %w", err)
	}
	if u == nil || u.PasswordHash == nil || u.DeactivatedAt != nil {
		if err := a.hasher.VerifyDummy(ctx, pw); err != nil {
			return nil, err
		}
		return nil, a.refuse(ctx, c, u, email, from)
	}
	ok, rehash, err := a.hasher.Verify(ctx, pw, *u.PasswordHash)
	if err != nil {
		return nil, fmt.Errorf("checking the password: %w", err)
	}
	if !ok {
		return nil, a.refuse(ctx, c, u, email, from)
	}
	var upgraded string
	if rehash {
		if upgraded, err = a.hasher.Hash(ctx, pw); err != nil {
			return nil, fmt.Errorf("upgrading the password hash: %w", err)
		}
	}
	return a.begin(ctx, c, u, MethodPassword, from, upgraded)
}

// SignInVerifiedEmail signs in the person whose email the organization's
// OpenID provider verified (PRODUCT 9.6): an invited user, not
// deactivated. Any other email is refused; the caller says so.
func (a *Accounts) SignInVerifiedEmail(ctx context.Context, c *ent.Client, email string, from Client) (*SignedIn, error) {
	ctx = rule.SystemContext(ctx)
	u, err := c.User.Query().Where(user.SignInEmail(normalEmail(email))).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return nil, apperr.New(apperr.Forbidden, "%s has no sign-in here; an admin invites people by email", apperr.Quote(email))
	case err != nil:
		return nil, fmt.Errorf("reading the user: %w", err)
	case u.DeactivatedAt != nil:
		return nil, apperr.New(apperr.Forbidden, "%s is deactivated", apperr.Quote(email))
	}
	return a.begin(ctx, c, u, MethodOIDC, from, "")
}

// begin writes a new session for u, with a new token whatever the browser
// held before (no fixation), and records the sign-in; upgraded, when set,
// replaces the stored password hash.
func (a *Accounts) begin(ctx context.Context, c *ent.Client, u *ent.User, method string, from Client, upgraded string) (*SignedIn, error) {
	secret := token.New("", 32, token.Base32)
	now := apitime.Now(ctx)
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*SignedIn, error) {
		s, err := c.Session.Create().SetOrgID(u.OrgID).SetUserID(u.ID).SetTokenHash(digest(secret)).
			SetCsrfToken(token.New("", 32, token.Base32)).SetCreatedAt(now).SetLastSeenAt(now).
			SetExpiresAt(now.Add(a.cfg.Lifetime)).SetMethod(method).
			SetClientIP(from.IP).SetUserAgent(truncate(from.UserAgent, 500)).Save(ctx)
		if err != nil {
			return nil, fmt.Errorf("writing the session: %w", err)
		}
		update := c.User.UpdateOne(u).SetLastSignInAt(now)
		if upgraded != "" {
			update.SetPasswordHash(upgraded)
		}
		if u, err = update.Save(ctx); err != nil {
			return nil, fmt.Errorf("recording the sign-in: %w", err)
		}
		signedIn := &SignedIn{Token: secret, Session: a.session(s, u)}
		actx := viewer.NewContext(ctx, personViewer(u, s.ID))
		return signedIn, audit(actx, c, u, "user.signed_in", &from)
	})
}

// refuse records a failed sign-in for email, for the lockout and, when the
// email is a person's, in their organization's audit log, and answers
// wrongCredentials.
func (a *Accounts) refuse(ctx context.Context, c *ent.Client, u *ent.User, email string, from Client) error {
	err := store.WithTx(ctx, c, func(ctx context.Context, c *ent.Client) error {
		if err := c.SignInFailure.Create().SetEmailHash(digest(email)).SetAt(apitime.Now(ctx)).Exec(ctx); err != nil {
			return fmt.Errorf("recording the failed sign-in: %w", err)
		}
		if u == nil {
			return nil
		}
		return auditFailure(ctx, c, u, email, from)
	})
	if err != nil {
		return err
	}
	return wrongCredentials()
}

// locked refuses an email whose last LockoutFailures failures fell within
// LockoutWindow of each other, until LockoutWindow after the last of them.
// Refusals while locked are not failures, so the lock ends on time.
func locked(ctx context.Context, c *ent.Client, email string) error {
	now := apitime.Now(ctx)
	// Five failures within 15 minutes whose last is under 15 minutes old
	// all fall in the last 30 minutes.
	recent, err := c.SignInFailure.Query().
		Where(signinfailure.EmailHash(digest(email)), signinfailure.AtGT(now.Add(-2*LockoutWindow))).
		Order(ent.Desc(signinfailure.FieldAt)).Limit(LockoutFailures).All(ctx)
	if err != nil {
		return fmt.Errorf("reading failed sign-ins: %w", err)
	}
	if len(recent) < LockoutFailures || recent[0].At.Sub(recent[len(recent)-1].At) > LockoutWindow {
		return nil
	}
	until := recent[0].At.Add(LockoutWindow)
	if !now.Before(until) {
		return nil
	}
	seconds := int(math.Ceil(until.Sub(now).Seconds()))
	return &apperr.Error{Code: apperr.RateLimited,
		Message: fmt.Sprintf("too many failed sign-ins for this email; retry after %d seconds", seconds),
		Detail:  map[string]any{"retryAfterSeconds": seconds}}
}

// PurgeFailures deletes failed sign-ins older than twice the lockout
// window, which no lockout reads again.
func PurgeFailures(ctx context.Context, c *ent.Client, now time.Time) (int, error) {
	n, err := c.SignInFailure.Delete().Where(signinfailure.AtLT(now.Add(-2 * LockoutWindow))).Exec(rule.SystemContext(ctx))
	if err != nil {
		return 0, fmt.Errorf("purging failed sign-ins: %w", err)
	}
	return n, nil
}

// personViewer is the caller u is when signed in with session (uuid.Nil
// while none is open yet): their organization, their role's scopes.
func personViewer(u *ent.User, session uuid.UUID) viewer.Viewer {
	return viewer.Viewer{OrgID: u.OrgID, UserID: u.ID, SessionID: session, Scopes: viewer.RoleScopes[u.Role.String()]}
}

// truncate cuts s to at most n bytes at a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
