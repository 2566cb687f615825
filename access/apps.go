package access

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/apikey"
	"github.com/lendingpipe/svc/ent/appinstallation"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
)

// NewApp is an app to register.
type NewApp struct {
	Name        string
	Description *string
	// Scopes are the ones the app asks for; an installation grants a subset.
	Scopes []string
}

// RegisterApp registers an app of the caller's organization, which any
// organization's admin may then install by its id.
func RegisterApp(ctx context.Context, c *ent.Client, in NewApp) (*ent.App, error) {
	if _, err := admin(ctx); err != nil {
		return nil, err
	}
	name := strings.TrimSpace(in.Name)
	if n := len([]rune(name)); n == 0 || n > bounds.MaxName {
		return nil, apperr.Invalid("name", "must be 1 to %d characters", bounds.MaxName)
	}
	if in.Description != nil && len([]rune(*in.Description)) > bounds.MaxAppDescription {
		return nil, apperr.Invalid("description", "must be at most %d characters", bounds.MaxAppDescription)
	}
	if err := checkScopes(in.Scopes); err != nil {
		return nil, err
	}
	in.Scopes = viewer.Dedupe(in.Scopes)
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.App, error) {
		return c.App.Create().SetName(name).SetNillableDescription(in.Description).SetScopes(in.Scopes).Save(ctx)
	})
}

// checkScopes requires at least one scope, each of them known.
func checkScopes(scopes []string) error {
	if len(scopes) == 0 {
		return apperr.Invalid("scopes", "must name at least one scope: %s", strings.Join(viewer.AllScopes, ", "))
	}
	return store.CheckKey("at", scopes)
}

// InstallApp installs the app appID in the caller's organization,
// granting it scopes (a subset of the ones it asks for), and returns its
// app token (svc_at_), shown only now, with the installation. It emits
// app.installed in the same transaction. An app installed already (and
// not uninstalled) is a CONFLICT.
func InstallApp(ctx context.Context, c *ent.Client, appID uuid.UUID, scopes []string) (string, *ent.AppInstallation, error) {
	org, err := admin(ctx)
	if err != nil {
		return "", nil, err
	}
	if err := checkScopes(scopes); err != nil {
		return "", nil, err
	}
	scopes = viewer.Dedupe(scopes)
	type installed struct {
		token string
		inst  *ent.AppInstallation
	}
	out, err := store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (installed, error) {
		app, err := installable(ctx, c, org, appID, scopes)
		if err != nil {
			return installed{}, err
		}
		by := *events.Actor(ctx)
		inst, err := c.AppInstallation.Create().SetAppID(app.ID).SetAppName(app.Name).SetScopes(scopes).
			SetInstalledBy(by).Save(ctx)
		if err != nil {
			return installed{}, fmt.Errorf("installing the app: %w", err)
		}
		token, _, err := store.CreateKey(ctx, c, org, store.KeySpec{Kind: "at", Name: app.Name, Scopes: scopes, InstallationID: &inst.ID})
		if err != nil {
			return installed{}, err
		}
		data := map[string]any{"appId": app.ID, "orgId": org, "installationId": inst.ID, "appName": app.Name,
			"scopes": scopes, "installedBy": by}
		if err := events.Emit(ctx, c, org, event.AppInstalled, data); err != nil {
			return installed{}, err
		}
		return installed{token, inst}, nil
	})
	return out.token, out.inst, err
}

// installable is the app appID when org may install it with scopes: it
// exists (any organization's), asks for every one of scopes, and org has
// no active installation of it.
func installable(ctx context.Context, c *ent.Client, org, appID uuid.UUID, scopes []string) (*ent.App, error) {
	// Apps are visible to installers by id: read past the owner's policy,
	// the caller's admin scope checked already.
	app, err := c.App.Get(rule.SystemContext(ctx), appID)
	if err != nil {
		return nil, err
	}
	for _, s := range scopes {
		if !slices.Contains(app.Scopes, s) {
			return nil, apperr.Invalid("scopes", "the app does not ask for %s; it asks for %s", apperr.Quote(s), strings.Join(app.Scopes, ", "))
		}
	}
	active, err := c.AppInstallation.Query().
		Where(appinstallation.AppID(appID), appinstallation.UninstalledAtIsNil()).Exist(ctx)
	switch {
	case err != nil:
		return nil, fmt.Errorf("looking for an installation of the app: %w", err)
	case active:
		return nil, apperr.New(apperr.Conflict, "the app is installed already; uninstall it first")
	}
	return app, nil
}

// UninstallApp uninstalls an installation of the caller's organization:
// its app tokens are revoked at once, app.uninstalled is emitted, and its
// webhook subscriptions are deleted by the delivery worker once their
// pending deliveries are sent or dead-lettered. Uninstalling it again
// changes nothing.
func UninstallApp(ctx context.Context, c *ent.Client, installationID uuid.UUID) (*ent.AppInstallation, error) {
	org, err := admin(ctx)
	if err != nil {
		return nil, err
	}
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.AppInstallation, error) {
		inst, err := c.AppInstallation.Get(ctx, installationID)
		if err != nil {
			return nil, err // NOT_FOUND for another organization's
		}
		if inst.UninstalledAt != nil {
			return inst, nil
		}
		data := map[string]any{"appId": inst.AppID, "orgId": org, "installationId": inst.ID, "appName": inst.AppName,
			"uninstalledBy": *events.Actor(ctx)}
		if err := events.Emit(ctx, c, org, event.AppUninstalled, data); err != nil {
			return nil, err
		}
		// Read after the event took its time: the installation's
		// subscriptions receive the events up to uninstalled_at, so
		// app.uninstalled among them.
		// Conditional: of two uninstalls racing, the one that finds the
		// installation uninstalled is refused, and its event rolls back.
		now := apitime.Now(ctx)
		n, err := c.AppInstallation.Update().Where(appinstallation.ID(inst.ID), appinstallation.UninstalledAtIsNil()).
			SetUninstalledAt(now).Save(ctx)
		if err != nil {
			return nil, fmt.Errorf("uninstalling the app: %w", err)
		}
		if n == 0 {
			return nil, apperr.New(apperr.Conflict, "the installation %s was uninstalled meanwhile", inst.ID)
		}
		if inst, err = c.AppInstallation.Get(ctx, inst.ID); err != nil {
			return nil, fmt.Errorf("reading the installation: %w", err)
		}
		if err := c.APIKey.Update().Where(apikey.InstallationID(inst.ID), apikey.RevokedAtIsNil()).
			SetRevokedAt(now).Exec(ctx); err != nil {
			return nil, fmt.Errorf("revoking the app's tokens: %w", err)
		}
		return inst, nil
	})
}
