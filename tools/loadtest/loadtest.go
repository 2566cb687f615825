// Package loadtest is the project's load runner (svc loadtest). It seeds a
// database, starts the real server and a baseline as child processes, drives
// a mix of endpoints over loopback HTTP with vegeta at a fixed concurrency
// (or rate) for a fixed time, and reports throughput, latency quantiles,
// errors, the ratio to the baseline and the server's peak RSS.
//
// It is a client of the server over HTTP: it imports the store, the seeder
// (seed), the reports it checks the seeded book with (analytics) and the
// leaves, never rest or graph.
package loadtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Config says what to run.
type Config struct {
	Exe         string // the svc binary, started as `svc serve` and `svc baseline`
	DatabaseURL string
	Leads       int // leads of the load organization; seeded when it has none
	Agents      int
	Duration    time.Duration // per scenario
	Warmup      time.Duration // per scenario, before Duration, not measured
	Concurrency int           // connections and workers
	// Replicas is how many `svc serve` processes share the database
	// (PostgreSQL for more than one); requests go to them in turn.
	Replicas  int
	Rate      int      // requests per second per scenario; 0: as fast as the workers go
	Scenarios []string // names to run; empty: all
	AbuseRate int      // abusive requests per second of an abuse run; 0: as fast as they go
	// LendingVia says how the lending list scenarios ask: ViaREST (the
	// default: the REST lists they are named by) or ViaGraphQL (the
	// GraphQL fields behind them).
	LendingVia string
	Out        io.Writer
}

// How the lending list scenarios ask.
const (
	ViaGraphQL = "graphql"
	ViaREST    = "rest"
)

// Result is one scenario's figures.
type Result struct {
	Name           string
	Requests       uint64
	Throughput     float64 // successful requests per second
	P50, P90, P99  time.Duration
	Errors         int
	BaselineRatio  float64 // throughput / the baseline's (0 when not measured)
	BaselineP99X   float64 // p99 / the baseline's p99
	FirstErrorText string
}

// Report is a whole run.
type Report struct {
	Results     []Result
	StartupTime time.Duration // server start to /readyz answering 200
	PeakRSSKiB  int           // the server's VmHWM after the run
	Leads       int
}

// Run seeds, starts the processes, runs the scenarios and prints a table.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 8
	}
	fx, servers, err := prepareAndServe(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer stopAll(servers)
	server := servers[0]
	baseline, err := startChild(ctx, cfg, "baseline")
	if err != nil {
		return nil, err
	}
	defer baseline.stop()

	rep := &Report{StartupTime: server.startup, Leads: fx.leadCount}
	var base *Result
	urls := make([]string, len(servers))
	for i, s := range servers {
		urls[i] = s.url
	}
	all := scenarios(fx, urls, baseline.url, cfg.LendingVia)
	for _, name := range cfg.Scenarios {
		if !slices.ContainsFunc(all, func(sc scenario) bool { return sc.name == name }) {
			return nil, fmt.Errorf("no scenario %q (the lending ones need a lending book: svc seed --lending)", name)
		}
	}
	for _, sc := range all {
		if !wanted(cfg.Scenarios, sc.name) {
			continue
		}
		res := attack(cfg, sc)
		if sc.name == "baseline" {
			base = &res
		}
		if base != nil && sc.compare && base.Throughput > 0 {
			res.BaselineRatio = res.Throughput / base.Throughput
			res.BaselineP99X = float64(res.P99) / float64(max(base.P99, 1))
		}
		rep.Results = append(rep.Results, res)
	}
	for _, s := range servers {
		rep.PeakRSSKiB = max(rep.PeakRSSKiB, peakRSS(s.cmd.Process.Pid))
	}
	printReport(cfg, rep)
	return rep, nil
}

func wanted(names []string, name string) bool {
	return len(names) == 0 || slices.Contains(names, name)
}

