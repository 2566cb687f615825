package store

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/apikey"
	"github.com/lendingpipe/svc/ent/appinstallation"
	"github.com/lendingpipe/svc/ent/organization"
	"github.com/lendingpipe/svc/ent/team"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/token"
	"github.com/lendingpipe/svc/internal/viewer"
)

// KeyKinds are the API key prefixes of SPEC 5.2: live for API keys, at for app tokens.
var KeyKinds = []string{"live", "at"}

// Hash is the stored form of a credential: hex SHA-256. Credentials are
// 256-bit random strings, so a slow password hash would add nothing.
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CreateOrganization creates an organization with the default pipeline and
// returns it with its dialer connector token, which is shown only now.
func CreateOrganization(ctx context.Context, c *ent.Client, name string) (*ent.Organization, string, error) {
	connector := token.New("conn_", 32, token.Base32)
	var org *ent.Organization
	err := WithTx(rule.SystemContext(ctx), c, func(ctx context.Context, tx *ent.Client) error {
		var err error
		org, err = tx.Organization.Create().SetName(name).SetConnectorTokenHash(Hash(connector)).Save(ctx)
		return err
	})
	if err != nil {
		return nil, "", fmt.Errorf("creating organization: %w", err)
	}
	return org, connector, nil
}

// CheckKey validates a key's kind and scopes, so the command line can
// refuse them before it opens the database.
func CheckKey(kind string, scopes []string) error {
	if !slices.Contains(KeyKinds, kind) {
		return apperr.Invalid("kind", "must be one of %s", strings.Join(KeyKinds, ", "))
	}
	for _, s := range scopes {
		if !viewer.ValidScope(s) {
			return apperr.Invalid("scopes", "unknown scope %s; known: %s", apperr.Quote(s), strings.Join(viewer.AllScopes, ", "))
		}
	}
	return nil
}

// CreateAPIKey creates a key for orgID and returns the key, shown only now.
func CreateAPIKey(ctx context.Context, c *ent.Client, orgID uuid.UUID, kind, name string, scopes []string) (string, *ent.APIKey, error) {
	return CreateKey(ctx, c, orgID, KeySpec{Kind: kind, Name: name, Scopes: scopes})
}

// KeySpec describes a key for CreateKey.
type KeySpec struct {
	Kind, Name string
	Scopes     []string
	// ExpiresAt, when set, is when the key stops working.
	ExpiresAt *time.Time
	// InstallationID, when set, is the app installation an app token
	// belongs to.
	InstallationID *uuid.UUID
	// UserID, when set, is the user the key acts as.
	UserID *uuid.UUID
}

// CreateKey creates the key s describes for orgID and returns the key,
// shown only now. The caller in ctx is the key's creator in the audit log.
func CreateKey(ctx context.Context, c *ent.Client, orgID uuid.UUID, s KeySpec) (string, *ent.APIKey, error) {
	if err := CheckKey(s.Kind, s.Scopes); err != nil {
		return "", nil, err
	}
	if s.Kind == "at" && s.InstallationID == nil {
		// PRODUCT 3; the schema's hook holds it for every other writer.
		return "", nil, apperr.Invalid("kind", "an app token (svc_at_) is made only by installing an app (installApp)")
	}
	s.Scopes = viewer.Dedupe(s.Scopes)
	key := token.New("svc_"+s.Kind+"_", 32, token.Base32)
	rec, err := c.APIKey.Create().
		SetOrgID(orgID).SetKind(apikey.Kind(s.Kind)).SetName(s.Name).SetScopes(s.Scopes).SetNillableExpiresAt(s.ExpiresAt).
		SetNillableInstallationID(s.InstallationID).SetNillableUserID(s.UserID).
		SetDisplayPrefix(key[:len("svc_")+len(s.Kind)+5]).SetHash(Hash(key)).
		Save(rule.SystemContext(ctx))
	if err != nil {
		return "", nil, fmt.Errorf("creating API key: %w", err)
	}
	return key, rec, nil
}

// ErrBadKey is returned for a missing, malformed, unknown, revoked or expired key.
var ErrBadKey = errors.New("invalid API key")

// viewerOf is the caller presenting rec at now; orphan says rec is an app
// token whose installation is gone or uninstalled, or a key whose user is
// deactivated or gone.
func viewerOf(rec *ent.APIKey, orphan bool, now time.Time) (viewer.Viewer, error) {
	if orphan || rec.RevokedAt != nil || rec.ExpiresAt != nil && !now.Before(*rec.ExpiresAt) {
		return viewer.Viewer{}, ErrBadKey
	}
	v := viewer.Viewer{OrgID: rec.OrgID, KeyID: rec.ID, Scopes: rec.Scopes}
	if rec.UserID != nil {
		v.UserID = *rec.UserID
	}
	if rec.InstallationID != nil {
		v.InstallationID = *rec.InstallationID
	}
	return v, nil
}

