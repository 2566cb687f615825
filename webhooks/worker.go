package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/lendingpipe/svc/internal/signals"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/webhookdelivery"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/ent/webhooksubscription"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/telemetry"
)

const (
	wakeLinger      = 5 * time.Millisecond
	recordLinger    = 5 * time.Millisecond // how long the recorder gathers outcomes after the first
	batchSize       = 200
	responseExcerpt = 2048
	// DeliveryIDPrefix prefixes X-Webhook-Id; EventIDPrefix the envelope id.
	DeliveryIDPrefix = "msg_"
	EventIDPrefix    = "evt_"
)

// Worker fans outbox events out to subscriptions and sends the deliveries.
// Several workers (one per server process) may share a database: claims
// lock with SKIP LOCKED on PostgreSQL, and on SQLite the single writer
// serialises them, so no delivery is claimed by two workers.
type Worker struct {
	client  *ent.Client
	dialect string
	cfg     Config
	http    *http.Client
	now     func() time.Time
	log     *slog.Logger
	// swept is when Run last deleted uninstalled apps' subscriptions.
	swept time.Time
	// keys holds what the subscriptions' API keys may read.
	keys keyScopes
	// RunsQueued, when set, wakes this process's automation runner once
	// the runs fanOut queues commit.
	RunsQueued *signals.Signal
}

// NewWorker returns a worker over client.
func NewWorker(client *ent.Client, dia string, cfg Config, now func() time.Time, log *slog.Logger) *Worker {
	return &Worker{client: client, dialect: dia, cfg: cfg, http: newHTTPClient(cfg), now: now, log: log}
}

// Run works until ctx ends. A delivery in flight when it ends is not
// recorded, so its claim lapses and it is retried.
func (w *Worker) Run(ctx context.Context) {
	ctx = apitime.WithClock(rule.SystemContext(ctx), w.now)
	n := max(1, w.cfg.Concurrency)
	p := &pipeline{
		slots:   make(chan struct{}, n),
		results: make(chan result, n),
		freed:   make(chan struct{}, 1),
	}
	recorded := make(chan struct{})
	go func() { w.recorder(ctx, p); close(recorded) }()
	for ctx.Err() == nil {
		if w.step(ctx, p) {
			continue
		}
		select {
		case <-ctx.Done():
		case <-w.client.Signals.Woken():
			// Let a burst of commits gather, so a busy writer fans out many
			// events per transaction rather than one per commit (on SQLite
			// every dispatch waits its turn for the one write connection).
			select {
			case <-ctx.Done():
			case <-time.After(wakeLinger):
			}
		case <-p.freed:
		case <-time.After(w.cfg.Poll):
		}
	}
	<-recorded
}

// pipeline joins the claim loop, the senders and the recorder. A receiver
// that takes its whole timeout holds one slot, not the deliveries behind it.
//
// A slot is held from the claim until the outcome is committed, not just
// while the request is in flight: if senders freed their slots on an answer,
// a fast receiver would let the claim loop outrun the recorder, outcomes
// would pile up in memory without bound, and claims would lapse before
// their outcomes were stored, sending each delivery again. Held to the
// commit, claimed-but-unrecorded deliveries never exceed Concurrency.
type pipeline struct {
	slots   chan struct{} // one per delivery claimed and not yet recorded
	results chan result   // sent, waiting to be recorded; never fuller than slots
	freed   chan struct{} // slots came free
}

type result struct {
	work    claimed
	outcome outcome
}

// step fans out new events and claims as many due deliveries as there are
// free slots; it reports whether more work is waiting. Fresh deliveries
// handed out at fan-out take at most half of the free slots, so that due
// retries (and fresh deliveries left over) always get the other half under
// a steady stream of events.
func (w *Worker) step(ctx context.Context, p *pipeline) bool {
	w.sweep(ctx)
	free := cap(p.slots) - len(p.slots)
	n, handed, err := w.dispatch(ctx, min(free/2, batchSize))
	if err != nil && ctx.Err() == nil {
		w.log.Error("fanning out webhook events", "err", err)
	}
	telemetry.Claimed(telemetry.WorkerOutbox, n)
	w.send(ctx, p, handed)
	free -= len(handed)
	if free == 0 {
		return n == batchSize
	}
	work, err := w.claim(ctx, min(free, batchSize))
	if err != nil && ctx.Err() == nil {
		w.log.Error("claiming webhook deliveries", "err", err)
	}
	w.send(ctx, p, work)
	return n == batchSize || (len(work) == min(free, batchSize) && len(work) > 0)
}

