package webhooks

import (
	"net/http"
	"testing"
)

// A batch's outcomes count towards a subscription's run of failures in the
// order they came: a success restarts the run, failures after it count
// from zero, and a 410 before the last success is forgotten with the run.
func TestFailureRunFollowsOrder(t *testing.T) {
	status := func(code int) outcome { return outcome{status: &code} }
	refused := outcome{}
	for _, tc := range []struct {
		name     string
		outcomes []outcome
		want     failureRun
	}{
		{"failures alone add to the run", []outcome{status(500), refused}, failureRun{failures: 2}},
		{"a success last restarts it", []outcome{status(500), status(200)}, failureRun{restart: true}},
		{"failures after a success count from it", []outcome{status(500), status(204), status(503)}, failureRun{restart: true, failures: 1}},
		{"a 410 after the last success pauses", []outcome{status(200), status(http.StatusGone)}, failureRun{restart: true, failures: 1, gone: true}},
		{"a 410 before it is forgotten", []outcome{status(http.StatusGone), status(200), refused}, failureRun{restart: true, failures: 1}},
	} {
		var run failureRun
		for _, o := range tc.outcomes {
			if o.ok() {
				run.succeeded()
			} else {
				run.failed(o)
			}
		}
		if run != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, run, tc.want)
		}
	}
}
