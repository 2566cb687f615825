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

// Viewer is the caller of one request.
type Viewer struct {
	OrgID  uuid.UUID
	KeyID  uuid.UUID
	Scopes []string
	// InstallationID is set when the key is an app token: the app
	// installation it belongs to.
	InstallationID uuid.UUID
	// AutomationID is set when an automation run acts for the organization.
	AutomationID uuid.UUID
	// Depth counts the automation runs that led to this change: 0 for a
	// caller's own request. Events carry it, so automations triggered by
	// events cannot trigger each other without end.
	Depth int
}

// Actor names who acts, for createdBy and the events' changedBy fields:
// the API key's id, "automation:<id>", or "" for the system.
func (v Viewer) Actor() string {
	switch {
	case v.KeyID != uuid.Nil:
		return v.KeyID.String()
	case v.AutomationID != uuid.Nil:
		return "automation:" + v.AutomationID.String()
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
