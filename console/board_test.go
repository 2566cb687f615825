package console_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/seed"
)

// seedLeads bulk-loads n leads, spread over the pipeline's stages.
func seedLeads(t *testing.T, env *resttest.Env, n int) {
	t.Helper()
	if err := seed.Leads(viewer.WithBulkLoad(context.Background()), env.DB, env.Org.ID, n, nil); err != nil {
		t.Fatalf("seeding %d leads: %v", n, err)
	}
}

// groupedCount is a count written with thousands separators.
var groupedCount = regexp.MustCompile(`^\d{1,3}(,\d{3})*$`)

// On a phone the header keeps to one line, the board shows one stage at a
// time behind an ARIA tablist, and the first card shows on the first
// screen.
func TestBoardOnPhone(t *testing.T) {
	env := serve(t)
	seedLeads(t, env, 2000)
	stages := env.Stages(env.Org.ID)
	ctx := newBrowser(t)
	phone(t, ctx)
	signIn(t, ctx, env, env.Key)
	waitBoard(t, ctx)
	waitFor(t, ctx, `document.querySelector('.card') !== null`)
	shot(t, ctx, "board-phone")

	if w := eval[float64](t, ctx, `innerWidth`); w != 390 {
		t.Fatalf("the viewport is %v wide, want 390", w)
	}
	if h := eval[float64](t, ctx, `document.querySelector('header.top').getBoundingClientRect().height`); h >= 80 {
		t.Errorf("the header is %v px tall at 390 px", h)
	}
	if h := eval[float64](t, ctx, `document.getElementById('org-name').getBoundingClientRect().height`); h > 30 {
		t.Errorf("the organization's name takes %v px: it wraps", h)
	}
	if top := eval[float64](t, ctx, `document.querySelector('.card').getBoundingClientRect().top`); top >= 844 {
		t.Errorf("the first card's top is at %v px, below the first screen", top)
	}
	if h := eval[float64](t, ctx, `document.documentElement.scrollHeight`); h >= 3000 {
		t.Errorf("the board is %v px tall at 390 px", h)
	}

	// One tab a stage, named by the stage and its count; one panel shows.
	tabs := `[...document.querySelectorAll('[role="tablist"] [role="tab"]')]`
	if n := eval[float64](t, ctx, tabs+`.length`); int(n) != len(stages) {
		t.Fatalf("%v tabs, want %d", n, len(stages))
	}
	waitFor(t, ctx, tabs+`.every(t => /\d/.test(t.textContent))`)
	names := eval[[]string](t, ctx, tabs+`.map(t => t.textContent)`)
	for i, s := range stages {
		if !strings.HasPrefix(names[i], s.StageLabel) {
			t.Errorf("tab %d reads %q, want the stage %q and its count", i, names[i], s.StageLabel)
		}
		if c := strings.TrimSpace(strings.TrimPrefix(names[i], s.StageLabel)); !groupedCount.MatchString(c) {
			t.Errorf("tab %d counts %q", i, c)
		}
	}
	visible := `[...document.querySelectorAll('.board-column')].filter(c => c.getClientRects().length > 0)`
	if n := eval[float64](t, ctx, visible+`.length`); n != 1 {
		t.Errorf("%v columns show at once on a phone, want 1", n)
	}
	panel := `document.querySelector('[role="tabpanel"]:not([hidden])')`
	if ok := eval[bool](t, ctx, panel+`?.getAttribute('aria-labelledby') === `+tabs+`[0].id && `+tabs+`[0].getAttribute('aria-selected') === 'true'`); !ok {
		t.Errorf("the first tab does not label the panel that shows")
	}

	// The arrow keys move between tabs, and the panel follows.
	run(t, ctx, evalVoid(tabs+`[0].focus()`), chromedp.KeyEvent(kb.ArrowRight))
	waitFor(t, ctx, `document.activeElement === `+tabs+`[1] && `+tabs+`[1].getAttribute('aria-selected') === 'true'`)
	waitFor(t, ctx, panel+`?.dataset.stage === '`+stages[1].ID.String()+`'`)
	run(t, ctx, chromedp.KeyEvent(kb.ArrowLeft))
	waitFor(t, ctx, `document.activeElement === `+tabs+`[0] && `+panel+`?.dataset.stage === '`+stages[0].ID.String()+`'`)
}

