package rest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"entgo.io/ent/dialect"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/automationrun"
	"github.com/lendingpipe/svc/ent/webhookdelivery"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/telemetry"
)

// Health answers the probes: /status for operators, /healthz and /readyz
// for the load balancer.
type Health struct {
	db       *store.DB
	version  string
	started  time.Time
	now      func() time.Time
	writable *writeCheck
	draining func() bool
}

// NewHealth returns the probes over db; cfg gives the build's version, the
// server's clock (uptime counts from this call) and whether it is draining.
func NewHealth(db *store.DB, cfg Config, logger *slog.Logger) *Health {
	cfg = cfg.WithDefaults()
	return &Health{db: db, version: cfg.Version, started: cfg.Now(), now: cfg.Now,
		writable: &writeCheck{db: db, log: logger}, draining: cfg.Draining}
}

// Status serves /status.
func (h *Health) Status(w http.ResponseWriter, r *http.Request) {
	errorHandler(h.status).ServeHTTP(w, r)
}

// Ready serves /readyz.
func (h *Health) Ready(w http.ResponseWriter, r *http.Request) {
	errorHandler(h.ready).ServeHTTP(w, r)
}

type statusAttributes struct {
	Status            string `json:"status" enum:"ServiceStatus"`
	Version           string `json:"version"`
	APIVersion        string `json:"apiVersion"`
	Database          string `json:"database" enum:"DatabaseDialect"`
	DatabaseReachable bool   `json:"databaseReachable"`
	UptimeSeconds     int64  `json:"uptimeSeconds" openapi:"count"`
	// Work waiting, for operators: events not yet fanned out plus
	// deliveries waiting for an attempt; the dead-letter queue; automation
	// runs waiting. Null when the database is unreachable.
	OutboxDepth     *int `json:"outboxDepth" openapi:"count"`
	DeadLetterDepth *int `json:"deadLetterDepth" openapi:"count"`
	AutomationQueue *int `json:"automationQueueDepth" openapi:"count"`
}

// status reports health in the single-resource envelope; 503 when the
// database does not answer.
func (h *Health) status(w http.ResponseWriter, r *http.Request) error {
	a := statusAttributes{Status: "ok", Version: h.version, APIVersion: APIVersion, Database: h.db.Dialect,
		UptimeSeconds: int64(h.now().Sub(h.started).Seconds())}
	code := http.StatusOK
	if err := h.ping(r.Context()); err != nil {
		a.Status, code = "unavailable", http.StatusServiceUnavailable
	} else if err := h.depths(r.Context(), &a); err != nil {
		return err
	}
	a.DatabaseReachable = code == http.StatusOK
	writeResource(w, r, code, Resource{ID: "status", Type: "status", Attributes: a})
	return nil
}

// depths counts the queues, each an index range scan.
func (h *Health) depths(ctx context.Context, a *statusAttributes) error {
	sys := rule.SystemContext(ctx)
	c := h.db.Client
	events, err := c.WebhookEvent.Query().Where(events.Undispatched()).Count(sys)
	if err != nil {
		return fmt.Errorf("counting the outbox: %w", err)
	}
	pending, err := c.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPending)).Count(sys)
	if err != nil {
		return fmt.Errorf("counting pending deliveries: %w", err)
	}
	dead, err := c.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusDead)).Count(sys)
	if err != nil {
		return fmt.Errorf("counting the dead-letter queue: %w", err)
	}
	runs, err := c.AutomationRun.Query().Where(automationrun.StatusEQ(automationrun.StatusQueued)).Count(sys)
	if err != nil {
		return fmt.Errorf("counting queued automation runs: %w", err)
	}
	outbox := events + pending
	a.OutboxDepth, a.DeadLetterDepth, a.AutomationQueue = &outbox, &dead, &runs
	return nil
}

// Live serves /healthz: the process answers.
func (h *Health) Live(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// ready answers 200 while the database answers and takes writes: a replica
// whose writes fail (a full disk, a read-only or recovering database, a
// SQLite file at its size limit) is taken out of the load balancer, and so
// is one that is shutting down (it still serves what it is sent meanwhile).
func (h *Health) ready(w http.ResponseWriter, r *http.Request) error {
	if h.draining != nil && h.draining() {
		return &apperr.Error{Code: apperr.Unavailable, Message: "the server is shutting down",
			Detail: map[string]any{"check": "drain"}}
	}
	if err := h.ping(r.Context()); err != nil {
		return apperr.New(apperr.Unavailable, "the database is unreachable")
	}
	if err := h.writable.check(r.Context()); err != nil {
		reason := err.Error()
		var refused *store.WriteRefused
		if errors.As(err, &refused) {
			reason = refused.Reason
		}
		return &apperr.Error{Code: apperr.Unavailable, Message: "the database does not take writes: " + reason,
			Detail: map[string]any{"check": "write"}}
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	return nil
}

// writeCheckTTL is how long a write check's outcome stands: a load balancer
// polling every replica often costs the database one heartbeat commit a
// second, not one per poll (on SQLite each waits its turn for the writer).
const writeCheckTTL = time.Second

// writeCheckTimeout bounds how long the write check waits for the writer.
const writeCheckTimeout = 2 * time.Second

// writeCheck runs the database's write check at most once per
// writeCheckTTL and shares the outcome; concurrent callers wait for the
// check in flight rather than starting their own. A check that times out
// (writeCheckTimeout) leaves the outcome as it was.
type writeCheck struct {
	db      *store.DB
	log     *slog.Logger
	mu      sync.Mutex
	checked time.Time
	err     error
}

// check answers from the last outcome while it is fresh. Freshness is
// measured on the real (monotonic) clock: it paces the database's work, not
// anything a caller sees.
func (c *writeCheck) check(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.checked.IsZero() && time.Since(c.checked) < writeCheckTTL {
		return c.err
	}
	// Not the caller's cancellation: the outcome is shared with every caller.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeCheckTimeout)
	defer cancel()
	err := c.db.CheckWrite(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		// The writer is busy, not broken: a replica is not taken out of
		// the load balancer for being under load. The last outcome stands.
		c.log.Warn("the write check timed out; readiness unchanged", "err", err)
		c.checked = time.Now()
		return c.err
	}
	if err != nil && c.err == nil {
		c.log.Warn("the database does not take writes: not ready", "err", err)
	}
	c.checked, c.err = time.Now(), err
	return err
}

func (h *Health) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return h.db.Ping(ctx)
}

// Metrics registers the database's gauges and the SQLite writer's counters
// in m and serves m for Prometheus.
func Metrics(db *store.DB, m *telemetry.Metrics, logger *slog.Logger) http.Handler {
	for name, pool := range db.Pools() {
		m.Register(collectors.NewDBStatsCollector(pool, name))
	}
	m.Register(telemetry.NewGauges(queueGauges, queueGaugesTTL, logger, func(ctx context.Context) ([]float64, error) {
		return readQueues(ctx, db.Client, time.Now())
	}))
	if db.Dialect == dialect.SQLite {
		m.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "svc_sqlite_transactions_total",
			Help: "Transactions committed on the SQLite writer."}, func() float64 { n, _ := db.GroupCommitStats(); return float64(n) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "svc_sqlite_commits_total",
				Help: "Shared (group) commits that carried them."}, func() float64 { _, n := db.GroupCommitStats(); return float64(n) }))
	}
	return m.Handler()
}

