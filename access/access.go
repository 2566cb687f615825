// Package access holds who may call the API and how an organization's
// admin manages it: API keys (created, listed, rotated, revoked) and apps
// (registered, installed with their app tokens, uninstalled), each flow
// one function that the GraphQL operations and the command line call.
// Every change is in the audit log, written by the records' hooks in the
// change's transaction.
//
// It imports ent, the store and the leaves.
package access

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/apikey"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/ent/webhooksubscription"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Rotation grace periods: how long a rotated key keeps working beside the
// new one.
const (
	DefaultGrace = 24 * time.Hour
	MaxGrace     = 7 * 24 * time.Hour
	// MaxLifetime bounds a key's expiresAt; a key may also never expire.
	MaxLifetime = 10 * 365 * 24 * time.Hour
)

// NewKey is an API key to create.
type NewKey struct {
	Name   string
	Scopes []string
	// ExpiresAt, when set, is when the key stops working; it must be later
	// than now.
	ExpiresAt *time.Time
	// UserID, when set, is the user of the organization the key acts as
	// (PRODUCT 9.4); not a deactivated one.
	UserID *uuid.UUID
}

// admin is the organization of a caller who may manage its access (the
// admin scope, and not an app token), asked before anything is read.
// Every flow that manages credentials or apps starts here.
func admin(ctx context.Context) (uuid.UUID, error) {
	org, err := rule.RequireOrg(ctx, viewer.ScopeAdmin, "managing API keys")
	if err != nil {
		return uuid.Nil, err
	}
	v, _ := viewer.FromContext(ctx)
	// PRODUCT 3: an app token never manages credentials or apps, whatever
	// its scopes; else a token granted admin could mint an API key that
	// outlives the app's uninstallation.
	if v.InstallationID != uuid.Nil {
		return uuid.Nil, apperr.New(apperr.Forbidden, "an app token cannot manage API keys or apps; use an API key")
	}
	return org, nil
}

// CreateKey creates an API key (svc_live_) and returns its secret, shown
// only now, with its record.
func CreateKey(ctx context.Context, c *ent.Client, in NewKey) (string, *ent.APIKey, error) {
	org, err := admin(ctx)
	if err != nil {
		return "", nil, err
	}
	name := strings.TrimSpace(in.Name)
	if n := len([]rune(name)); n == 0 || n > bounds.MaxName {
		return "", nil, apperr.Invalid("name", "must be 1 to %d characters", bounds.MaxName)
	}
	if len(in.Scopes) == 0 {
		return "", nil, apperr.Invalid("scopes", "must name at least one scope: %s", strings.Join(viewer.AllScopes, ", "))
	}
	if in.ExpiresAt != nil {
		now := apitime.Now(ctx)
		if !in.ExpiresAt.After(now) {
			return "", nil, apperr.Invalid("expiresAt", "must be later than now")
		}
		if in.ExpiresAt.After(now.Add(MaxLifetime)) {
			return "", nil, apperr.Invalid("expiresAt", "must be within 10 years of now")
		}
	}
	if in.UserID != nil {
		active, err := c.User.Query().Where(user.ID(*in.UserID), user.OrgID(org), user.DeactivatedAtIsNil()).Exist(rule.SystemContext(ctx))
		if err != nil {
			return "", nil, fmt.Errorf("looking up the key's user: %w", err)
		}
		if !active {
			return "", nil, apperr.Invalid("userId", "no active user %s in this organization", *in.UserID)
		}
	}
	return store.CreateKey(ctx, c, org, store.KeySpec{Kind: "live", Name: name, Scopes: in.Scopes, ExpiresAt: in.ExpiresAt, UserID: in.UserID})
}

// RevokeKey stops the key working: at once on this server, within
// store.KeyCacheTTL on every other (and their websockets of it
// close). Revoking a revoked key changes nothing.
func RevokeKey(ctx context.Context, c *ent.Client, id uuid.UUID) (*ent.APIKey, error) {
	org, err := admin(ctx)
	if err != nil {
		return nil, err
	}
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.APIKey, error) {
		k, err := apiKey(ctx, c, org, id)
		if err != nil || k.RevokedAt != nil {
			return k, err
		}
		// Conditional, so a revocation racing another leaves one record.
		// The one that finds the key revoked meanwhile answers as a later
		// revocation does: the key, revoked by the first.
		if err := c.APIKey.Update().Where(apikey.ID(k.ID), apikey.RevokedAtIsNil()).
			SetRevokedAt(apitime.Now(ctx)).Exec(ctx); err != nil {
			return nil, fmt.Errorf("revoking the key: %w", err)
		}
		return c.APIKey.Get(ctx, k.ID)
	})
}