// send posts claimed deliveries, each holding a slot until its outcome is
// recorded.
func (w *Worker) send(ctx context.Context, p *pipeline, work []claimed) {
	telemetry.Claimed(telemetry.WorkerDelivery, len(work))
	for _, c := range work {
		p.slots <- struct{}{} // never blocks: this loop alone takes slots, and it took no more than were free
		go func() {
			// results has room for every slot, so this never blocks.
			p.results <- result{c, w.post(ctx, c)}
		}()
	}
}

// recorder commits outcomes in small batches (whatever arrived within a few
// milliseconds of the first, up to batchSize, in one transaction) and then
// frees their slots.
func (w *Worker) recorder(ctx context.Context, p *pipeline) {
	for {
		var batch []result
		select {
		case <-ctx.Done():
			return // unrecorded claims lapse and are retried
		case r := <-p.results:
			batch = append(batch, r)
		}
		linger := time.After(recordLinger)
	collect:
		for len(batch) < batchSize {
			select {
			case r := <-p.results:
				batch = append(batch, r)
			case <-linger:
				break collect
			case <-ctx.Done():
				return
			}
		}
		w.recordAll(ctx, batch)
		for range batch {
			<-p.slots
		}
		select {
		case p.freed <- struct{}{}:
		default:
		}
		w.client.Signals.Wake() // retries scheduled now may already be due
	}
}

// forUpdate adds SKIP LOCKED row locks where the database has them.
func (w *Worker) lockEvents(q *ent.WebhookEventQuery) *ent.WebhookEventQuery {
	if w.dialect == dialect.Postgres {
		return q.ForUpdate(sql.WithLockAction(sql.SkipLocked))
	}
	return q
}

func (w *Worker) lockDeliveries(q *ent.WebhookDeliveryQuery) *ent.WebhookDeliveryQuery {
	if w.dialect == dialect.Postgres {
		return q.ForUpdate(sql.WithLockAction(sql.SkipLocked))
	}
	return q
}

// dispatch creates a delivery for each undispatched event and each active
// subscription of its organization that wants it, and hands up to claim of
// them to this worker, claimed as they are created: a fresh delivery is
// due at once, and claiming it in the transaction that creates it saves
// the claim's own transaction (its statements and its commit).
func (w *Worker) dispatch(ctx context.Context, claim int) (int, []claimed, error) {
	var handed []claimed
	// The transaction is in ctx: the automation runs it queues wake the
	// runner once it commits.
	n, err := store.WithTxValue(ctx, w.client, func(ctx context.Context, tx *ent.Client) (int, error) {
		events, err := w.lockEvents(tx.WebhookEvent.Query().Where(events.Undispatched()).
			Order(webhookevent.ByOccurredAt()).Limit(batchSize)).All(ctx)
		if err != nil {
			return 0, err
		}
		if len(events) == 0 {
			return 0, errNoWork
		}
		if handed, err = w.fanOut(ctx, tx, events, claim); err != nil {
			return 0, err
		}
		return len(events), nil
	})
	if errors.Is(err, errNoWork) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	return n, handed, nil
}

// errNoWork rolls back a transaction that found nothing to do: it wrote
// nothing, and a rollback costs no commit.
var errNoWork = errors.New("no work")

