package webhooks

import (
	"context"
	"time"

	"entgo.io/ent/dialect/sql"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/appinstallation"
	"github.com/lendingpipe/svc/ent/webhookdelivery"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/ent/webhooksubscription"
	"github.com/lendingpipe/svc/internal/rule"
)

// sweepEvery is how often a worker deletes the subscriptions of
// uninstalled apps that have nothing left to deliver.
const sweepEvery = time.Second

// DeleteUninstalled deletes the webhook subscriptions of uninstalled app
// installations once they have nothing left to deliver: no pending
// delivery, and no event of their organization up to the uninstallation
// (app.uninstalled included) still waiting to be fanned out. It is one
// conditional DELETE, so replicas running it together delete each
// subscription once, and a fan-out committing meanwhile leaves either an
// undispatched event or a pending delivery that keeps the subscription.
func DeleteUninstalled(ctx context.Context, c *ent.Client) (int, error) {
	return c.WebhookSubscription.Delete().Where(
		webhooksubscription.InstallationIDNotNil(),
		uninstalledAndDispatched(),
		webhooksubscription.Not(webhooksubscription.HasDeliveriesWith(webhookdelivery.StatusEQ(webhookdelivery.StatusPending))),
	).Exec(rule.SystemContext(ctx))
}

// uninstalledAndDispatched selects subscriptions whose installation is
// uninstalled and whose organization's events up to the uninstallation
// are all fanned out.
func uninstalledAndDispatched() func(*sql.Selector) {
	return func(s *sql.Selector) {
		i := sql.Table(appinstallation.Table)
		e := sql.Table(webhookevent.Table)
		waiting := sql.Select(e.C(webhookevent.FieldID)).From(e).Where(sql.And(
			sql.ColumnsEQ(e.C(webhookevent.FieldOrgID), i.C(appinstallation.FieldOrgID)),
			sql.EQ(e.C(webhookevent.FieldDispatched), false),
			sql.ColumnsLTE(e.C(webhookevent.FieldOccurredAt), i.C(appinstallation.FieldUninstalledAt)),
		))
		s.Where(sql.Exists(sql.Select(i.C(appinstallation.FieldID)).From(i).Where(sql.And(
			sql.ColumnsEQ(i.C(appinstallation.FieldID), s.C(webhooksubscription.FieldInstallationID)),
			sql.NotNull(i.C(appinstallation.FieldUninstalledAt)),
			sql.NotExists(waiting),
		))))
	}
}

// sweep runs DeleteUninstalled at most every sweepEvery.
func (w *Worker) sweep(ctx context.Context) {
	if time.Since(w.swept) < sweepEvery {
		return
	}
	w.swept = time.Now()
	n, err := DeleteUninstalled(ctx, w.client)
	switch {
	case err != nil && ctx.Err() == nil:
		w.log.Error("deleting the webhook subscriptions of uninstalled apps", "err", err)
	case n > 0:
		w.log.Info("deleted the webhook subscriptions of uninstalled apps", "count", n)
	}
}
