package telemetry

import "github.com/prometheus/client_golang/prometheus"

// Worker kinds, the worker label of the claim counters.
const (
	WorkerOutbox     = "outbox"     // fanning out undispatched events
	WorkerDelivery   = "delivery"   // webhook deliveries due for an attempt
	WorkerAutomation = "automation" // queued automation runs
	WorkerImport     = "import"     // lead import jobs
)

// The workers' counters are the process's (a process runs one of each
// worker whatever the servers in it), so they are package variables that
// every server's registry registers.
var (
	workerClaims = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "svc_worker_claims_total",
		Help: "Claims by this process's workers that took at least one item, by worker.",
	}, []string{"worker"})
	workerItems = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "svc_worker_claimed_items_total",
		Help: "Items (events, deliveries, runs, jobs) this process's workers claimed, by worker.",
	}, []string{"worker"})
	deliveriesSent = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "svc_webhook_deliveries_sent_total", Help: "Deliveries answered 2xx by this process.",
	})
	deliveryFailures = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "svc_webhook_delivery_failures_total", Help: "Failed delivery attempts by this process.",
	})
	deadLettered = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "svc_webhook_dead_lettered_total", Help: "Deliveries this process moved to the dead-letter queue.",
	})
)

// claimCounters are the counters of each worker kind, curried once.
var claimCounters = func() map[string][2]prometheus.Counter {
	out := map[string][2]prometheus.Counter{}
	for _, k := range []string{WorkerOutbox, WorkerDelivery, WorkerAutomation, WorkerImport} {
		out[k] = [2]prometheus.Counter{workerClaims.WithLabelValues(k), workerItems.WithLabelValues(k)}
	}
	return out
}()

// Claimed counts a claim of n items by a worker of kind (one of the Worker
// constants); a claim that found nothing is not counted.
func Claimed(kind string, n int) {
	c, ok := claimCounters[kind]
	if !ok || n <= 0 {
		return
	}
	c[0].Inc()
	c[1].Add(float64(n))
}

// Delivered counts a delivery attempt's outcome: answered 2xx, or failed
// and, when dead, moved to the dead-letter queue.
func Delivered(ok, dead bool) {
	if ok {
		deliveriesSent.Inc()
		return
	}
	deliveryFailures.Inc()
	if dead {
		deadLettered.Inc()
	}
}
