// Package rule holds the privacy rules every tenant-owned ent schema shares:
// a request must carry a viewer, holds the scopes the operation needs, and
// sees and changes only rows of its own organization.
//
// Workers and the command line act without a viewer through SystemContext,
// which skips every rule; their queries must name the organization themselves.
//
// It imports only ent's generated privacy and interceptor packages, uuid and
// internal/viewer.
package rule

import (
	"context"
	"fmt"

	"entgo.io/ent"
	"entgo.io/ent/dialect/sql"
	"entgo.io/ent/privacy"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/intercept"
	"github.com/lendingpipe/svc/internal/viewer"
)

// OrgColumn is the column every tenant-owned table keys its organization by.
const OrgColumn = "org_id"

// SystemContext returns a context that passes every privacy rule. It is for
// trusted code only: start-up, the command line, background workers.
func SystemContext(ctx context.Context) context.Context {
	return privacy.DecisionContext(ctx, privacy.Allow)
}

// DenyIfNoViewer denies any operation made without an authenticated viewer.
func DenyIfNoViewer() privacy.QueryMutationRule {
	return privacy.ContextQueryMutationRule(func(ctx context.Context) error {
		if err := noViewer(ctx); err != nil {
			return err
		}
		return privacy.Skip
	})
}

// RequireScope denies callers whose API key lacks scope.
func RequireScope(scope string) privacy.QueryMutationRule {
	return privacy.ContextQueryMutationRule(func(ctx context.Context) error {
		if err := lacks(ctx, scope); err != nil {
			return err
		}
		return privacy.Skip
	})
}

// noViewer is the denial of a caller who is not authenticated, or nil.
func noViewer(ctx context.Context) error {
	if _, ok := viewer.FromContext(ctx); !ok {
		return privacy.Denyf("no authenticated caller")
	}
	return nil
}

// lacks is the denial of a caller whose credential lacks scope, or nil:
// an API key's scopes, or a person's role's.
func lacks(ctx context.Context, scope string) error {
	v, ok := viewer.FromContext(ctx)
	switch {
	case ok && v.Can(scope):
		return nil
	case ok && v.SessionID != uuid.Nil:
		return fmt.Errorf("your role lacks the %s scope: %w", scope, privacy.Deny)
	}
	return fmt.Errorf("API key lacks the %s scope: %w", scope, privacy.Deny)
}

// wherer is implemented by every generated mutation and intercept.Query.
type wherer interface {
	WhereP(...func(*sql.Selector))
}

// FilterOrg restricts queries, updates and deletes to the viewer's
// organization. Creates are covered by the OrgMixin hook, which stamps the
// viewer's organization on the new row.
func FilterOrg() privacy.QueryMutationRule { return orgFilter{column: OrgColumn} }

// FilterOwnOrg is FilterOrg for the organizations table itself.
func FilterOwnOrg() privacy.QueryMutationRule { return orgFilter{column: "id"} }

type orgFilter struct{ column string }

func (f orgFilter) EvalQuery(ctx context.Context, q ent.Query) error {
	gq, err := intercept.NewQuery(q)
	if err != nil {
		return privacy.Denyf("unexpected query type %T: %v", q, err)
	}
	return f.filter(ctx, gq)
}

func (f orgFilter) EvalMutation(ctx context.Context, m ent.Mutation) error {
	if m.Op().Is(ent.OpCreate) {
		return privacy.Skip
	}
	return f.filter(ctx, m)
}

func (f orgFilter) filter(ctx context.Context, x any) error {
	v, ok := viewer.FromContext(ctx)
	if !ok {
		return privacy.Denyf("no authenticated caller")
	}
	w, ok := x.(wherer)
	if !ok {
		return privacy.Denyf("unexpected type %T for the organization filter", x)
	}
	w.WhereP(sql.FieldEQ(f.column, v.OrgID))
	return privacy.Skip
}

// FilterOwnOrShared restricts queries to the rows a person may see of the
// ones one of them keeps for themselves (a saved view): their own (the
// owner column holds the viewer's user) and those marked shared; an admin
// sees the organization's all, as they may delete any. A credential acting
// for no one sees the shared ones only. It comes after FilterOrg, which
// keeps the rows to the organization.
func FilterOwnOrShared(ownerColumn, sharedColumn string) privacy.QueryRule {
	return ownOrShared{owner: ownerColumn, shared: sharedColumn}
}

type ownOrShared struct{ owner, shared string }

func (f ownOrShared) EvalQuery(ctx context.Context, q ent.Query) error {
	v, ok := viewer.FromContext(ctx)
	if !ok {
		return privacy.Denyf("no authenticated caller")
	}
	if v.Can(viewer.ScopeAdmin) {
		return privacy.Skip
	}
	gq, err := intercept.NewQuery(q)
	if err != nil {
		return privacy.Denyf("unexpected query type %T: %v", q, err)
	}
	gq.WhereP(sql.OrPredicates(sql.FieldEQ(f.owner, v.UserID), sql.FieldEQ(f.shared, true)))
	return privacy.Skip
}

// FilterOwn keeps a query to the rows of the viewer's own person (the
// owner column holds the viewer's user): a notification is its person's
// alone, an admin's included. A credential acting for no one sees none.
// It comes after FilterOrg, which keeps the rows to the organization.
func FilterOwn(ownerColumn string) privacy.QueryMutationRule {
	return own{owner: ownerColumn}
}

type own struct{ owner string }

func (f own) EvalQuery(ctx context.Context, q ent.Query) error {
	gq, err := intercept.NewQuery(q)
	if err != nil {
		return privacy.Denyf("unexpected query type %T: %v", q, err)
	}
	return f.filter(ctx, gq)
}

// EvalMutation lets creates through: the flows write a person's
// notifications for them, with the system context.
func (f own) EvalMutation(ctx context.Context, m ent.Mutation) error {
	if m.Op().Is(ent.OpCreate) {
		return privacy.Skip
	}
	return f.filter(ctx, m)
}

func (f own) filter(ctx context.Context, x any) error {
	v, ok := viewer.FromContext(ctx)
	if !ok {
		return privacy.Denyf("no authenticated caller")
	}
	w, ok := x.(wherer)
	if !ok {
		return privacy.Denyf("unexpected type %T for the owner filter", x)
	}
	w.WhereP(sql.FieldEQ(f.owner, v.UserID))
	return privacy.Skip
}

// Require answers as a write's mutation policy would for scope: nil for
// the system context or a viewer holding scope, the policy's denial
// otherwise. A flow asks it before it reads anything, so a caller who may
// not write learns nothing of the rows named.
func Require(ctx context.Context, scope string) error {
	if d, ok := privacy.DecisionFromContext(ctx); ok {
		return d // nil for the system context (allowed)
	}
	if err := noViewer(ctx); err != nil {
		return err
	}
	return lacks(ctx, scope)
}

// RequireOrg is the caller's organization once Require(ctx, scope) passes:
// the scope is asked first, so a caller who may not learns nothing of the
// rows it names. A context that passes with no organization (the system
// context) is an error of the calling code; doing names what it was doing,
// as in "writing a lending record".
func RequireOrg(ctx context.Context, scope, doing string) (uuid.UUID, error) {
	if err := Require(ctx, scope); err != nil {
		return uuid.Nil, err
	}
	v, ok := viewer.FromContext(ctx)
	if !ok || v.OrgID == uuid.Nil {
		return uuid.Nil, fmt.Errorf("%s without an organization", doing)
	}
	return v.OrgID, nil
}
