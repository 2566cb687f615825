package webhooks

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Config tunes delivery; DefaultConfig is exactly SPEC 6.4 and 8.
type Config struct {
	// Schedule[i] is the delay before attempt i+1; its length is the number
	// of attempts before the dead-letter queue.
	Schedule []time.Duration
	// Timeout is how long a receiver has to answer.
	Timeout time.Duration
	// PauseAfter consecutive failed attempts pause a subscription.
	PauseAfter int
	// MaxRetryAfter caps how long a receiver's Retry-After may defer a retry.
	MaxRetryAfter time.Duration
	// Poll is how often the worker looks for work it was not woken for
	// (events committed by another replica, retries falling due).
	Poll time.Duration
	// Concurrency is how many deliveries are in flight at once. A
	// delivery holds its place from its claim until its outcome is
	// committed (see pipeline), so a worker delivers at most Concurrency
	// per claim-send-record cycle: 32 places over PostgreSQL's cycle of
	// 60-120 ms under a write load delivered 250 a second while 420 leads
	// a second were created, and fell behind; 128 kept up.
	Concurrency int
	// AllowPrivate lets deliveries reach loopback and private addresses;
	// AllowHTTP lets subscriptions use plain http. For development and tests.
	AllowPrivate, AllowHTTP bool
}

// The settings that turn on AllowPrivate and AllowHTTP. They are named
// here, beside the check they lift, so that a refused URL can tell a
// developer which setting would allow it.
const (
	SettingAllowPrivate = "SVC_WEBHOOK_ALLOW_PRIVATE"
	SettingAllowHTTP    = "SVC_WEBHOOK_ALLOW_HTTP"
)

// DefaultConfig is the SPEC's: immediate, 1 m, 5 m, 30 m, 1 h; 10 s; 50.
func DefaultConfig() Config {
	return Config{
		Schedule:      []time.Duration{0, time.Minute, 5 * time.Minute, 30 * time.Minute, time.Hour},
		Timeout:       10 * time.Second,
		PauseAfter:    50,
		MaxRetryAfter: time.Hour,
		Poll:          time.Second,
		Concurrency:   128,
	}
}

// ParseSchedule reads a schedule such as "0s,1m,5m,30m,1h".
func ParseSchedule(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, part := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(part))
		if err != nil || d < 0 {
			return nil, fmt.Errorf("retry schedule %q: %q is not a duration", s, part)
		}
		out = append(out, d)
	}
	return out, nil
}

// nextDelay is the wait before the next attempt after attempts failures,
// and whether there is one (false: dead-letter). A Retry-After on 429/503
// is honoured when later than the schedule, up to MaxRetryAfter.
func (c Config) nextDelay(attempts int, resp *http.Response, now time.Time) (time.Duration, bool) {
	if attempts >= len(c.Schedule) {
		return 0, false
	}
	d := c.Schedule[attempts]
	if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		if ra, ok := retryAfter(resp.Header.Get("Retry-After"), now); ok && ra > d {
			d = min(ra, c.MaxRetryAfter)
		}
	}
	return d, true
}

// retryAfter reads delay-seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// RetryDelay is the wait before the next try of something that has failed
// attempts times on this schedule, and whether there is one. Automation
// runs retry on it too.
func (c Config) RetryDelay(attempts int) (time.Duration, bool) {
	return c.nextDelay(attempts, nil, time.Time{})
}
