package webhooks

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/apikey"
	"github.com/lendingpipe/svc/ent/appinstallation"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
)

// A subscription's deliveries follow the scopes of the credential that
// created it, read again as its events are fanned out or replayed
// (PRODUCT 3): an app token's, its installation's; an API key's, that
// key's (a rotation moves its subscriptions to the replacing key). A
// revoked or expired key reads nothing, so its subscriptions receive
// nothing more. No subscription is the system's own: one whose credential
// is unknown (made before credentials were recorded, and not found in the
// audit log) reads nothing either.

// Audience says which events each of a set of subscriptions is sent: the
// one filter both the fan-out and a replay apply.
type Audience struct {
	creds map[uuid.UUID]viewer.Viewer // each subscription → the viewer its deliveries follow
	gone  map[uuid.UUID]time.Time     // uninstalled installations → when
}

// Receives reports whether s is sent ev: s lists ev's type, ev is for s
// (receives), and s's credential may read ev now.
func (a Audience) Receives(ev *ent.WebhookEvent, s *ent.WebhookSubscription) bool {
	if !event.Wants(s.Events, ev.EventType) || !receives(ev, s, a.gone) {
		return false
	}
	cred, ok := a.creds[s.ID]
	return ok && MayReceive(cred, ev)
}

// AudienceOf reads subs' credentials at now, without the worker's cache:
// for a replay, which is rare and must follow the credential as it is.
func AudienceOf(ctx context.Context, c *ent.Client, subs []*ent.WebhookSubscription, now time.Time) (Audience, error) {
	var fresh keyScopes
	return fresh.audience(ctx, c, subs, now)
}

// audience maps each of subs that has a credential to the viewer its
// deliveries follow, and the uninstalled installations among theirs to
// when they were uninstalled (their subscriptions receive the events up
// to then only).
func (k *keyScopes) audience(ctx context.Context, c *ent.Client, subs []*ent.WebhookSubscription, now time.Time) (Audience, error) {
	installs, err := installationsOf(ctx, c, subs)
	if err != nil {
		return Audience{}, fmt.Errorf("reading the subscriptions' app installations: %w", err)
	}
	keys, err := k.viewers(ctx, c, subs, now)
	if err != nil {
		return Audience{}, fmt.Errorf("reading the subscriptions' API keys: %w", err)
	}
	a := Audience{creds: make(map[uuid.UUID]viewer.Viewer, len(subs)), gone: map[uuid.UUID]time.Time{}}
	for _, s := range subs {
		switch {
		case s.InstallationID != nil:
			inst, ok := installs[*s.InstallationID]
			if !ok {
				a.creds[s.ID] = viewer.Viewer{OrgID: s.OrgID} // its installation is gone: it reads nothing
				continue
			}
			a.creds[s.ID] = viewer.Viewer{OrgID: s.OrgID, Scopes: inst.Scopes, InstallationID: inst.ID}
			if inst.UninstalledAt != nil {
				a.gone[inst.ID] = *inst.UninstalledAt
			}
		case s.KeyID != nil:
			a.creds[s.ID] = keys[*s.KeyID]
		}
	}
	return a, nil
}

