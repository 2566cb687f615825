package console_test

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// layoutShift is the page's cumulative layout shift so far (shifts not
// caused by input), with the elements that moved.
const layoutShift = `new Promise((resolve) => {
  const seen = { total: 0, moved: [] };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.hadRecentInput) continue;
      seen.total += e.value;
      for (const s of e.sources || []) {
        const n = s.node;
        seen.moved.push(n ? (n.id ? '#' + n.id : n.nodeName + '.' + (n.className || '')) : '?');
      }
    }
  }).observe({ type: 'layout-shift', buffered: true });
  setTimeout(() => resolve(seen), 300);
})`

type shifts struct {
	Total float64  `json:"total"`
	Moved []string `json:"moved"`
}

// A signed-in reader reopening the console sees the board without the
// page jumping: the shell keeps room for what sign-in reveals.
func TestSignedInConsoleDoesNotShift(t *testing.T) {
	env := serve(t)
	seedLeads(t, env, 200)
	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	run(t, ctx, chromedp.Reload())
	waitBoard(t, ctx)
	waitFor(t, ctx, `document.querySelector('.card') !== null`)
	if got := eval[shifts](t, ctx, layoutShift); got.Total > 0.01 {
		t.Errorf("opening the board signed in shifted the layout by %.3f (moved: %v)", got.Total, got.Moved)
	}
}
