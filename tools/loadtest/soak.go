package loadtest

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/lendingpipe/svc/internal/store"
)

// Receiver behaviours a soak run can deliver to.
const (
	ReceiverFast = "fast" // answers 200 at once
	ReceiverHung = "hung" // accepts connections and never answers
	// ReceiverRefusing resets every connection as it opens.
	ReceiverRefusing = "refusing"
)

// SoakConfig says what a soak run does beyond Config: Duration is the
// length of the mixed load, Concurrency its connections.
type SoakConfig struct {
	Config
	Receiver string        // ReceiverFast, ReceiverHung or ReceiverRefusing
	Drain    time.Duration // how long the queues have to empty once the load stops
	Settle   time.Duration // how long memory and deliveries are watched after that
	Sample   time.Duration // how often each replica's RSS is read
	JSON     bool          // print the report as JSON rather than a table
	// Creates is the share of the load, in percent, that creates leads
	// (0: the mix's 30); the rest keeps the mix's proportions. At 100 the
	// run measures the write and delivery path alone.
	Creates int
}

// SoakReport is a soak run's figures.
type SoakReport struct {
	Replicas     int
	Receiver     string
	Requests     int     // requests of the mixed load sent
	Errors       int     // non-2xx answers and transport errors
	Throughput   float64 // requests per second
	LeadsCreated int     // POST /v1/leads answered 201
	Deliveries   int     // requests the receiver got
	DistinctIDs  int     // distinct X-Webhook-Id values among them
	// DeliveryRate is distinct deliveries per second from the first
	// receipt to the last.
	DeliveryRate float64
	// ReceiptP50 and ReceiptP99 are the time from each event's
	// occurredAt (set in its transaction, just before the commit) to its
	// first receipt: commit-to-receipt latency, a little over.
	ReceiptP50, ReceiptP99 time.Duration
	// P99First and P99Last are the request p99 over the first and the last
	// third of the load.
	P99First, P99Last time.Duration
	// RSS, MiB, of the replica that used most: at the start of the load,
	// at its end, the most at any sample, and at the end of the settle time.
	RSSStart, RSSEnd, RSSMax, RSSAfter float64
	// WALMax is the largest the SQLite write-ahead log file was at any
	// sample, MiB (0 on PostgreSQL).
	WALMax float64
	// Drained is how long the delivery queue and the outbox took to reach
	// zero after the load stopped; negative when they did not within Drain.
	Drained time.Duration
}

// Duplicates is the share of deliveries beyond one per id.
func (r *SoakReport) Duplicates() float64 {
	if r.Deliveries == 0 {
		return 0
	}
	return float64(r.Deliveries-r.DistinctIDs) / float64(r.Deliveries)
}

// Soak runs the mixed load an operator sees in production against
// Replicas servers sharing one database, with one subscription to
// lead.created pointing at a local receiver, and reports whether every
// lead's event arrived once, how memory behaved and how fast the queues
// emptied. The mix: 30 % create lead, 10 % dialer event, 40 % get one
// lead, 20 % the first page of the list.
func Soak(ctx context.Context, cfg SoakConfig) (*SoakReport, error) {
	cfg.Replicas = max(cfg.Replicas, 1)
	cfg.Concurrency = cmp.Or(cfg.Concurrency, 8)
	cfg.Sample = cmp.Or(cfg.Sample, 5*time.Second)
	fx, err := prepare(ctx, cfg.Config)
	if err != nil {
		return nil, err
	}
	recv, err := startReceiver(cfg.Receiver)
	if err != nil {
		return nil, err
	}
	defer recv.close()
	var servers []*child
	defer func() {
		for _, s := range servers {
			s.stop()
		}
	}()
	env := []string{"SVC_WEBHOOK_ALLOW_PRIVATE=true", "SVC_WEBHOOK_ALLOW_HTTP=true"}
	if cfg.Receiver != ReceiverFast {
		// Never paused, the subscription keeps every sender busy with the
		// failing receiver for the whole run: the worst case for memory.
		env = append(env, "SVC_WEBHOOK_PAUSE_AFTER=1000000000")
	}
	for range cfg.Replicas {
		s, err := startChild(ctx, cfg.Config, "serve", env...)
		if err != nil {
			return nil, err
		}
		servers = append(servers, s)
	}
	if err := subscribeOnly(ctx, servers[0].url, fx.key, recv.url); err != nil {
		return nil, err
	}
	rep := &SoakReport{Replicas: cfg.Replicas, Receiver: cfg.Receiver}
	rss := startRSSSampler(servers, cfg.DatabaseURL, cfg.Sample)
	rep.RSSStart = rss.current()
	runMixedLoad(ctx, cfg, fx, servers, rep)
	rep.RSSEnd = rss.current()
	rep.Drained = -1
	if cfg.Receiver == ReceiverFast {
		rep.Drained = waitDrained(ctx, servers[0].url, cfg.Drain)
	}
	if err := rss.lost(); err != nil {
		return nil, err
	}
	select {
	case <-ctx.Done():
	case <-time.After(cfg.Settle):
	}
	rep.RSSAfter = rss.current()
	rep.RSSMax, rep.WALMax = rss.stop()
	rep.Deliveries, rep.DistinctIDs = recv.counts()
	rep.DeliveryRate, rep.ReceiptP50, rep.ReceiptP99 = recv.receipts()
	printSoak(cfg, rep)
	return rep, nil
}

