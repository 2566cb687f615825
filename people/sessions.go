package people

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/session"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Session is a signed-in person's session, as GET /auth/session shows it.
type Session struct {
	ID   uuid.UUID
	User *ent.User
	// CSRFToken must be sent as X-CSRF-Token with every cookie request
	// that can change anything.
	CSRFToken string
	// ExpiresAt is when the session ends if unused: the idle timeout from
	// its last use, or its absolute end, whichever is sooner.
	ExpiresAt time.Time
}

// ErrNoSession is returned for a token that names no live session:
// unknown, signed out, ended by a reset or deactivation, idle too long or
// past its lifetime.
var ErrNoSession = errors.New("no live session")

// TouchEvery is how often a session's last use is written at most: the
// idle timeout is 12 hours, so a minute's error in it is nothing, and a
// request costs no write.
const TouchEvery = time.Minute

// SessionCacheTTL is how long a session read from the database is used
// without reading it again: a sign-out, reset or deactivation on another
// replica refuses the session there within it (this replica's own at
// once), and a person's requests cost a read a second, not one each.
const SessionCacheTTL = time.Second

// cachedSession is a session as read from the database, with its person.
type cachedSession struct {
	viewer  viewer.Viewer
	session Session
	// lastSeen and expires are the stored session's, for the timeouts.
	lastSeen, expires time.Time
	// fetched is when it was read; version the store's KeysVersion then,
	// which a session's end (or its person's deactivation or new role)
	// moves on.
	fetched time.Time
	version int64
}

// Authenticate is the caller presenting the session token secret: read
// from the database at most SessionCacheTTL ago, so a sign-out or
// deactivation on any replica refuses the session everywhere within a
// second.
func (a *Accounts) Authenticate(ctx context.Context, c *ent.Client, secret string) (viewer.Viewer, *Session, error) {
	ctx = rule.SystemContext(ctx)
	hash := digest(secret)
	now := apitime.Now(ctx)
	if e, ok := a.sessions.Load(hash); ok {
		cs := e.(*cachedSession)
		if time.Since(cs.fetched) < SessionCacheTTL && cs.version == c.Signals.KeysVersion() &&
			now.Before(cs.expires) && now.Before(cs.lastSeen.Add(a.cfg.IdleTimeout)) && now.Sub(cs.lastSeen) < TouchEvery {
			cur := cs.session
			return cs.viewer, &cur, nil
		}
	}
	version := c.Signals.KeysVersion()
	v, cur, s, err := a.read(ctx, c, hash, now)
	if err != nil {
		a.sessions.Delete(hash)
		return v, nil, err
	}
	a.remember(hash, &cachedSession{viewer: v, session: *cur, lastSeen: s.LastSeenAt, expires: s.ExpiresAt, fetched: time.Now(), version: version})
	return v, cur, nil
}

// remember caches cs under hash; every so often it forgets entries too old
// to be used, so ended sessions do not pile up in memory.
func (a *Accounts) remember(hash string, cs *cachedSession) {
	a.sessions.Store(hash, cs)
	if a.stores.Add(1)%1024 != 0 {
		return
	}
	a.sessions.Range(func(k, e any) bool {
		if time.Since(e.(*cachedSession).fetched) > SessionCacheTTL {
			a.sessions.Delete(k)
		}
		return true
	})
}

// read is the live session whose token hashes to hash, with its person,
// recording its use at most once a TouchEvery.
func (a *Accounts) read(ctx context.Context, c *ent.Client, hash string, now time.Time) (viewer.Viewer, *Session, *ent.Session, error) {
	s, err := c.Session.Query().Where(session.TokenHash(hash)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return viewer.Viewer{}, nil, nil, ErrNoSession
	case err != nil:
		return viewer.Viewer{}, nil, nil, fmt.Errorf("reading the session: %w", err)
	}
	if !now.Before(s.ExpiresAt) || !now.Before(s.LastSeenAt.Add(a.cfg.IdleTimeout)) {
		// Over: deleted now rather than at the next purge. A failure
		// leaves it to the purge; the answer is the same.
		_ = c.Session.DeleteOne(s).Exec(ctx)
		return viewer.Viewer{}, nil, nil, ErrNoSession
	}
	u, err := c.User.Get(ctx, s.UserID)
	switch {
	case ent.IsNotFound(err):
		return viewer.Viewer{}, nil, nil, ErrNoSession
	case err != nil:
		return viewer.Viewer{}, nil, nil, fmt.Errorf("reading the session's user: %w", err)
	case u.DeactivatedAt != nil:
		return viewer.Viewer{}, nil, nil, ErrNoSession
	}
	if now.Sub(s.LastSeenAt) >= TouchEvery {
		// Conditional on the stored time, so replicas serving the same
		// session write it about once a minute together.
		if err := c.Session.Update().Where(session.ID(s.ID), session.LastSeenAtLT(now.Add(-TouchEvery))).
			SetLastSeenAt(now).Exec(ctx); err != nil {
			return viewer.Viewer{}, nil, nil, fmt.Errorf("recording the session's use: %w", err)
		}
		s.LastSeenAt = now
	}
	cur := a.session(s, u)
	return personViewer(u, s.ID), &cur, s, nil
}

// session is what s shows, u its user.
func (a *Accounts) session(s *ent.Session, u *ent.User) Session {
	expires := s.LastSeenAt.Add(a.cfg.IdleTimeout)
	if s.ExpiresAt.Before(expires) {
		expires = s.ExpiresAt
	}
	return Session{ID: s.ID, User: u, CSRFToken: s.CsrfToken, ExpiresAt: expires}
}

// ValidCSRF reports whether sent is the session's CSRF token, compared in
// constant time.
func (s *Session) ValidCSRF(sent string) bool {
	return sent != "" && subtle.ConstantTimeCompare([]byte(sent), []byte(s.CSRFToken)) == 1
}

// SignOut ends the session of the token secret, if it is live, and
// records it. Signing out of no session is no error: the browser's cookie
// is cleared all the same.
func (a *Accounts) SignOut(ctx context.Context, c *ent.Client, secret string, from Client) error {
	v, cur, err := a.Authenticate(ctx, c, secret)
	if errors.Is(err, ErrNoSession) {
		return nil
	}
	if err != nil {
		return err
	}
	return store.WithTx(rule.SystemContext(ctx), c, func(ctx context.Context, c *ent.Client) error {
		if err := c.Session.DeleteOneID(cur.ID).Exec(ctx); err != nil && !ent.IsNotFound(err) {
			return fmt.Errorf("ending the session: %w", err)
		}
		return audit(viewer.NewContext(ctx, v), c, cur.User, "user.signed_out", &from)
	})
}

// endSessions ends every session of the user, in the caller's
// transaction.
func endSessions(ctx context.Context, c *ent.Client, userID uuid.UUID) error {
	if _, err := c.Session.Delete().Where(session.UserID(userID)).Exec(rule.SystemContext(ctx)); err != nil {
		return fmt.Errorf("ending the user's sessions: %w", err)
	}
	return nil
}

// PurgeSessions deletes the sessions past their absolute end or idle
// longer than idle.
func PurgeSessions(ctx context.Context, c *ent.Client, now time.Time, idle time.Duration) (int, error) {
	n, err := c.Session.Delete().
		Where(session.Or(session.ExpiresAtLTE(now), session.LastSeenAtLTE(now.Add(-idle)))).
		Exec(rule.SystemContext(ctx))
	if err != nil {
		return 0, fmt.Errorf("purging ended sessions: %w", err)
	}
	return n, nil
}
