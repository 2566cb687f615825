package console_test

import (
	"testing"
)

// app/ui.js in the browser: money from its digits, dates, text never
// parsed as HTML, labelled fields, and the pager over both list styles.
func TestUIHelpers(t *testing.T) {
	env := serve(t)
	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	cases := map[string]string{
		`ui.money('1234567.5')`:                  "$1,234,567.50",
		`ui.money('-0.125')`:                     "-$0.125",
		`ui.money('12', 'EUR')`:                  "€12.00",
		`ui.money('12', 'CAD')`:                  "CA$12.00",
		`ui.money('12', '')`:                     "12.00",
		`ui.money('90071992547409931.99')`:       "$90,071,992,547,409,931.99",
		`ui.count(18673)`:                        "18,673",
		`ui.count('1000000')`:                    "1,000,000",
		`ui.compactMoney(400000000)`:             "$400M",
		`ui.money('1e3')`:                        "1e3",
		`ui.money(null)`:                         "—",
		`ui.date('2026-11-27').includes('2026')`: "true",
		`ui.date('not a time')`:                  "not a time",
		`ui.h('p', {title: '"x'}, '<img src=x onerror=alert(1)>').outerHTML`: `<p title="&quot;x">&lt;img src=x onerror=alert(1)&gt;</p>`,
		`(() => { const f = ui.formField('Name', ui.h('input')); return f.querySelector('label').htmlFor === f.querySelector('input').id && f.querySelector('input').id !== '' })()`: "true",
		`(() => { ui.showError(new api.ApiError({message: 'Boom', code: 'X', requestId: 'r-1'})); return document.getElementById('errors').textContent })()`:                         "Boom (X) Request id: r-1 Dismiss",
	}
	for expr, want := range cases {
		got := eval[string](t, ctx, `Promise.all([import('/console/app/ui.js'), import('/console/app/api.js')]).then(([ui, api]) => String(`+expr+`))`)
		if got != want {
			t.Errorf("%s = %q, want %q", expr, got, want)
		}
	}

	// Both pager styles walk forward and back over 45 items, 20 a page.
	for _, style := range []string{"page", "connection"} {
		run(t, ctx, evalVoid(`import('/console/app/ui.js').then((ui) => {
			const items = Array.from({length: 45}, (_, i) => ({n: i + 1}));
			const load = '`+style+`' === 'page'
				? async ({page, limit}) => ({nodes: items.slice((page - 1) * limit, page * limit), total: items.length, page, limit, hasMore: page * limit < items.length})
				: async ({first, after}) => {
					const start = after === null ? 0 : Number(after);
					const edges = items.slice(start, start + first).map((node) => ({node}));
					return {edges, pageInfo: {hasNextPage: start + first < items.length, endCursor: String(start + first)}, totalCount: items.length};
				};
			const p = ui.pager({load, style: '`+style+`', columns: [{label: 'N', render: (x) => String(x.n)}], caption: 'Numbers'});
			p.element.id = 'pager-under-test';
			document.querySelector('main').replaceChildren(p.element);
		})`))
		firstCell := `document.querySelector('#pager-under-test tbody td')?.textContent`
		waitFor(t, ctx, firstCell+` === '1'`)
		next := `document.querySelector('#pager-under-test .pager-nav button:last-child')`
		prev := `document.querySelector('#pager-under-test .pager-nav button:first-child')`
		run(t, ctx, evalVoid(next+`.click()`))
		waitFor(t, ctx, firstCell+` === '21'`)
		run(t, ctx, evalVoid(next+`.click()`))
		waitFor(t, ctx, firstCell+` === '41' && `+next+`.disabled`)
		run(t, ctx, evalVoid(prev+`.click()`))
		waitFor(t, ctx, firstCell+` === '21'`)
	}

	// A redraw waits while an action form inside is open, and the newest
	// one runs once the form closes.
	run(t, ctx, evalVoid(`import('/console/app/ui.js').then((ui) => {
		const box = ui.h('div', {id: 'draw-under-test'}, ui.actionForm('Act', 'Acting failed.', [], 'Go', async () => {}));
		document.querySelector('main').replaceChildren(box);
		box.querySelector('details').open = true;
		const draw = (text) => () => box.replaceChildren(ui.h('p', {}, text));
		ui.drawWhenNoFormOpen(box, draw('older'));
		ui.drawWhenNoFormOpen(box, draw('newer'));
	})`))
	if got := eval[bool](t, ctx, `document.querySelector('#draw-under-test details[open]') !== null`); !got {
		t.Error("a redraw threw away the open form")
	}
	run(t, ctx, evalVoid(`document.querySelector('#draw-under-test details').open = false`))
	waitFor(t, ctx, `document.querySelector('#draw-under-test')?.textContent === 'newer'`)
	run(t, ctx, evalVoid(`import('/console/app/ui.js').then((ui) => ui.drawWhenNoFormOpen(document.querySelector('#draw-under-test'),
		() => document.querySelector('#draw-under-test').replaceChildren('at once')))`))
	waitFor(t, ctx, `document.querySelector('#draw-under-test')?.textContent === 'at once'`)

	// The pagers replaced the screen; the accessibility check at the end
	// reads a real one.
	openScreen(t, ctx, "/lenders", "Lenders")
}