// fanOut creates events' deliveries and automation runs through tx, and
// marks the events dispatched. The first claim deliveries are created
// claimed by this worker (their next attempt at the lease, as claim sets
// it) and returned.
func (w *Worker) fanOut(ctx context.Context, tx *ent.Client, events []*ent.WebhookEvent, claim int) ([]claimed, error) {
	subs, err := activeSubscriptions(ctx, tx, events)
	if err != nil {
		return nil, err
	}
	var all []*ent.WebhookSubscription
	for _, ss := range subs {
		all = append(all, ss...)
	}
	audience, err := w.keys.audience(ctx, tx, all, w.now())
	if err != nil {
		return nil, err
	}
	now := w.now().UTC()
	lease := w.lease(now)
	var creates []*ent.WebhookDeliveryCreate
	var handed []claimed
	ids := make([]uuid.UUID, len(events))
	for i, ev := range events {
		ids[i] = ev.ID
		for _, s := range subs[ev.OrgID] {
			if !audience.Receives(ev, s) {
				continue // not for it, or its credential may not read it (now): skipped, not dead-lettered
			}
			c := tx.WebhookDelivery.Create().SetOrgID(ev.OrgID).SetEventID(ev.ID).SetSubscriptionID(s.ID).SetNextAttemptAt(now)
			if len(handed) < claim {
				c.SetNextAttemptAt(lease)
				handed = append(handed, claimed{event: ev, sub: s, lease: lease})
			}
			creates = append(creates, c)
		}
	}
	if len(creates) > 0 {
		ds, err := tx.WebhookDelivery.CreateBulk(creates...).Save(ctx)
		if err != nil {
			return nil, fmt.Errorf("creating deliveries: %w", err)
		}
		for i := range handed {
			handed[i].delivery = ds[i]
		}
	}
	if err := enqueueForEvents(ctx, tx, w.RunsQueued, events, now); err != nil {
		return nil, err
	}
	if err := tx.WebhookEvent.Update().Where(webhookevent.IDIn(ids...)).SetDispatched(true).Exec(ctx); err != nil {
		return nil, err
	}
	return handed, nil
}

// lease is when a claim made at now lapses: past the send timeout, so a
// crashed worker's deliveries are sent again. As stored (milliseconds), so
// the record can match it.
func (w *Worker) lease(now time.Time) time.Time {
	return apitime.Truncate(now.Add(w.cfg.Timeout + 30*time.Second))
}

// receives reports whether s is among the subscriptions ev is for: not
// the one it excludes, of the installation it is limited to, if any, and,
// for an uninstalled app's subscription (gone: when each was uninstalled),
// an event up to the uninstallation.
func receives(ev *ent.WebhookEvent, s *ent.WebhookSubscription, gone map[uuid.UUID]time.Time) bool {
	if ev.ExcludeSubscriptionID != nil && *ev.ExcludeSubscriptionID == s.ID {
		return false
	}
	if s.InstallationID != nil {
		if at, ok := gone[*s.InstallationID]; ok && ev.OccurredAt.After(at) {
			return false
		}
	}
	return ev.OnlyInstallationID == nil || s.InstallationID != nil && *s.InstallationID == *ev.OnlyInstallationID
}

func activeSubscriptions(ctx context.Context, c *ent.Client, events []*ent.WebhookEvent) (map[uuid.UUID][]*ent.WebhookSubscription, error) {
	orgs := map[uuid.UUID]bool{}
	var orgIDs []uuid.UUID
	for _, ev := range events {
		if !orgs[ev.OrgID] {
			orgs[ev.OrgID] = true
			orgIDs = append(orgIDs, ev.OrgID)
		}
	}
	subs, err := c.WebhookSubscription.Query().
		Where(webhooksubscription.OrgIDIn(orgIDs...), webhooksubscription.IsActive(true)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := map[uuid.UUID][]*ent.WebhookSubscription{}
	for _, s := range subs {
		out[s.OrgID] = append(out[s.OrgID], s)
	}
	return out, nil
}

// claimed is a delivery this worker holds, with what it needs to send it.
type claimed struct {
	delivery *ent.WebhookDelivery
	event    *ent.WebhookEvent
	sub      *ent.WebhookSubscription
	// lease is the next_attempt_at the claim set; the outcome is recorded
	// only while the delivery still carries it (a replay meanwhile wins).
	lease time.Time
}

// claim takes up to limit due deliveries of active subscriptions, pushing
// their next attempt past the send timeout (a lease: a crashed worker's
// claim lapses and the delivery is retried).
func (w *Worker) claim(ctx context.Context, limit int) ([]claimed, error) {
	var lease time.Time
	full, err := store.WithTxValue(ctx, w.client, func(ctx context.Context, tx *ent.Client) ([]*ent.WebhookDelivery, error) {
		now := w.now().UTC()
		ds, err := w.lockDeliveries(tx.WebhookDelivery.Query().
			Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPending), webhookdelivery.NextAttemptAtLTE(now),
				webhookdelivery.HasSubscriptionWith(webhooksubscription.IsActive(true))).
			Order(webhookdelivery.ByNextAttemptAt()).Limit(limit)).All(ctx)
		if err != nil {
			return nil, err
		}
		if len(ds) == 0 {
			return nil, errNoWork
		}
		ids := make([]uuid.UUID, len(ds))
		for i, d := range ds {
			ids[i] = d.ID
		}
		lease = w.lease(now)
		if err := tx.WebhookDelivery.Update().Where(webhookdelivery.IDIn(ids...)).SetNextAttemptAt(lease).Exec(ctx); err != nil {
			return nil, err
		}
		return tx.WebhookDelivery.Query().Where(webhookdelivery.IDIn(ids...)).WithEvent().WithSubscription().All(ctx)
	})
	if errors.Is(err, errNoWork) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]claimed, len(full))
	for i, d := range full {
		out[i] = claimed{delivery: d, event: d.Edges.Event, sub: d.Edges.Subscription, lease: lease}
	}
	return out, nil
}