// runMixedLoad drives the mix at every replica in turn for cfg.Duration,
// or until ctx ends.
func runMixedLoad(ctx context.Context, cfg SoakConfig, fx *fixtures, servers []*child, rep *SoakReport) {
	header := http.Header{"Authorization": {"Bearer " + fx.key}, "Content-Type": {"application/json"}}
	var seq, turn atomic.Int64
	targeter := func(t *vegeta.Target) error {
		base := servers[int(turn.Add(1))%len(servers)].url
		n := seq.Add(1)
		lead := fx.leads[rand.IntN(len(fx.leads))]
		t.Header, t.Body = header, nil
		creates := cmp.Or(cfg.Creates, 30)
		switch p := rand.IntN(100); {
		case p < creates:
			t.Method, t.URL = http.MethodPost, base+"/v1/leads"
			t.Body = fmt.Appendf(nil, `{"businessName":"Soak %d Freight LLC","contactFirstName":"Ana","email":"ana%d@soak.example","requestedAmount":"50000","source":"api"}`, n, n)
		case p < creates+(100-creates)/7:
			t.Method, t.URL = http.MethodPost, base+"/v1/dialer/events"
			t.Body = fmt.Appendf(nil, `{"externalCallId":"soak-%d","userId":"%s","leadId":"%s","eventType":"call_started","direction":"outbound","occurredAt":"%s"}`,
				n, fx.agents[rand.IntN(len(fx.agents))], lead, time.Now().UTC().Format(time.RFC3339))
		case p < creates+(100-creates)*5/7:
			t.Method, t.URL = http.MethodGet, base+"/v1/leads/"+lead.String()
		default:
			t.Method, t.URL = http.MethodGet, base+"/v1/leads?page=1&limit=20"
		}
		return nil
	}
	workers := uint64(cfg.Concurrency)
	attacker := vegeta.NewAttacker(vegeta.Workers(workers), vegeta.MaxWorkers(workers), vegeta.Connections(cfg.Concurrency),
		vegeta.MaxConnections(cfg.Concurrency), vegeta.KeepAlive(true), vegeta.Timeout(10*time.Second), vegeta.HTTP2(false))
	type sample struct {
		at      time.Time
		latency time.Duration
	}
	var samples []sample
	stop := context.AfterFunc(ctx, func() { attacker.Stop() })
	defer stop()
	start := time.Now()
	for res := range attacker.Attack(targeter, vegeta.ConstantPacer{Freq: cfg.Rate, Per: time.Second}, cfg.Duration, "soak") {
		rep.Requests++
		samples = append(samples, sample{res.Timestamp, res.Latency})
		switch {
		case res.Code < 200 || res.Code > 299:
			rep.Errors++
		case res.Method == http.MethodPost && res.Code == http.StatusCreated && strings.HasSuffix(res.URL, "/v1/leads"):
			rep.LeadsCreated++
		}
	}
	rep.Throughput = float64(rep.Requests) / time.Since(start).Seconds()
	// Thirds of the sending time, not of the wait for the last answers.
	third := start.Add(cfg.Duration / 3)
	last := start.Add(2 * cfg.Duration / 3)
	var first, final []time.Duration
	for _, s := range samples {
		switch {
		case s.at.Before(third):
			first = append(first, s.latency)
		case !s.at.Before(last):
			final = append(final, s.latency)
		}
	}
	rep.P99First, rep.P99Last = p99(first), p99(final)
}

func p99(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[(len(d)*99+99)/100-1] // the nearest rank
}

// subscribeOnly removes the load organization's subscriptions left by
// earlier runs and subscribes the receiver to lead.created.
func subscribeOnly(ctx context.Context, base, key, target string) error {
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := apiCall(ctx, http.MethodGet, base+"/v1/app-webhooks", key, "", http.StatusOK, &list); err != nil {
		return err
	}
	for _, s := range list.Data {
		if err := apiCall(ctx, http.MethodDelete, base+"/v1/app-webhooks/"+s.ID, key, "", http.StatusNoContent, nil); err != nil {
			return err
		}
	}
	body := fmt.Sprintf(`{"url":%q,"events":["lead.created"]}`, target)
	return apiCall(ctx, http.MethodPost, base+"/v1/app-webhooks", key, body, http.StatusCreated, nil)
}

