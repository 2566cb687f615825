// Package viewer carries the authenticated caller through a request's
// context: which organization it acts for and which scopes its API key holds.
// The ent privacy rules read it, so org isolation and permissions hold on
// every surface that reaches the database.
//
// A leaf: it imports nothing of this service.
package viewer

import (
	"context"
	"slices"

	"github.com/google/uuid"
)

// Scopes an API key may hold. Admin implies every other scope.
const (
	ScopeLeadsRead      = "leads:read"
	ScopeLeadsWrite     = "leads:write"
	ScopeDialerWrite    = "dialer:write"
	ScopeWebhooksManage = "webhooks:manage"
	ScopeLendingRead    = "lending:read"
	ScopeLendingWrite   = "lending:write"
	ScopeAnalyticsRead  = "analytics:read"
	ScopeAdmin          = "admin"
)

// AllScopes lists every scope, in the order the docs present them.
var AllScopes = []string{ScopeLeadsRead, ScopeLeadsWrite, ScopeDialerWrite, ScopeWebhooksManage,
	ScopeLendingRead, ScopeLendingWrite, ScopeAnalyticsRead, ScopeAdmin}

// Roles a user may hold (PRODUCT 9.4).
const (
	RoleAdmin   = "admin"
	RoleAdvisor = "advisor"
	RoleAgent   = "agent"
)

// RoleScopes gives each role the scopes a person signed in with that role
// holds. docs/api.md shows it beside the scopes table; a test keeps the
// two in step. Read-only.
var RoleScopes = map[string][]string{
	RoleAdmin:   {ScopeAdmin},
	RoleAdvisor: {ScopeLeadsRead, ScopeLeadsWrite, ScopeLendingRead, ScopeLendingWrite, ScopeAnalyticsRead},
	RoleAgent:   {ScopeLeadsRead, ScopeDialerWrite},
}

// Credential kinds, as me reports them.
const (
	CredentialSession  = "SESSION"
	CredentialAPIKey   = "API_KEY"
	CredentialAppToken = "APP_TOKEN"
)

// Viewer is the caller of one request.
type Viewer struct {
	OrgID  uuid.UUID
	KeyID  uuid.UUID
	Scopes []string
	// UserID is the person acting: signed in (SessionID set), or the user
	// an API key is bound to. Nil for a key bound to no one.
	UserID uuid.UUID
	// SessionID is set when the caller signed in with a password or single
	// sign-on and presents the session cookie.
	SessionID uuid.UUID
	// InstallationID is set when the key is an app token: the app
	// installation it belongs to.
	InstallationID uuid.UUID
	// AutomationID is set when an automation run acts for the organization.
	AutomationID uuid.UUID
	// Connector is set when the dialer's connector acts: its organization's
	// connector URL authenticated the request, no key.
	Connector bool
	// Depth counts the automation runs that led to this change: 0 for a
	// caller's own request. Events carry it, so automations triggered by
	// events cannot trigger each other without end.
	Depth int
}

// Actor names who acts, for createdBy, the events' changedBy fields and
// the audit log: "user:<id>" for a person (signed in, or through a key
// bound to them), else the API key's id, "automation:<id>", or "" for the
// system.
func (v Viewer) Actor() string {
	switch {
	case v.UserID != uuid.Nil:
		return "user:" + v.UserID.String()
	case v.KeyID != uuid.Nil:
		return v.KeyID.String()
	case v.AutomationID != uuid.Nil:
		return "automation:" + v.AutomationID.String()
	}
	return ""
}

// Credential is how the caller authenticated: CredentialSession,
// CredentialAPIKey or CredentialAppToken; "" for none (the system, an
// automation).
func (v Viewer) Credential() string {
	switch {
	case v.SessionID != uuid.Nil:
		return CredentialSession
	case v.InstallationID != uuid.Nil:
		return CredentialAppToken
	case v.KeyID != uuid.Nil:
		return CredentialAPIKey
	}
	return ""
}

// implied lists the scopes that grant another: admin grants all, and
// writing grants reading (a write answers with what it wrote).
var implied = map[string][]string{
	ScopeLeadsRead:   {ScopeLeadsWrite},
	ScopeLendingRead: {ScopeLendingWrite},
}

// Can reports whether the viewer holds scope, directly or by implication.
func (v Viewer) Can(scope string) bool {
	if slices.Contains(v.Scopes, scope) || slices.Contains(v.Scopes, ScopeAdmin) {
		return true
	}
	for _, s := range implied[scope] {
		if slices.Contains(v.Scopes, s) {
			return true
		}
	}
	return false
}

type ctxKey struct{}

// NewContext returns ctx carrying v.
func NewContext(ctx context.Context, v Viewer) context.Context {
	return context.WithValue(ctx, ctxKey{}, v)
}

// FromContext returns the viewer in ctx, if any.
func FromContext(ctx context.Context) (Viewer, bool) {
	v, ok := ctx.Value(ctxKey{}).(Viewer)
	return v, ok
}

// ValidScope reports whether s names a known scope.
func ValidScope(s string) bool { return slices.Contains(AllScopes, s) }

// Dedupe is scopes with each scope once, in the order first given: a
// credential's scopes are a set, so a repeated one is stored once rather
// than refused.
func Dedupe(scopes []string) []string {
	out := make([]string, 0, len(scopes))
	for _, s := range scopes {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

type bulkKey struct{}

// WithBulkLoad marks ctx as the seeding command loading generated data into
// an organization's own pipeline. Every rule holds; what the load leaves
// out is derived: its writes emit no events (a million seeded leads must
// not become a million deliveries), leave the lead count to the loader,
// which adds each batch at once, and leave the rollups to the rebuild that
// follows the load. The loader writes lending records directly, in the
// state the lending flows would leave them, by the same pure rules
// (internal/lendingrules). No request path sets it.
func WithBulkLoad(ctx context.Context) context.Context {
	return context.WithValue(ctx, bulkKey{}, true)
}

// IsBulkLoad reports whether ctx is a bulk load.
func IsBulkLoad(ctx context.Context) bool {
	b, _ := ctx.Value(bulkKey{}).(bool)
	return b
}

type requestIDKey struct{}

// WithRequestID marks ctx with the correlation id of the request it
// serves (X-Request-Id), which the audit log records.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestIDOf is the correlation id of the request in ctx, nil outside
// one.
func RequestIDOf(ctx context.Context) *string {
	if id, ok := ctx.Value(requestIDKey{}).(string); ok && id != "" {
		return &id
	}
	return nil
}