// apiKey is the organization's API key id: an app token (svc_at_) is its
// app installation's, not managed here, and not found.
func apiKey(ctx context.Context, c *ent.Client, org, id uuid.UUID) (*ent.APIKey, error) {
	return c.APIKey.Query().Where(apikey.ID(id), apikey.OrgID(org), apikey.KindEQ(apikey.KindLive)).Only(ctx)
}

// moveSubscriptions hands the webhook subscriptions whose deliveries
// follow the key from to its replacement to, in the rotation's
// transaction: a subscription's credential is always one key, whatever
// the number of rotations (PRODUCT 3, events follow scopes).
func moveSubscriptions(ctx context.Context, c *ent.Client, from, to uuid.UUID) error {
	err := c.WebhookSubscription.Update().Where(webhooksubscription.KeyID(from)).SetKeyID(to).Exec(ctx)
	if err != nil {
		return fmt.Errorf("moving the rotated key's webhook subscriptions to its replacement: %w", err)
	}
	return nil
}

// RotateKey replaces the key with a new one of the same name, scopes and
// expiry, whose secret it returns, shown only now. The old key keeps
// working for grace (DefaultGrace when nil, at most MaxGrace), then stops
// as an expired key does. A revoked, expired or already rotated key is
// not rotated.
func RotateKey(ctx context.Context, c *ent.Client, id uuid.UUID, grace *time.Duration) (string, *ent.APIKey, error) {
	org, err := admin(ctx)
	if err != nil {
		return "", nil, err
	}
	g := DefaultGrace
	if grace != nil {
		g = *grace
	}
	if g < 0 || g > MaxGrace {
		return "", nil, apperr.Invalid("graceSeconds", "must be 0 to %d (7 days)", int(MaxGrace.Seconds()))
	}
	type rotated struct {
		secret string
		key    *ent.APIKey
	}
	out, err := store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (rotated, error) {
		old, err := apiKey(ctx, c, org, id)
		if err != nil {
			return rotated{}, err
		}
		now := apitime.Now(ctx)
		switch {
		case old.RevokedAt != nil:
			return rotated{}, apperr.New(apperr.Conflict, "the key %s is revoked; create a new one", old.DisplayPrefix)
		case old.ReplacedBy != nil:
			return rotated{}, apperr.New(apperr.Conflict, "the key %s was rotated already; rotate its replacement", old.DisplayPrefix)
		case old.ExpiresAt != nil && !now.Before(*old.ExpiresAt):
			return rotated{}, apperr.New(apperr.Conflict, "the key %s has expired; create a new one", old.DisplayPrefix)
		}
		secret, key, err := store.CreateKey(ctx, c, org, store.KeySpec{Kind: "live", Name: old.Name,
			Scopes: old.Scopes, ExpiresAt: old.ExpiresAt, UserID: old.UserID})
		if err != nil {
			return rotated{}, err
		}
		until := apitime.Truncate(now.Add(g))
		if old.ExpiresAt != nil && old.ExpiresAt.Before(until) {
			until = *old.ExpiresAt
		}
		// Conditional: of two rotations (or a rotation and a revocation)
		// racing, one wins and the other is refused, rolling back its key.
		n, err := c.APIKey.Update().Where(apikey.ID(old.ID), apikey.ReplacedByIsNil(), apikey.RevokedAtIsNil()).
			SetReplacedBy(key.ID).SetExpiresAt(until).Save(ctx)
		if err != nil {
			return rotated{}, fmt.Errorf("ending the rotated key: %w", err)
		}
		if n == 0 {
			return rotated{}, apperr.New(apperr.Conflict, "the key %s was rotated or revoked meanwhile", old.DisplayPrefix)
		}
		if err := moveSubscriptions(ctx, c, old.ID, key.ID); err != nil {
			return rotated{}, err
		}
		return rotated{secret, key}, nil
	})
	return out.secret, out.key, err
}