func apiCall(ctx context.Context, method, url, key, body string, want int, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %d, want %d: %s", method, url, resp.StatusCode, want, raw)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// waitDrained polls the server's queue gauges until both are zero and
// reports how long that took, or -1 after limit.
func waitDrained(ctx context.Context, base string, limit time.Duration) time.Duration {
	start := time.Now()
	for time.Since(start) < limit {
		if depth, err := queueDepth(ctx, base); err == nil && depth == 0 {
			return time.Since(start)
		}
		select {
		case <-ctx.Done():
			return -1
		case <-time.After(100 * time.Millisecond):
		}
	}
	return -1
}

// queueDepth is svc_webhook_queue_depth + svc_webhook_outbox_depth.
func queueDepth(ctx context.Context, base string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	total, found := 0, 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if ok && (name == "svc_webhook_queue_depth" || name == "svc_webhook_outbox_depth") {
			n, err := strconv.Atoi(value)
			if err != nil {
				return 0, fmt.Errorf("reading %s: %w", name, err)
			}
			total += n
			found++
		}
	}
	if found != 2 {
		return 0, errors.New("the queue gauges are missing from /metrics")
	}
	return total, sc.Err()
}

// receiver is the soak run's webhook endpoint: it counts requests and
// distinct X-Webhook-Id values, and notes when each id first arrived and
// how long after its event's timestamp.
type receiver struct {
	srv   *http.Server
	ln    net.Listener
	url   string
	mu    sync.Mutex
	total int
	ids   map[string]struct{}
	// first and last are the first and the latest receipt of a new id;
	// lags each new id's receipt time less its event's timestamp.
	first, last time.Time
	lags        []time.Duration
}

func startReceiver(kind string) (*receiver, error) {
	if kind != ReceiverFast && kind != ReceiverHung && kind != ReceiverRefusing {
		return nil, fmt.Errorf("receiver %q: want %s, %s or %s", kind, ReceiverFast, ReceiverHung, ReceiverRefusing)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting the receiver: %w", err)
	}
	rc := &receiver{url: "http://" + ln.Addr().String() + "/hook", ln: ln, ids: map[string]struct{}{}}
	if kind == ReceiverRefusing {
		// The port stays ours, so nothing else can answer on it.
		rc.srv = &http.Server{}
		go resetEvery(ln)
		return rc, nil
	}
	rc.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		var env struct {
			Timestamp time.Time `json:"timestamp"`
		}
		_ = json.NewDecoder(r.Body).Decode(&env)
		_, _ = io.Copy(io.Discard, r.Body)
		rc.note(r.Header.Get("X-Webhook-Id"), at, env.Timestamp)
		if kind == ReceiverHung {
			<-r.Context().Done() // until the sender gives up or the receiver closes
		}
	})}
	go func() { _ = rc.srv.Serve(ln) }()
	return rc, nil
}

// resetEvery accepts connections and resets each at once, until ln closes.
func resetEvery(ln net.Listener) {
	defer ln.Close()
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		if tcp, ok := conn.(*net.TCPConn); ok {
			_ = tcp.SetLinger(0) // close with a reset, not an orderly end
		}
		_ = conn.Close()
	}
}

// note counts a request for id received at at, of an event of time ts.
func (rc *receiver) note(id string, at, ts time.Time) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.total++
	if _, seen := rc.ids[id]; seen {
		return
	}
	rc.ids[id] = struct{}{}
	if rc.first.IsZero() {
		rc.first = at
	}
	rc.last = at
	if !ts.IsZero() {
		rc.lags = append(rc.lags, at.Sub(ts))
	}
}

// receipts is the rate of new ids from the first receipt to the last and
// the median and 99th percentile of their commit-to-receipt lags.
func (rc *receiver) receipts() (rate float64, p50, p99 time.Duration) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if span := rc.last.Sub(rc.first).Seconds(); span > 0 {
		rate = float64(len(rc.ids)) / span
	}
	if len(rc.lags) == 0 {
		return rate, 0, 0
	}
	lags := slices.Sorted(slices.Values(rc.lags))
	return rate, lags[len(lags)/2], lags[(len(lags)*99+99)/100-1]
}

func (rc *receiver) counts() (total, distinct int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.total, len(rc.ids)
}