// At 1280x800 every column fits without scrolling sideways, cards are
// compact, counts carry thousands separators and amounts their sign, and
// the "Move…" menu moves a card from the keyboard.
func TestBoardFitsDesktop(t *testing.T) {
	env := serve(t)
	seedLeads(t, env, 8000) // over a thousand a stage
	stages := env.Stages(env.Org.ID)
	id := newLead(t, env, map[string]any{"businessName": "Menu Moved Bakery", "requestedAmount": "1234567.5"})
	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	waitBoard(t, ctx)
	card := `document.querySelector('.card[data-id="` + id + `"]')`
	waitFor(t, ctx, card+` !== null`)

	if n := eval[float64](t, ctx, `document.querySelectorAll('.board-column').length`); int(n) != len(stages) {
		t.Fatalf("%v columns, want %d", n, len(stages))
	}
	if right := eval[float64](t, ctx, `Math.max(...[...document.querySelectorAll('.board-column')].map(c => c.getBoundingClientRect().right))`); right > 1280 {
		t.Errorf("the last column ends at %v px, past 1280", right)
	}
	if over := eval[bool](t, ctx, `document.documentElement.scrollWidth > innerWidth || document.querySelector('.board').scrollWidth > document.querySelector('.board').clientWidth`); over {
		t.Errorf("the board scrolls sideways at 1280 px")
	}
	if h := eval[float64](t, ctx, `Math.max(...[...document.querySelectorAll('.card')].map(c => c.getBoundingClientRect().height))`); h > 90 {
		t.Errorf("the tallest card is %v px tall: %s", h, eval[string](t, ctx, `(() => { const c = [...document.querySelectorAll('.card')].sort((a, b) => b.offsetHeight - a.offsetHeight)[0]; return c.offsetWidth + ' ' + [...c.children].map(e => e.className + ':' + e.offsetHeight).join(' ') })()`))
	}
	counts := eval[[]string](t, ctx, `[...document.querySelectorAll('.board-column .board-count')].map(c => c.textContent)`)
	grouped := false
	for _, c := range counts {
		if !groupedCount.MatchString(c) {
			t.Errorf("a column counts %q", c)
		}
		grouped = grouped || strings.Contains(c, ",")
	}
	if !grouped {
		t.Errorf("no count of %v is written with a thousands separator", counts)
	}
	if got := eval[string](t, ctx, card+`.textContent`); !strings.Contains(got, "$1,234,567.50") {
		t.Errorf("the card reads %q, want its amount as $1,234,567.50", got)
	}

	// The keyboard way: "Move…" opens a menu of the other stages.
	button := card + `.querySelector('button.move')`
	run(t, ctx, evalVoid(button+`.focus()`), chromedp.KeyEvent(kb.Enter))
	waitFor(t, ctx, button+`.getAttribute('aria-expanded') === 'true' && document.activeElement.getAttribute('role') === 'menuitem'`)
	if label := eval[string](t, ctx, button+`.getAttribute('aria-label')`); !strings.Contains(label, "Menu Moved Bakery") {
		t.Errorf("the move button is labelled %q", label)
	}
	run(t, ctx, chromedp.KeyEvent(kb.ArrowDown)) // the menu lists the other stages: the second is the third stage
	waitFor(t, ctx, `document.activeElement.textContent === '`+stages[2].StageLabel+`'`)
	run(t, ctx, chromedp.KeyEvent(kb.Enter))
	moved := `document.querySelector('.board-list[data-stage="` + stages[2].ID.String() + `"] .card[data-id="` + id + `"]')`
	waitFor(t, ctx, moved+` !== null && !`+moved+`.hasAttribute('aria-busy')`)
	if got := leadStage(t, env, id); got != stages[2].ID.String() {
		t.Errorf("the menu left the lead at %q, want %s", got, stages[2].ID)
	}
	// Escape closes the menu and gives the focus back.
	movedButton := moved + `.querySelector('button.move')`
	run(t, ctx, evalVoid(movedButton+`.click()`))
	waitFor(t, ctx, `document.activeElement.getAttribute('role') === 'menuitem'`)
	run(t, ctx, chromedp.KeyEvent(kb.Escape))
	waitFor(t, ctx, `document.activeElement === `+movedButton+` && `+movedButton+`.getAttribute('aria-expanded') === 'false'`)
}

// A move made elsewhere (over REST, or in another tab over GraphQL) shows
// on an open board without a reload: the card changes column and both
// counts follow.
func TestBoardFollowsMovesElsewhere(t *testing.T) {
	env := serve(t)
	stages := env.Stages(env.Org.ID)
	id := newLead(t, env, map[string]any{"businessName": "Moved Elsewhere Ltd"})
	newLead(t, env, map[string]any{"businessName": "Stays Put LLC"})
	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	waitBoard(t, ctx)
	count := func(i int) string {
		return `document.querySelector('.board-column[data-stage="` + stages[i].ID.String() + `"] .board-count').textContent`
	}
	waitFor(t, ctx, count(0)+` === '2' && `+count(3)+` === '0'`)

	r := env.Post("/v1/leads/"+id+"/stage", env.Key, map[string]any{"stageId": stages[3].ID})
	if r.Status != http.StatusOK {
		t.Fatalf("moving over REST: %d %s", r.Status, r.Raw)
	}
	waitFor(t, ctx, `document.querySelector('.board-list[data-stage="`+stages[3].ID.String()+`"] .card[data-id="`+id+`"]') !== null`)
	waitFor(t, ctx, count(0)+` === '1' && `+count(3)+` === '1'`)
	if n := eval[float64](t, ctx, `document.querySelectorAll('.card[data-id="`+id+`"]').length`); n != 1 {
		t.Errorf("the moved lead shows %v times", n)
	}

	// A move in another tab (over GraphQL) shows here too.
	other := newBrowser(t)
	signIn(t, other, env, env.Key)
	waitBoard(t, other)
	card := `.board-list[data-stage="` + stages[3].ID.String() + `"] .card[data-id="` + id + `"]`
	run(t, other, chromedp.Click(chromedp.CSS(card+` button.move`)),
		chromedp.Click(chromedp.CSS(card+` [role="menuitem"][data-stage="`+stages[1].ID.String()+`"]`)))
	waitFor(t, ctx, `document.querySelector('.board-list[data-stage="`+stages[1].ID.String()+`"] .card[data-id="`+id+`"]') !== null`)
	waitFor(t, ctx, count(1)+` === '1' && `+count(3)+` === '0'`)

	// A lead created elsewhere joins its column.
	fresh := newLead(t, env, map[string]any{"businessName": "Created Elsewhere Co"})
	waitFor(t, ctx, `document.querySelector('.board-list[data-stage="`+stages[0].ID.String()+`"] .card[data-id="`+fresh+`"]') !== null && `+count(0)+` === '2'`)
}