// Envelope is the body of a delivery (SPEC 6.1).
type Envelope struct {
	ID        string         `json:"id"`
	Event     string         `json:"event"`
	Timestamp apitime.Time   `json:"timestamp"`
	Data      map[string]any `json:"data"`
}

// Body is an event's delivery body, the same bytes on every attempt.
func Body(ev *ent.WebhookEvent) ([]byte, error) {
	return json.Marshal(Envelope{ID: EventIDPrefix + ev.ID.String(), Event: ev.EventType, Timestamp: apitime.Of(ev.OccurredAt), Data: ev.Data})
}

// outcome is what one attempt came to.
type outcome struct {
	resp    *http.Response
	status  *int
	excerpt *string
	errText *string
	// cause is errText without the request's URL (a receiver's URL may
	// carry a token in its query): what a trace may show.
	cause   string
	latency time.Duration
}

func (o outcome) ok() bool { return o.status != nil && *o.status >= 200 && *o.status < 300 }

// post makes one attempt, in a span of its own when tracing is on.
func (w *Worker) post(ctx context.Context, c claimed) outcome {
	ctx, span := telemetry.StartDelivery(ctx, c.event.EventType, c.sub.ID.String(), c.delivery.ID.String())
	o := w.attempt(ctx, c)
	if span != nil {
		status, errText := 0, ""
		if o.status != nil {
			status = *o.status
		}
		if o.errText != nil {
			errText = o.cause
		}
		telemetry.EndDelivery(span, status, errText)
	}
	return o
}

func (w *Worker) attempt(ctx context.Context, c claimed) outcome {
	body, err := Body(c.event)
	if err != nil {
		msg := "encoding the event: " + err.Error()
		return outcome{errText: &msg}
	}
	sentAt := w.now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.sub.URL, bytes.NewReader(body))
	if err != nil {
		msg := "invalid URL: " + err.Error()
		return outcome{errText: &msg}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "lendingpipe-webhooks/1")
	req.Header.Set(HeaderID, DeliveryIDPrefix+c.delivery.ID.String())
	req.Header.Set(HeaderTimestamp, fmt.Sprint(sentAt.Unix()))
	req.Header.Set(HeaderSignature, Sign(c.sub.Secret, sentAt, body))
	// traceparent, when tracing: outside the signed bytes (the body).
	telemetry.Inject(ctx, req.Header)
	start := time.Now()
	resp, err := w.http.Do(req)
	o := outcome{latency: time.Since(start)}
	if err != nil {
		msg := err.Error()
		o.errText, o.cause = &msg, msg
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			o.cause = ue.Err.Error()
		}
		return o
	}
	defer resp.Body.Close()
	excerpt, _ := io.ReadAll(io.LimitReader(resp.Body, responseExcerpt))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // let the connection be reused
	code, text := resp.StatusCode, string(excerpt)
	o.resp, o.status, o.excerpt = resp, &code, &text
	return o
}
