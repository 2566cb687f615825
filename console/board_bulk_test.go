package console_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The column headers show each stage's count and requested sum under the
// board's filters; in select mode two cards, checked from the keyboard and
// with the mouse, move at once from the bar, and the totals follow.
func TestBoardTotalsAndBulkMove(t *testing.T) {
	env := serve(t)
	stages := env.Stages(env.Org.ID)
	first := newLead(t, env, map[string]any{"businessName": "Bulk Bakery", "requestedAmount": "1000000.5", "priority": "high"})
	second := newLead(t, env, map[string]any{"businessName": "Bulk Brewery", "requestedAmount": "234567"})
	newLead(t, env, map[string]any{"businessName": "Stays Diner", "requestedAmount": "3000"})
	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	waitBoard(t, ctx)
	column := func(i int, part string) string {
		return `document.querySelector('.board-column[data-stage="` + stages[i].ID.String() + `"] .` + part + `').textContent`
	}
	waitFor(t, ctx, column(0, "board-count")+` === '3' && `+column(0, "board-sum")+` === '$1,237,567.50'`)
	waitFor(t, ctx, column(2, "board-count")+` === '0' && `+column(2, "board-sum")+` === '$0.00'`)

	// The totals follow the filters: high priority alone.
	run(t, ctx, evalVoid(`(() => { const s = document.querySelector('.board-filters select[name="priority"]'); s.value = 'high'; s.dispatchEvent(new Event('change')); })()`))
	waitFor(t, ctx, column(0, "board-count")+` === '1' && `+column(0, "board-sum")+` === '$1,000,000.50'`)
	run(t, ctx, evalVoid(`(() => { const s = document.querySelector('.board-filters select[name="priority"]'); s.value = ''; s.dispatchEvent(new Event('change')); })()`))
	waitFor(t, ctx, column(0, "board-count")+` === '3' && document.querySelectorAll('.card').length === 3`)

	// Select mode: checkboxes show, the bar with them; axe finds nothing.
	card := func(id string) string { return `document.querySelector('.card[data-id="` + id + `"]')` }
	if eval[bool](t, ctx, card(first)+`.querySelector('.card-select').getClientRects().length > 0`) {
		t.Errorf("a card shows its checkbox outside select mode")
	}
	run(t, ctx, evalVoid(`[...document.querySelectorAll('.screen-head button')].find(b => b.textContent === 'Select').click()`))
	waitFor(t, ctx, `!document.querySelector('.bulk-bar').hidden && `+card(first)+`.querySelector('.card-select').getClientRects().length > 0`)
	checkA11y(t, ctx)

	// One checkbox from the keyboard (Space), one with the mouse.
	run(t, ctx, evalVoid(card(first)+`.querySelector('.card-select').focus()`), chromedp.KeyEvent(" "))
	waitFor(t, ctx, card(first)+`.querySelector('.card-select').checked`)
	run(t, ctx, chromedp.Click(chromedp.CSS(`.card[data-id="`+second+`"] .card-select`)))
	waitFor(t, ctx, `document.querySelector('.bulk-count').textContent === '2 leads selected'`)
	shot(t, ctx, "board-select")

	// Move both to the third stage from the bar.
	run(t, ctx, evalVoid(`document.querySelector('select[name="bulkStage"]').value = '`+stages[2].ID.String()+`'`),
		evalVoid(`[...document.querySelectorAll('.bulk-bar button')].find(b => b.textContent === 'Move').focus()`), chromedp.KeyEvent(kb.Enter))
	inThird := func(id string) string {
		return `document.querySelector('.board-list[data-stage="` + stages[2].ID.String() + `"] .card[data-id="` + id + `"]') !== null`
	}
	waitFor(t, ctx, inThird(first)+` && `+inThird(second))
	waitFor(t, ctx, column(2, "board-count")+` === '2' && `+column(2, "board-sum")+` === '$1,234,567.50'`)
	waitFor(t, ctx, column(0, "board-count")+` === '1' && `+column(0, "board-sum")+` === '$3,000.00'`)
	for _, id := range []string{first, second} {
		if got := leadStage(t, env, id); got != stages[2].ID.String() {
			t.Errorf("lead %s is at %s, want %s", id, got, stages[2].ID)
		}
	}
	if eval[bool](t, ctx, `[...document.querySelectorAll('.card-select')].some(c => c.checked)`) {
		t.Errorf("the selection outlived the bulk change")
	}
}