// KeyCache remembers keys found in the database for KeyCacheTTL, so a
// request costs no key lookup: at a few thousand requests per second that
// query was a quarter of a single-lead GET. A revocation (or a change of
// scopes) therefore takes up to KeyCacheTTL to reach every replica; expiry
// is checked on every request. Unknown keys are not cached, so a guessing
// client cannot fill the cache.
type KeyCache struct {
	entries sync.Map // hash → *cachedKey
}

// LastUsedEvery is how often a key's lastUsedAt is written at most: a
// request costs no write, a key in use one a minute.
const LastUsedEvery = time.Minute

// KeyCacheTTL bounds how stale a cached key may be.
const KeyCacheTTL = 10 * time.Second

type cachedKey struct {
	rec *ent.APIKey
	// fetched is when the read of rec began: its age counts from there.
	fetched time.Time
	// version is the store's KeysVersion (signals) when the record was read: a key changed
	// by this process since (revoked, rotated) is read again at once.
	version int64
	// orphan is set for an app token that belongs to no installed app
	// (read with the record): it is refused like a revoked key.
	orphan bool
	// touched is when, in Unix nanoseconds, a request through this entry
	// last claimed the key's lastUsedAt write.
	touched atomic.Int64
}

// Authenticate resolves a bearer key to its viewer, through the cache.
func (kc *KeyCache) Authenticate(ctx context.Context, c *ent.Client, key string, now time.Time) (viewer.Viewer, error) {
	return kc.AuthenticateWithin(ctx, c, key, now, KeyCacheTTL)
}

// AuthenticateWithin is Authenticate from a key record read at most maxAge
// ago: an open websocket re-checks its key more often than KeyCacheTTL, and
// the record it reads refreshes the cache for every other caller.
func (kc *KeyCache) AuthenticateWithin(ctx context.Context, c *ent.Client, key string, now time.Time, maxAge time.Duration) (viewer.Viewer, error) {
	if !wellFormedKey(key) {
		return viewer.Viewer{}, ErrBadKey
	}
	hash := Hash(key)
	old, cached := kc.entries.Load(hash)
	if cached {
		ck := old.(*cachedKey)
		if time.Since(ck.fetched) < min(maxAge, KeyCacheTTL) && ck.version == c.Signals.KeysVersion() {
			return used(c, ck, now)
		}
	}
	version, start := c.Signals.KeysVersion(), time.Now()
	rec, err := c.APIKey.Query().Where(apikey.Hash(hash)).Only(rule.SystemContext(ctx))
	switch {
	case ent.IsNotFound(err):
		kc.entries.Delete(hash)
		return viewer.Viewer{}, ErrBadKey
	case err != nil:
		return viewer.Viewer{}, fmt.Errorf("looking up API key: %w", err)
	}
	orphan, err := orphanToken(ctx, c, rec)
	if err != nil {
		return viewer.Viewer{}, err
	}
	fresh := &cachedKey{rec: rec, orphan: orphan, fetched: start, version: version}
	return used(c, kc.keep(hash, fresh), now)
}

// keep caches fresh and returns the entry this request should use. Of
// requests reading the key together, one entry is kept and used by all, so
// they claim its lastUsedAt write once; but an entry is shared only when
// it is at least as new as fresh: its read began no earlier than fresh's,
// with no change to keys since. Otherwise a read that began before a
// revocation and ended after it would answer for a request that began
// after it.
func (kc *KeyCache) keep(hash string, fresh *cachedKey) *cachedKey {
	for {
		entry, loaded := kc.entries.LoadOrStore(hash, fresh)
		if !loaded {
			return fresh
		}
		e := entry.(*cachedKey)
		if e.version >= fresh.version && !e.fetched.Before(fresh.fetched) {
			return e
		}
		if kc.entries.CompareAndSwap(hash, e, fresh) {
			return fresh
		}
	}
}

