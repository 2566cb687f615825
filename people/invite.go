package people

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/password"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/token"
	"github.com/lendingpipe/svc/internal/viewer"
)

// InvitationPrefix starts every invitation token.
const InvitationPrefix = "svc_inv_"

// Invitation is an invitation just made: its token is shown only now.
type Invitation struct {
	User      *ent.User
	Token     string
	ExpiresAt time.Time
}

// admin is the organization of a caller who may manage sign-ins: the
// admin scope, and not an app token (an app never manages people).
func admin(ctx context.Context, doing string) (uuid.UUID, error) {
	org, err := rule.RequireOrg(ctx, viewer.ScopeAdmin, doing)
	if err != nil {
		return uuid.Nil, err
	}
	if v, _ := viewer.FromContext(ctx); v.InstallationID != uuid.Nil {
		return uuid.Nil, apperr.New(apperr.Forbidden, "an app token cannot manage sign-ins; use an API key or sign in")
	}
	return org, nil
}

// orgUser is the organization's user id, locked for the change.
func orgUser(ctx context.Context, c *ent.Client, org, id uuid.UUID) (*ent.User, error) {
	u, err := c.User.Query().Where(user.ID(id), user.OrgID(org)).Only(rule.SystemContext(ctx))
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "user %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the user: %w", err)
	}
	return u, nil
}

// InviteUser gives a user a sign-in (PRODUCT 9.1): an invitation token,
// valid InvitationTTL and once, with which they set a password. A user
// with an open invitation gets a new one, the old one stopping; a
// deactivated user is reactivated. A user who already signs in is refused:
// resetUserSignIn is for them.
func (a *Accounts) InviteUser(ctx context.Context, c *ent.Client, userID uuid.UUID) (*Invitation, error) {
	org, err := admin(ctx, "inviting a user")
	if err != nil {
		return nil, err
	}
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*Invitation, error) {
		u, err := orgUser(ctx, c, org, userID)
		if err != nil {
			return nil, err
		}
		if u.PasswordHash != nil && u.DeactivatedAt == nil {
			return nil, apperr.New(apperr.Conflict, "%s signs in already; resetUserSignIn sends a new invitation", u.Email)
		}
		inv, err := a.invite(ctx, c, u)
		if err != nil {
			return nil, err
		}
		return inv, audit(ctx, c, u, "user.invited", nil)
	})
}

// ResetUserSignIn ends a user's sessions, clears their password and
// issues a new invitation: for a forgotten password or one that may have
// leaked. A user with no sign-in is invited first; a deactivated one is
// refused.
func (a *Accounts) ResetUserSignIn(ctx context.Context, c *ent.Client, userID uuid.UUID) (*Invitation, error) {
	org, err := admin(ctx, "resetting a user's sign-in")
	if err != nil {
		return nil, err
	}
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*Invitation, error) {
		u, err := orgUser(ctx, c, org, userID)
		switch {
		case err != nil:
			return nil, err
		case u.SignInEmail == nil:
			return nil, apperr.New(apperr.Conflict, "%s has no sign-in; inviteUser gives one", u.Email)
		case u.DeactivatedAt != nil:
			return nil, apperr.New(apperr.Conflict, "%s is deactivated; inviteUser reactivates them", u.Email)
		}
		if err := endSessions(ctx, c, u.ID); err != nil {
			return nil, err
		}
		inv, err := a.invite(ctx, c, u)
		if err != nil {
			return nil, err
		}
		return inv, audit(ctx, c, u, "user.sign_in_reset", nil)
	})
}

// DeactivateUser ends a user's sessions at once, on every replica, closes
// any open invitation and refuses their next sign-in; API keys bound to
// them stop working too. Deactivating a deactivated user changes nothing.
func (a *Accounts) DeactivateUser(ctx context.Context, c *ent.Client, userID uuid.UUID) (*ent.User, error) {
	org, err := admin(ctx, "deactivating a user")
	if err != nil {
		return nil, err
	}
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.User, error) {
		u, err := orgUser(ctx, c, org, userID)
		if err != nil || u.DeactivatedAt != nil {
			return u, err
		}
		if err := endSessions(ctx, c, u.ID); err != nil {
			return nil, err
		}
		u, err = c.User.UpdateOne(u).SetDeactivatedAt(apitime.Now(ctx)).
			ClearInvitationHash().ClearInvitationExpiresAt().Save(rule.SystemContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("deactivating the user: %w", err)
		}
		return u, audit(ctx, c, u, "user.deactivated", nil)
	})
}

// invite writes a new invitation for u: its sign-in email taken (unique
// across organizations), its password cleared, deactivation lifted.
func (a *Accounts) invite(ctx context.Context, c *ent.Client, u *ent.User) (*Invitation, error) {
	secret := token.New(InvitationPrefix, 32, token.Base32)
	expires := apitime.Truncate(apitime.Now(ctx).Add(a.cfg.InvitationTTL))
	invited, err := c.User.UpdateOne(u).SetSignInEmail(normalEmail(u.Email)).
		SetInvitationHash(digest(secret)).SetInvitationExpiresAt(expires).
		ClearPasswordHash().ClearDeactivatedAt().Save(rule.SystemContext(ctx))
	if ent.IsConstraintError(err) {
		return nil, apperr.New(apperr.Conflict, "another account signs in with %s; a sign-in email is unique across organizations", u.Email)
	}
	if err != nil {
		return nil, fmt.Errorf("writing the invitation: %w", err)
	}
	return &Invitation{User: invited, Token: secret, ExpiresAt: expires}, nil
}

// badInvitation answers every invitation that cannot be used, in the
// same words: unknown, used, expired or of a deactivated user.
func badInvitation() error {
	return apperr.Invalid("token", "the invitation is unknown, used or expired; ask an admin for a new one")
}

// AcceptInvitation sets the invited user's password (PRODUCT 9.1); the
// invitation is then used. No credential is needed: the token is one.
func (a *Accounts) AcceptInvitation(ctx context.Context, c *ent.Client, secret, pw string) (*ent.User, error) {
	u, err := c.User.Query().Where(user.InvitationHash(digest(secret))).Only(rule.SystemContext(ctx))
	switch {
	case ent.IsNotFound(err):
		return nil, badInvitation()
	case err != nil:
		return nil, fmt.Errorf("reading the invitation: %w", err)
	case u.InvitationExpiresAt == nil || !apitime.Now(ctx).Before(*u.InvitationExpiresAt) || u.DeactivatedAt != nil:
		return nil, badInvitation()
	}
	if err := password.Check(pw, u.Email); err != nil {
		return nil, apperr.Invalid("password", "%s", err.Error())
	}
	hash, err := a.hasher.Hash(ctx, pw)
	if err != nil {
		return nil, fmt.Errorf("hashing the password: %w", err)
	}
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.User, error) {
		// Conditional on the invitation still open: of two acceptances
		// racing, one sets the password.
		n, err := c.User.Update().Where(user.ID(u.ID), user.InvitationHash(digest(secret))).
			SetPasswordHash(hash).ClearInvitationHash().ClearInvitationExpiresAt().Save(rule.SystemContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("setting the password: %w", err)
		}
		if n == 0 {
			return nil, badInvitation()
		}
		u, err := c.User.Get(rule.SystemContext(ctx), u.ID)
		if err != nil {
			return nil, fmt.Errorf("reading the user: %w", err)
		}
		return u, audit(viewer.NewContext(ctx, personViewer(u, uuid.Nil)), c, u, "user.invitation_accepted", nil)
	})
}
