package console_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The keyboard reaches every screen: "/" focuses the search, "g" then a
// letter goes to a screen, "n" opens the new-lead form, "?" lists the
// shortcuts in a dialog Escape closes, and typing in a field is left alone.
func TestKeyboardShortcuts(t *testing.T) {
	env := serve(t)
	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	// The shell focuses main once the board is drawn.
	waitFor(t, ctx, `document.querySelector('main input[type=search]') && document.activeElement?.id === 'main'`)

	run(t, ctx, chromedp.KeyEvent("/"))
	waitFor(t, ctx, `document.activeElement?.matches('main input[type=search]')`)
	// Typed into the search, "g" and "l" are letters, not a jump.
	run(t, ctx, evalVoid(`document.activeElement.value = ''`), chromedp.KeyEvent("gl"))
	if v := eval[string](t, ctx, `document.activeElement.value + ' ' + document.querySelector('main h1')?.textContent`); v != "gl Pipeline board" {
		t.Errorf("typing in the search gives %q, want the letters kept and the board still shown", v)
	}
	run(t, ctx, evalVoid(`document.activeElement.value = ''; document.activeElement.blur()`))

	run(t, ctx, chromedp.KeyEvent("g"), chromedp.KeyEvent("l"))
	waitFor(t, ctx, `location.hash === '#/lenders' && document.querySelector('main h1')?.textContent === 'Lenders'`)
	run(t, ctx, chromedp.KeyEvent("g"), chromedp.KeyEvent("n"))
	waitFor(t, ctx, `location.hash === '#/analytics'`)

	// "n" from another screen goes to the board with the form open.
	run(t, ctx, chromedp.KeyEvent("n"))
	waitFor(t, ctx, `location.hash === '#/board' && document.querySelector('form.new-lead') !== null`)

	waitFor(t, ctx, `document.activeElement?.closest('form.new-lead') !== null`)
	run(t, ctx, evalVoid(`document.activeElement.blur()`), chromedp.KeyEvent("?"))
	waitFor(t, ctx, `document.querySelector('dialog.shortcuts')?.open === true`)
	help := eval[string](t, ctx, `document.querySelector('dialog.shortcuts').textContent`)
	for _, want := range []string{"Keyboard shortcuts", "Focus the search", "New lead", "Lenders", "Analytics", "Agents"} {
		if !strings.Contains(help, want) {
			t.Errorf("the shortcuts dialog reads %q, missing %q", help, want)
		}
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('dialog.shortcuts h2, dialog.shortcuts dl dt, dialog.shortcuts ul li').length`); n < 8 {
		t.Errorf("the shortcuts dialog lists %d entries", n)
	}
	shot(t, ctx, "shortcuts")
	run(t, ctx, chromedp.KeyEvent("\x1b"))
	waitFor(t, ctx, `!document.querySelector('dialog.shortcuts')?.open`)
}