// orphanToken reports whether rec is a key bound to a user who is
// deactivated or gone, or an app token that belongs to no installed app:
// one an older command line made without an installation, or one whose
// installation is gone or uninstalled. PRODUCT 3: every app token belongs
// to an installation, so such a token is refused, and upgrading cuts it
// off. Read only when the record is (every KeyCacheTTL at most), and for
// bound keys and app tokens alone.
func orphanToken(ctx context.Context, c *ent.Client, rec *ent.APIKey) (bool, error) {
	if rec.UserID != nil {
		// A key bound to a person stops with their sign-in (PRODUCT 9.4:
		// a person who leaves keeps no key they copied).
		active, err := c.User.Query().Where(user.ID(*rec.UserID), user.DeactivatedAtIsNil()).Exist(rule.SystemContext(ctx))
		if err != nil {
			return false, fmt.Errorf("looking up the key's user: %w", err)
		}
		if !active {
			return true, nil
		}
	}
	if rec.Kind != apikey.KindAt {
		return false, nil
	}
	if rec.InstallationID == nil {
		return true, nil
	}
	installed, err := c.AppInstallation.Query().
		Where(appinstallation.ID(*rec.InstallationID), appinstallation.UninstalledAtIsNil()).Exist(rule.SystemContext(ctx))
	if err != nil {
		return false, fmt.Errorf("looking up the app token's installation: %w", err)
	}
	return !installed, nil
}

// used is the viewer of the cached key ck, just presented, recording its
// use: at most once a LastUsedEvery per key and process, in the
// background, and conditional on the stored time, so replicas together
// write about once a minute per key. A request costs an atomic read.
func used(c *ent.Client, ck *cachedKey, now time.Time) (viewer.Viewer, error) {
	rec := ck.rec
	v, err := viewerOf(rec, ck.orphan, now)
	if err != nil {
		return v, err
	}
	if rec.LastUsedAt != nil && now.Sub(*rec.LastUsedAt) < LastUsedEvery {
		return v, nil
	}
	// One request of those arriving together claims the write.
	last := ck.touched.Load()
	if last != 0 && now.Sub(time.Unix(0, last)) < LastUsedEvery || !ck.touched.CompareAndSwap(last, now.UnixNano()) {
		return v, nil
	}
	go touchKey(c, rec.ID, now)
	return v, nil
}

// touchKey writes a key's lastUsedAt unless another replica wrote it in the
// last LastUsedEvery. A failure costs the figure a minute, nothing else.
func touchKey(c *ent.Client, id uuid.UUID, now time.Time) {
	ctx, cancel := context.WithTimeout(rule.SystemContext(context.Background()), 5*time.Second)
	defer cancel()
	_ = c.APIKey.Update().
		Where(apikey.ID(id), apikey.Or(apikey.LastUsedAtIsNil(), apikey.LastUsedAtLT(now.Add(-LastUsedEvery)))).
		SetLastUsedAt(now).Exec(ctx)
}

func wellFormedKey(key string) bool {
	for _, k := range KeyKinds {
		if rest, ok := strings.CutPrefix(key, "svc_"+k+"_"); ok && len(rest) >= 16 && len(rest) <= 128 {
			return true
		}
	}
	return false
}

// UserSpec describes a user for CreateUser.
type UserSpec struct {
	OrgID                    uuid.UUID
	First, Last, Email, Role string
	Team                     string // created when missing; empty for none
}

// CreateUser creates an advisor, agent or admin, creating its team by name
// when needed.
func CreateUser(ctx context.Context, c *ent.Client, s UserSpec) (*ent.User, error) {
	var u *ent.User
	err := WithTx(rule.SystemContext(ctx), c, func(ctx context.Context, tx *ent.Client) error {
		create := tx.User.Create().SetOrgID(s.OrgID).SetFirstName(s.First).SetLastName(s.Last).
			SetEmail(s.Email).SetRole(user.Role(s.Role))
		if s.Team != "" {
			t, err := tx.Team.Query().Where(team.OrgID(s.OrgID), team.Name(s.Team)).Only(ctx)
			if ent.IsNotFound(err) {
				t, err = tx.Team.Create().SetOrgID(s.OrgID).SetName(s.Team).Save(ctx)
			}
			if err != nil {
				return fmt.Errorf("finding team %q: %w", s.Team, err)
			}
			create.SetTeamID(t.ID)
		}
		var err error
		u, err = create.Save(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("creating user: %w", err)
	}
	return u, nil
}

// ErrUnknownConnector is returned for a connector token no organization has.
var ErrUnknownConnector = errors.New("unknown connector token")

// OrgByConnectorToken finds the organization a dialer connector token
// belongs to. The lookup is by the token's hash, so its timing says nothing
// about how much of a guess was right; the final compare is constant-time.
func OrgByConnectorToken(ctx context.Context, c *ent.Client, token string) (*ent.Organization, error) {
	h := Hash(token)
	org, err := c.Organization.Query().Where(organization.ConnectorTokenHash(h)).Only(rule.SystemContext(ctx))
	switch {
	case ent.IsNotFound(err):
		return nil, ErrUnknownConnector
	case err != nil:
		return nil, fmt.Errorf("looking up connector token: %w", err)
	case subtle.ConstantTimeCompare([]byte(org.ConnectorTokenHash), []byte(h)) != 1:
		return nil, ErrUnknownConnector
	}
	return org, nil
}