// attack runs one scenario with vegeta and summarises it.
func attack(cfg Config, sc scenario) Result {
	workers := uint64(cfg.Concurrency)
	attacker := func() *vegeta.Attacker {
		return vegeta.NewAttacker(vegeta.Workers(workers), vegeta.MaxWorkers(workers), vegeta.Connections(cfg.Concurrency),
			vegeta.MaxConnections(cfg.Concurrency), vegeta.KeepAlive(true), vegeta.Timeout(10*time.Second), vegeta.HTTP2(false))
	}
	pacer := vegeta.ConstantPacer{Freq: cfg.Rate, Per: time.Second}
	// A warm-up at the same pacing first (an attacker runs one attack): the
	// server's database connections fill their page caches, so the figures
	// are its steady state rather than its first second.
	if cfg.Warmup > 0 {
		for range attacker().Attack(sc.targeter, pacer, cfg.Warmup, sc.name+" warm-up") {
		}
	}
	var (
		m         vegeta.Metrics
		gqlErrors int
		gqlFirst  string
	)
	for res := range attacker().Attack(sc.targeter, pacer, cfg.Duration, sc.name) {
		// GraphQL answers an error with 200 and an errors member.
		if sc.graphql && res.Code == http.StatusOK && bytes.Contains(res.Body, []byte(`"errors":`)) {
			if gqlErrors++; gqlFirst == "" {
				gqlFirst = string(res.Body[:min(len(res.Body), 300)])
			}
		}
		m.Add(res)
	}
	m.Close()
	name := sc.name
	if sc.graphql {
		name += " (GraphQL)"
	}
	r := Result{Name: name, Requests: m.Requests, Throughput: m.Throughput,
		P50: m.Latencies.P50, P90: m.Latencies.P90, P99: m.Latencies.P99, Errors: gqlErrors, FirstErrorText: gqlFirst}
	for code, n := range m.StatusCodes {
		if c, _ := strconv.Atoi(code); c < 200 || c > 299 {
			r.Errors += n
		}
	}
	if len(m.Errors) > 0 {
		r.FirstErrorText = m.Errors[0]
	}
	return r
}

// prepareAndServe prepares the load organization and starts cfg.Replicas
// `svc serve` processes over it (at least one).
func prepareAndServe(ctx context.Context, cfg Config) (*fixtures, []*child, error) {
	fx, err := prepare(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	var servers []*child
	for range max(cfg.Replicas, 1) {
		server, err := startChild(ctx, cfg, "serve")
		if err != nil {
			stopAll(servers)
			return nil, nil, err
		}
		servers = append(servers, server)
	}
	return fx, servers, nil
}

func stopAll(children []*child) {
	for _, c := range children {
		c.stop()
	}
}

// child is a started svc process.
type child struct {
	cmd     *exec.Cmd
	url     string
	startup time.Duration
}

func startChild(ctx context.Context, cfg Config, command string, env ...string) (*child, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, cfg.Exe, command)
	cmd.Env = append(os.Environ(), "SVC_ADDR="+addr, "SVC_DATABASE_URL="+cfg.DatabaseURL,
		"SVC_RATE_LIMIT=1000000000", "SVC_LOG_LEVEL=WARN")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	started := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting svc %s: %w", command, err)
	}
	c := &child{cmd: cmd, url: "http://" + addr}
	if err := waitReady(ctx, c.url+"/readyz"); err != nil {
		c.stop()
		return nil, fmt.Errorf("svc %s did not become ready: %w", command, err)
	}
	c.startup = time.Since(started)
	return c, nil
}

func (c *child) stop() {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func waitReady(ctx context.Context, url string) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return errors.New("timed out")
}

// peakRSS reads a process's peak resident set size (Linux).
func peakRSS(pid int) int { return residentKiB(pid, "VmHWM:") }

func printReport(cfg Config, rep *Report) {
	w := cfg.Out
	if w == nil {
		return
	}
	mode := fmt.Sprintf("%d connections, as fast as they go", cfg.Concurrency)
	if cfg.Rate > 0 {
		mode = fmt.Sprintf("%d connections at %d req/s", cfg.Concurrency, cfg.Rate)
	}
	servers := ""
	if cfg.Replicas > 1 {
		servers = fmt.Sprintf("%d servers in turn; ", cfg.Replicas)
	}
	fmt.Fprintf(w, "%d leads; %s%s; %s per scenario after a %s warm-up\n\n", rep.Leads, servers, mode, cfg.Duration, cfg.Warmup)
	fmt.Fprintln(w, "| scenario | requests | req/s | p50 | p90 | p99 | errors | vs baseline (req/s, p99) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, r := range rep.Results {
		ratio := ""
		if r.BaselineRatio > 0 {
			ratio = fmt.Sprintf("%.0f%%, %.1f×", 100*r.BaselineRatio, r.BaselineP99X)
		}
		fmt.Fprintf(w, "| %s | %d | %.0f | %s | %s | %s | %d | %s |\n", r.Name, r.Requests, r.Throughput,
			ms(r.P50), ms(r.P90), ms(r.P99), r.Errors, ratio)
		if r.FirstErrorText != "" {
			fmt.Fprintf(w, "|   first error: %s |\n", r.FirstErrorText)
		}
	}
	fmt.Fprintf(w, "\nserver startup %s; peak RSS of the largest server %.1f MiB\n", rep.StartupTime.Round(time.Millisecond), float64(rep.PeakRSSKiB)/1024)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