// installationsOf is the installations of subs, by id, uninstalled or not.
func installationsOf(ctx context.Context, c *ent.Client, subs []*ent.WebhookSubscription) (map[uuid.UUID]*ent.AppInstallation, error) {
	var ids []uuid.UUID
	for _, s := range subs {
		if s.InstallationID != nil {
			ids = append(ids, *s.InstallationID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	all, err := c.AppInstallation.Query().Where(appinstallation.IDIn(ids...)).All(rule.SystemContext(ctx))
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]*ent.AppInstallation, len(all))
	for _, i := range all {
		out[i.ID] = i
	}
	return out, nil
}

// keyScopes remembers, for store.KeyCacheTTL, what the API keys that
// created subscriptions may read, so a fan-out costs no key lookup: a
// key's change reaches the deliveries as it reaches requests, at once on
// this replica (the store's signals.KeysVersion) and within the key-cache time on others.
type keyScopes struct {
	mu      sync.Mutex
	entries map[uuid.UUID]keyEntry
}

// keyEntry is the key a subscription's key resolves to.
type keyEntry struct {
	key     *ent.APIKey // the last of its rotations; nil when it is gone
	fetched time.Time
	version int64
}

// viewers maps the API keys of subs to the viewers their deliveries
// follow at now.
func (k *keyScopes) viewers(ctx context.Context, c *ent.Client, subs []*ent.WebhookSubscription, now time.Time) (map[uuid.UUID]viewer.Viewer, error) {
	version := c.Signals.KeysVersion()
	out := map[uuid.UUID]viewer.Viewer{}
	var missing []uuid.UUID
	k.mu.Lock()
	for _, s := range subs {
		if s.KeyID == nil {
			continue
		}
		if _, done := out[*s.KeyID]; done {
			continue
		}
		e, ok := k.entries[*s.KeyID]
		if !ok || e.version != version || time.Since(e.fetched) >= store.KeyCacheTTL {
			missing = append(missing, *s.KeyID)
			out[*s.KeyID] = viewer.Viewer{}
			continue
		}
		out[*s.KeyID] = keyViewer(s.OrgID, e.key, now)
	}
	k.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	latest, err := latestKeys(ctx, c, missing)
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.entries == nil {
		k.entries = map[uuid.UUID]keyEntry{}
	}
	for _, id := range missing {
		key := latest[id]
		k.entries[id] = keyEntry{key: key, fetched: time.Now(), version: version}
		var org uuid.UUID
		if key != nil {
			org = key.OrgID
		}
		out[id] = keyViewer(org, key, now)
	}
	return out, nil
}

// keyViewer is what key may read at now: nothing once it is revoked,
// expired or gone.
func keyViewer(org uuid.UUID, key *ent.APIKey, now time.Time) viewer.Viewer {
	if key == nil || key.RevokedAt != nil || key.ExpiresAt != nil && !now.Before(*key.ExpiresAt) {
		return viewer.Viewer{OrgID: org}
	}
	return viewer.Viewer{OrgID: key.OrgID, KeyID: key.ID, Scopes: key.Scopes}
}

// maxRotations bounds how many rotations latestKeys follows. A rotation
// moves the key's subscriptions to its replacement, so a subscription's key
// is the last of its chain; the chain is followed only for a key rotated
// before rotations did so.
const maxRotations = 16

// latestKeys maps each of ids to the key that replaced it by rotation,
// last of the chain (the key itself when never rotated), or to nothing
// when the key is gone.
func latestKeys(ctx context.Context, c *ent.Client, ids []uuid.UUID) (map[uuid.UUID]*ent.APIKey, error) {
	ctx = rule.SystemContext(ctx)
	at := make(map[uuid.UUID]uuid.UUID, len(ids)) // each key asked for → the key its chain has reached
	for _, id := range ids {
		at[id] = id
	}
	read := map[uuid.UUID]*ent.APIKey{}
	for range maxRotations {
		var next []uuid.UUID
		for _, cur := range at {
			if _, ok := read[cur]; !ok {
				next = append(next, cur)
			}
		}
		if len(next) == 0 {
			break
		}
		keys, err := c.APIKey.Query().Where(apikey.IDIn(next...)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, id := range next {
			read[id] = nil
		}
		for _, key := range keys {
			read[key.ID] = key
		}
		moved := false
		for id, cur := range at {
			if key := read[cur]; key != nil && key.ReplacedBy != nil {
				at[id] = *key.ReplacedBy
				moved = true
			}
		}
		if !moved {
			break
		}
	}
	out := make(map[uuid.UUID]*ent.APIKey, len(ids))
	for id, cur := range at {
		out[id] = read[cur]
	}
	return out, nil
}

// CheckSubscriptionTypes refuses (FORBIDDEN, naming it) the first of types
// sub's own credential may not read: its deliveries follow that
// credential, whoever changes its event list.
func CheckSubscriptionTypes(ctx context.Context, c *ent.Client, sub *ent.WebhookSubscription, types []string, now time.Time) error {
	a, err := AudienceOf(rule.SystemContext(ctx), c, []*ent.WebhookSubscription{sub}, now)
	if err != nil {
		return err
	}
	return CheckReadable(a.creds[sub.ID], types) // none known: it reads nothing
}
