package schema

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/viewer"
)

// App is an integration registered by an organization's admin, asking for
// scopes; any organization's admin may install it by id (AppInstallation),
// granting some of them. The registering organization owns it: only its
// admins list it, and installers read it with the system context once
// their admin scope is checked (package access).
type App struct{ ent.Schema }

func (App) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

func (App) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "apps"}}
}

func (App) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Validate(runeLen(1, bounds.MaxName)),
		field.String("description").Optional().Nillable().Validate(runeLen(0, bounds.MaxAppDescription)),
		// The scopes the app asks for; an installation grants a subset.
		field.Strings("scopes").Validate(knownScopes),
	}
}

// An app's registration is in the audit log as app.registered.
func (App) Hooks() []ent.Hook {
	return []ent.Hook{auditedAs("app", "registered", nil)}
}

func (App) Policy() ent.Policy { return orgPolicy(viewer.ScopeAdmin, viewer.ScopeAdmin) }

// knownScopes requires at least one scope, each of them known.
func knownScopes(scopes []string) error {
	if len(scopes) == 0 {
		return errors.New("must name at least one scope")
	}
	for _, s := range scopes {
		if !viewer.ValidScope(s) {
			return fmt.Errorf("unknown scope %s", apperr.Quote(s))
		}
	}
	return nil
}

// AppInstallation is an app installed by an organization (its org_id),
// with the scopes that organization granted it. Its app tokens (API keys
// of kind at) carry its id; uninstalling revokes them and, once their
// pending deliveries are done, deletes its webhook subscriptions.
type AppInstallation struct{ ent.Schema }

func (AppInstallation) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

func (AppInstallation) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "app_installations", LeadingIndexes: true}}
}

func (AppInstallation) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("app_id", uuid.UUID{}).Immutable(),
		// Copied at installation, so listing and events read no other
		// organization's app.
		field.String("app_name").Immutable(),
		field.Strings("scopes").Immutable().Validate(knownScopes),
		// Who installed it: the API key's id, or system.
		field.String("installed_by").Immutable(),
		field.Time("uninstalled_at").Optional().Nillable(),
	}
}

// One active installation of an app per organization: a second install
// while the first is active breaks the partial unique index (CONFLICT).
func (AppInstallation) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields(orgColumn, "app_id").Unique().Annotations(entsql.IndexWhere("uninstalled_at IS NULL")),
		index.Fields(orgColumn, "created_at"),
	}
}

// Installations are in the audit log as app_installation.installed and
// app_installation.uninstalled.
func (AppInstallation) Hooks() []ent.Hook {
	return []ent.Hook{auditedAs("app_installation", "installed", func(fields []string) string {
		if slices.Contains(fields, "uninstalled_at") {
			return "uninstalled"
		}
		return "updated"
	})}
}

func (AppInstallation) Policy() ent.Policy { return orgPolicy(viewer.ScopeAdmin, viewer.ScopeAdmin) }

// installationMutation is the generated mutation of a record that may
// belong to an app installation.
type installationMutation interface {
	SetInstallationID(uuid.UUID)
}

// stampInstallation makes a record created with an app token belong to
// the token's installation.
func stampInstallation(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		if !m.Op().Is(ent.OpCreate) {
			return next.Mutate(ctx, m)
		}
		im, ok := m.(installationMutation)
		if !ok {
			return nil, fmt.Errorf("%T does not carry an installation", m)
		}
		if v, ok := viewer.FromContext(ctx); ok && v.InstallationID != uuid.Nil {
			im.SetInstallationID(v.InstallationID)
		}
		return next.Mutate(ctx, m)
	})
}
