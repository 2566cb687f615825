// Package people holds how the people of an organization sign in
// (PRODUCT 9): an admin invites a user, who sets a password with the
// invitation; a person signs in with email and password, or through the
// organization's OpenID provider, and holds a session; an admin resets or
// deactivates a user's sign-in, which ends their sessions everywhere.
//
// Each flow is one function that reads top-down. The GraphQL resolvers,
// the /auth routes and the command line call them. Sessions and sign-in
// failures live in the database, so every replica honours a sign-out, a
// deactivation and a lockout at once.
//
// It imports ent, the store and the leaves.
package people

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lendingpipe/svc/internal/password"
	"github.com/lendingpipe/svc/internal/store"
)

// Settings are the sign-in rules an operator may change.
type Settings struct {
	// IdleTimeout ends a session unused this long (12 hours).
	IdleTimeout time.Duration
	// Lifetime ends a session this long after its sign-in, however used
	// (7 days).
	Lifetime time.Duration
	// InvitationTTL is how long an invitation works (72 hours).
	InvitationTTL time.Duration
	// Password are the argon2id parameters of new hashes; a stored hash
	// made with weaker ones is upgraded at its next sign-in.
	Password password.Params
	// MaxConcurrentHashes bounds the hashes computed at once: each holds
	// Password.MemoryKiB, so a burst of sign-ins cannot exhaust memory.
	MaxConcurrentHashes int
}

// Defaults of Settings (PRODUCT 9.2).
const (
	DefaultIdleTimeout   = 12 * time.Hour
	DefaultLifetime      = 7 * 24 * time.Hour
	DefaultInvitationTTL = 72 * time.Hour
	defaultMaxHashes     = 4
)

// Lockout (PRODUCT 9.2): after LockoutFailures refused sign-ins for one
// email within LockoutWindow, that email is refused for LockoutWindow.
const (
	LockoutFailures = 5
	LockoutWindow   = 15 * time.Minute
)

// WithDefaults fills the unset settings.
func (s Settings) WithDefaults() Settings {
	if s.IdleTimeout <= 0 {
		s.IdleTimeout = DefaultIdleTimeout
	}
	if s.Lifetime <= 0 {
		s.Lifetime = DefaultLifetime
	}
	if s.InvitationTTL <= 0 {
		s.InvitationTTL = DefaultInvitationTTL
	}
	if s.Password == (password.Params{}) {
		s.Password = password.DefaultParams
	}
	if s.MaxConcurrentHashes <= 0 {
		s.MaxConcurrentHashes = defaultMaxHashes
	}
	return s
}

// Accounts runs the sign-in flows with one set of settings and one bound
// on concurrent password hashes, shared by every request of a server.
type Accounts struct {
	cfg    Settings
	hasher *password.Hasher
	// sessions caches sessions read, by token hash (Authenticate);
	// stores counts its writes, to sweep it now and then.
	sessions sync.Map
	stores   atomic.Uint64
}

// New returns the flows under s.
func New(s Settings) *Accounts {
	s = s.WithDefaults()
	return &Accounts{cfg: s, hasher: password.NewHasher(s.Password, s.MaxConcurrentHashes)}
}

// Settings are the settings a reads under, defaults filled.
func (a *Accounts) Settings() Settings { return a.cfg }

// Client is what a sign-in attempt says of where it came from, for the
// audit log and the session's record.
type Client struct {
	IP        string
	UserAgent string
}

// normalEmail is the form a sign-in email is stored and looked up in.
func normalEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// digest is the stored form of a secret with 256 bits of entropy (a
// session or invitation token), or of an email for the lockout: the
// store's credential hash, so a lookup stays one indexed read.
func digest(s string) string { return store.Hash(s) }
