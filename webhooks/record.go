package webhooks

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/webhookdelivery"
	"github.com/lendingpipe/svc/ent/webhooksubscription"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/telemetry"
	"github.com/lendingpipe/svc/notify"
)

// recordAll stores a batch's outcomes in one transaction (one commit for
// the batch instead of one per delivery). If that fails, say because a
// subscription was deleted meanwhile, each outcome is recorded on its own.
// An outcome that cannot be recorded at all is logged; its claim lapses and
// the delivery is sent again.
func (w *Worker) recordAll(ctx context.Context, batch []result) {
	dead := make([]bool, len(batch))
	err := store.WithTx(ctx, w.client, func(ctx context.Context, c *ent.Client) error {
		return w.recordBatch(ctx, c, batch, dead)
	})
	if err == nil {
		for i, r := range batch {
			telemetry.Delivered(r.outcome.ok(), dead[i])
		}
		return
	}
	if ctx.Err() != nil {
		return // shutting down: unrecorded claims lapse and are retried
	}
	for i, r := range batch {
		err := store.WithTx(ctx, w.client, func(ctx context.Context, c *ent.Client) error {
			return w.recordBatch(ctx, c, batch[i:i+1], dead[i:i+1])
		})
		switch {
		case err == nil:
			telemetry.Delivered(r.outcome.ok(), dead[i])
		case !ent.IsNotFound(err) && !ent.IsConstraintError(err):
			w.log.Error("recording a webhook attempt", "err", err, "delivery", r.work.delivery.ID)
		}
	}
}