func (rc *receiver) close() {
	_ = rc.srv.Close()
	_ = rc.ln.Close()
}

// rssSampler reads the replicas' resident set sizes, and the size of a
// SQLite database's WAL file, every interval.
type rssSampler struct {
	servers []*child
	wal     string // the WAL file; "" on PostgreSQL
	done    chan struct{}
	mu      sync.Mutex
	max     float64
	maxWAL  float64
	gone    int // a replica's memory could not be read: it had exited
}

func startRSSSampler(servers []*child, databaseURL string, every time.Duration) *rssSampler {
	s := &rssSampler{servers: servers, done: make(chan struct{})}
	if path, ok := store.SQLiteFile(databaseURL); ok {
		s.wal = path + "-wal"
	}
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-s.done:
				return
			case <-tick.C:
				s.current()
			}
		}
	}()
	return s
}

// current is the largest replica's RSS now, in MiB; it counts towards max,
// and the WAL's size towards maxWAL.
func (s *rssSampler) current() float64 {
	var most, wal float64
	gone := 0
	for _, c := range s.servers {
		kib := residentKiB(c.cmd.Process.Pid, "VmRSS:")
		if kib == 0 {
			gone++
		}
		most = max(most, float64(kib)/1024)
	}
	if fi, err := os.Stat(s.wal); s.wal != "" && err == nil {
		wal = float64(fi.Size()) / (1 << 20)
	}
	s.mu.Lock()
	s.max, s.maxWAL, s.gone = max(s.max, most), max(s.maxWAL, wal), max(s.gone, gone)
	s.mu.Unlock()
	return most
}

// lost says whether a replica exited during the run: its memory would
// read as none.
func (s *rssSampler) lost() error {
	s.current()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone > 0 {
		return fmt.Errorf("%d of %d servers exited during the run", s.gone, len(s.servers))
	}
	return nil
}

// stop ends the sampling and reports the most RSS and WAL seen, in MiB.
func (s *rssSampler) stop() (rss, wal float64) {
	close(s.done)
	s.current()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.max, s.maxWAL
}

// residentKiB reads one memory line (VmRSS:, VmHWM:) of a process's status
// (Linux); 0 when it cannot.
func residentKiB(pid int, field string) int {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	return 0
}

func printSoak(cfg SoakConfig, r *SoakReport) {
	w := cfg.Out
	if w == nil {
		return
	}
	if cfg.JSON {
		_ = json.NewEncoder(w).Encode(r)
		return
	}
	drained := "not within " + cfg.Drain.String()
	switch {
	case r.Receiver != ReceiverFast:
		drained = "— (the receiver never accepts a delivery)"
	case r.Drained >= 0:
		drained = "in " + r.Drained.Round(100*time.Millisecond).String()
	}
	fmt.Fprintf(w, "soak: %d replica(s), %s receiver, %d connections for %s\n\n", r.Replicas, r.Receiver, cfg.Concurrency, cfg.Duration)
	fmt.Fprintln(w, "| figure | value |")
	fmt.Fprintln(w, "|---|---|")
	fmt.Fprintf(w, "| requests (errors) | %d (%d), %.0f req/s |\n", r.Requests, r.Errors, r.Throughput)
	fmt.Fprintf(w, "| leads created | %d |\n", r.LeadsCreated)
	fmt.Fprintf(w, "| deliveries received | %d |\n", r.Deliveries)
	fmt.Fprintf(w, "| distinct webhook ids | %d |\n", r.DistinctIDs)
	fmt.Fprintf(w, "| duplicates | %.3f %% |\n", 100*r.Duplicates())
	fmt.Fprintf(w, "| deliveries per second, first receipt to last | %.0f |\n", r.DeliveryRate)
	fmt.Fprintf(w, "| commit to receipt, p50 / p99 | %s / %s |\n", ms(r.ReceiptP50), ms(r.ReceiptP99))
	fmt.Fprintf(w, "| server RSS, start → end of load (largest replica) | %.0f → %.0f MiB |\n", r.RSSStart, r.RSSEnd)
	fmt.Fprintf(w, "| server RSS, most at any sample | %.0f MiB |\n", r.RSSMax)
	fmt.Fprintf(w, "| server RSS %s after the load | %.0f MiB |\n", cfg.Settle, r.RSSAfter)
	if r.WALMax > 0 {
		fmt.Fprintf(w, "| SQLite WAL file, most at any sample | %.0f MiB |\n", r.WALMax)
	}
	fmt.Fprintf(w, "| queue empty after the load | %s |\n", drained)
	fmt.Fprintf(w, "| request p99, first third → last | %s → %s |\n", ms(r.P99First), ms(r.P99Last))
}
