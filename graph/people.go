package graph

import (
	"context"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/people"
)

// AcceptPath is where the console sets a password with an invitation
// token; UserInvitation.url is it followed by the token.
const AcceptPath = "/console/#/accept/"

// invitation is the GraphQL answer of an invitation just made.
func invitation(inv *people.Invitation, err error) (*UserInvitation, error) {
	if err != nil {
		return nil, err
	}
	return &UserInvitation{User: inv.User, Token: inv.Token, ExpiresAt: inv.ExpiresAt, URL: AcceptPath + inv.Token}, nil
}

// me is who calls: the person (signed in, or the user the key is bound
// to), the credential's scopes and its kind.
func (r *Resolver) me(ctx context.Context) (*Me, error) {
	v, ok := viewer.FromContext(ctx)
	if !ok || v.Credential() == "" {
		return nil, apperr.New(apperr.Unauthorized, "authentication required")
	}
	out := &Me{Scopes: v.Scopes, Credential: Credential(v.Credential())}
	if out.Scopes == nil {
		out.Scopes = []string{}
	}
	if v.UserID == uuid.Nil {
		return out, nil
	}
	// The caller's own record, whatever its scopes: an agent's key may
	// not read users in general, but may know who it is.
	u, err := r.client(ctx).User.Get(rule.SystemContext(ctx), v.UserID)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	out.User = u
	return out, nil
}

// signInStatus is whether u can sign in.
func signInStatus(u *ent.User) SignInStatus {
	switch {
	case u.DeactivatedAt != nil:
		return SignInStatusDeactivated
	case u.InvitationHash != nil:
		return SignInStatusInvited // a reset's new invitation included
	case u.PasswordHash != nil || u.LastSignInAt != nil:
		return SignInStatusActive // single sign-on needs no password
	case u.SignInEmail != nil:
		return SignInStatusInvited // the invitation expired unused
	}
	return SignInStatusNone
}