// recordBatch stores attempts and their consequences through tx, marking
// dead[i] when batch[i] went to the dead-letter queue:
//   - every attempt, as one row of a single insert;
//   - the deliveries: successes, the bulk of a healthy run, by one update
//     per lease and status code; failures one by one (next attempt or the
//     dead-letter queue);
//   - then each subscription's run of failures, in the order of its
//     outcomes, one update per subscription in id order, so that replicas
//     recording at once lock subscriptions in the same order.
func (w *Worker) recordBatch(ctx context.Context, tx *ent.Client, batch []result, dead []bool) error {
	now := w.now().UTC()
	attempts := make([]*ent.WebhookAttemptCreate, len(batch))
	for i, r := range batch {
		o := r.outcome
		attempts[i] = tx.WebhookAttempt.Create().SetDeliveryID(r.work.delivery.ID).SetAttemptedAt(now).SetNillableStatusCode(o.status).
			SetLatencyMs(int(o.latency.Milliseconds())).SetNillableError(o.errText).SetNillableResponseExcerpt(o.excerpt)
	}
	if err := tx.WebhookAttempt.CreateBulk(attempts...).Exec(ctx); err != nil {
		return fmt.Errorf("recording attempts: %w", err)
	}
	type settled struct {
		lease time.Time
		code  int
	}
	succeeded := map[settled][]uuid.UUID{}
	runs := map[uuid.UUID]*failureRun{}
	for i, r := range batch {
		run := runs[r.work.sub.ID]
		if run == nil {
			run = &failureRun{}
			runs[r.work.sub.ID] = run
		}
		if r.outcome.ok() {
			k := settled{r.work.lease, *r.outcome.status}
			succeeded[k] = append(succeeded[k], r.work.delivery.ID)
			run.succeeded()
			continue
		}
		recorded, again, err := w.recordFailure(ctx, tx, r.work, r.outcome, now)
		if err != nil {
			return err
		}
		if recorded {
			dead[i] = !again
			run.failed(r.outcome)
		}
	}
	for k, ids := range succeeded {
		// Only while the delivery still carries this claim's lease: a replay
		// meanwhile stands, and so does a later claim once this one lapsed.
		err := tx.WebhookDelivery.Update().
			Where(webhookdelivery.IDIn(ids...), webhookdelivery.NextAttemptAt(k.lease), webhookdelivery.StatusEQ(webhookdelivery.StatusPending)).
			AddAttempts(1).SetLastStatusCode(k.code).SetStatus(webhookdelivery.StatusSucceeded).SetDeliveredAt(now).Exec(ctx)
		if err != nil {
			return fmt.Errorf("recording deliveries: %w", err)
		}
	}
	subs := make([]uuid.UUID, 0, len(runs))
	for id := range runs {
		subs = append(subs, id)
	}
	slices.SortFunc(subs, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
	for _, id := range subs {
		if err := w.countFailures(ctx, tx, id, runs[id], now); err != nil {
			return err
		}
	}
	return nil
}

// recordFailure stores a failed attempt's consequence for its delivery:
// the next attempt, or the dead-letter queue (again false). recorded is
// false when the delivery no longer carries the claim's lease (replayed
// while in flight: the replay stands).
func (w *Worker) recordFailure(ctx context.Context, tx *ent.Client, c claimed, o outcome, now time.Time) (recorded, again bool, err error) {
	attempts := c.delivery.Attempts + 1
	upd := tx.WebhookDelivery.Update().
		Where(webhookdelivery.ID(c.delivery.ID), webhookdelivery.NextAttemptAt(c.lease), webhookdelivery.StatusEQ(webhookdelivery.StatusPending)).
		SetAttempts(attempts).SetNillableLastStatusCode(o.status).SetNillableLastError(o.errText)
	delay, again := w.cfg.nextDelay(attempts, o.resp, now)
	if again {
		upd.SetNextAttemptAt(now.Add(delay))
	} else {
		upd.SetStatus(webhookdelivery.StatusDead).SetDeadAt(now) // SPEC 3.4: the dead-letter queue
	}
	n, err := upd.Save(ctx)
	if err != nil {
		return false, false, fmt.Errorf("recording a failed delivery: %w", err)
	}
	return n > 0, again, nil
}

// failureRun is what one batch did to a subscription's run of consecutive
// failures, in the order of its outcomes. A 2xx answer ends the run even
// when its delivery was replayed meanwhile: the receiver answered.
type failureRun struct {
	restart  bool // a success: the run starts again from it
	failures int  // failures after the last success (all of them, without one)
	gone     bool // one of those failures was 410 Gone
}

func (r *failureRun) succeeded() { *r = failureRun{restart: true} }

func (r *failureRun) failed(o outcome) {
	r.failures++
	r.gone = r.gone || (o.status != nil && *o.status == http.StatusGone)
}

// countFailures applies run to the subscription's run of failures and
// pauses it when the run reaches PauseAfter (SPEC 3.3) or the receiver
// said 410 Gone.
func (w *Worker) countFailures(ctx context.Context, c *ent.Client, subID uuid.UUID, run *failureRun, now time.Time) error {
	if run.failures == 0 {
		if !run.restart {
			return nil
		}
		return c.WebhookSubscription.Update().Where(webhooksubscription.ID(subID),
			webhooksubscription.ConsecutiveFailuresGT(0)).SetConsecutiveFailures(0).Exec(ctx)
	}
	upd := c.WebhookSubscription.UpdateOneID(subID)
	if run.restart {
		upd.SetConsecutiveFailures(run.failures)
	} else {
		upd.AddConsecutiveFailures(run.failures)
	}
	sub, err := upd.Save(ctx)
	if err != nil {
		return fmt.Errorf("counting a subscription's failures: %w", err)
	}
	var reason string
	switch {
	case run.gone:
		reason = "the endpoint answered 410 Gone"
	case sub.ConsecutiveFailures >= w.cfg.PauseAfter:
		reason = fmt.Sprintf("%d consecutive delivery failures", sub.ConsecutiveFailures)
	default:
		return nil
	}
	n, err := c.WebhookSubscription.Update().Where(webhooksubscription.ID(subID), webhooksubscription.IsActive(true)).
		SetIsActive(false).SetPausedReason(reason).SetPausedAt(now).Save(ctx)
	if err != nil || n == 0 {
		return err // already paused by a concurrent failure
	}
	w.log.Warn("webhook subscription paused", "subscription", subID, "reason", reason)
	data := map[string]any{"subscriptionId": "whsub_" + subID.String(), "orgId": sub.OrgID, "url": sub.URL,
		"reason": reason, "consecutiveFailures": sub.ConsecutiveFailures, "pausedAt": apitime.Format(now)}
	// An app's endpoint is another endpoint of the same installation.
	if err := events.EmitWithin(ctx, c, sub.OrgID, event.AppWebhookPaused, data, &subID, sub.InstallationID); err != nil {
		return err
	}
	admins, err := notify.ToAdmins(ctx, c, sub.OrgID, notify.Notice{Kind: notify.SubscriptionPaused, RecordID: subID,
		Summary: fmt.Sprintf("Webhooks to %s paused: %s", sub.URL, reason)})
	if err != nil {
		return err
	}
	return notify.Send(ctx, c, admins...)
}