// queueGaugesTTL is how long a reading of the queues serves scrapes.
const queueGaugesTTL = time.Second

// MaxQueueDepth caps the depth gauges: a depth is counted by reading at most
// this many index entries, so a scrape costs the same whatever the backlog;
// the gauge reads MaxQueueDepth for any backlog at least that deep.
const MaxQueueDepth = 10000

// queueGauges are readQueues' values, in its order.
var queueGauges = []telemetry.Gauge{
	{Name: "svc_outbox_lag_seconds", Help: "Age of the oldest event not yet fanned out to subscriptions; 0 when none waits."},
	{Name: "svc_webhook_delivery_lag_seconds", Help: "How long the most overdue pending delivery has been due; 0 when none is due."},
	{Name: "svc_automation_lag_seconds", Help: "How long the most overdue queued automation run has been due; 0 when none is due."},
	{Name: "svc_webhook_outbox_depth", Help: "Events not yet fanned out to subscriptions, counted up to 10000."},
	{Name: "svc_webhook_queue_depth", Help: "Deliveries waiting for an attempt, counted up to 10000."},
	{Name: "svc_webhook_dead_letter_depth", Help: "Deliveries in the dead-letter queue, counted up to 10000."},
}

// readQueues reads the queues' lags and bounded depths, each from the
// front of an index: ORDER BY ... LIMIT 1 for a lag, at most MaxQueueDepth
// entries for a depth. Never a count over a whole table.
func readQueues(ctx context.Context, c *ent.Client, now time.Time) ([]float64, error) {
	sys := rule.SystemContext(ctx)
	lag := func(at time.Time, err error) (float64, error) {
		if err != nil || at.IsZero() || !now.After(at) {
			return 0, err
		}
		return now.Sub(at).Seconds(), nil
	}
	out := make([]float64, 0, len(queueGauges))
	for _, read := range []func() (float64, error){
		func() (float64, error) {
			ev, err := c.WebhookEvent.Query().Where(events.Undispatched()).Order(webhookevent.ByOccurredAt()).First(sys)
			return lag(occurredAt(ev), ignoreNotFound(err))
		},
		func() (float64, error) {
			d, err := c.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPending)).
				Order(webhookdelivery.ByNextAttemptAt()).First(sys)
			return lag(nextAttempt(d), ignoreNotFound(err))
		},
		func() (float64, error) {
			run, err := c.AutomationRun.Query().Where(automationrun.StatusEQ(automationrun.StatusQueued)).
				Order(automationrun.ByNextAttemptAt()).First(sys)
			if run == nil {
				return lag(time.Time{}, ignoreNotFound(err))
			}
			return lag(run.NextAttemptAt, nil)
		},
		func() (float64, error) {
			ids, err := c.WebhookEvent.Query().Where(events.Undispatched()).Limit(MaxQueueDepth).IDs(sys)
			return float64(len(ids)), err
		},
		func() (float64, error) {
			ids, err := c.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPending)).Limit(MaxQueueDepth).IDs(sys)
			return float64(len(ids)), err
		},
		func() (float64, error) {
			ids, err := c.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusDead)).Limit(MaxQueueDepth).IDs(sys)
			return float64(len(ids)), err
		},
	} {
		v, err := read()
		if err != nil {
			return nil, fmt.Errorf("reading the queues: %w", err)
		}
		out = append(out, v)
	}
	return out, nil
}

func occurredAt(ev *ent.WebhookEvent) time.Time {
	if ev == nil {
		return time.Time{}
	}
	return ev.OccurredAt
}

func nextAttempt(d *ent.WebhookDelivery) time.Time {
	if d == nil {
		return time.Time{}
	}
	return d.NextAttemptAt
}

func ignoreNotFound(err error) error {
	if ent.IsNotFound(err) {
		return nil
	}
	return err
}
