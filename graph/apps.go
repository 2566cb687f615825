package graph

import (
	"context"

	"entgo.io/ent/dialect/sql"

	"github.com/lendingpipe/svc/ent/app"
	"github.com/lendingpipe/svc/ent/appinstallation"
)

// apps is a page of the apps the organization registered, newest first.
// Who may read is the privacy policy's to say (admin).
func (r *Resolver) apps(ctx context.Context, pageArg, limitArg *int) (*AppPage, error) {
	o, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	q := r.client(ctx).App.Query().Order(app.ByCreatedAt(sql.OrderDesc()), app.ByID(sql.OrderDesc()))
	return answer[AppPage](readPage(ctx, q, o))
}

// appInstallations is a page of the organization's app installations,
// newest first; uninstalled ones only when asked. Who may read is the
// privacy policy's to say (admin).
func (r *Resolver) appInstallations(ctx context.Context, includeUninstalled bool, pageArg, limitArg *int) (*AppInstallationPage, error) {
	o, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	q := r.client(ctx).AppInstallation.Query()
	if !includeUninstalled {
		q = q.Where(appinstallation.UninstalledAtIsNil())
	}
	q = q.Order(appinstallation.ByCreatedAt(sql.OrderDesc()), appinstallation.ByID(sql.OrderDesc()))
	return answer[AppInstallationPage](readPage(ctx, q, o))
}
