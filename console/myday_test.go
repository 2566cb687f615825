package console_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A person adds a note and a task (due today, their own) on a lead, with
// the keyboard's forms; the task is then on their day, which is their
// console's home, with a link back to the lead; completing it there takes
// it off. Every screen on the way has no axe violation.
func TestNotesTasksAndMyDay(t *testing.T) {
	env := serve(t)
	u := env.NewPerson(env.Org.ID, "Dana", "Day", "advisor", personPassword)
	lead := env.Post("/v1/leads", env.Key, map[string]any{"businessName": "Harbor Bakery"}).Data()["id"].(string)
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(env.Server.URL+"/console"))
	passwordSignIn(t, ctx, u.Email, personPassword)
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'My day' && document.querySelector('.my-day[aria-busy="false"]') !== null`)
	if text := eval[string](t, ctx, `document.querySelector('.my-day').textContent`); !strings.Contains(text, "Nothing overdue.") ||
		!strings.Contains(text, "No renewals due.") || !strings.Contains(text, "once the service tracks stipulations") {
		t.Errorf("an empty day reads %q", text)
	}
	if nav := eval[string](t, ctx, `document.querySelector('#nav a')?.textContent`); nav != "My day" {
		t.Errorf("the nav starts with %q, want My day", nav)
	}

	// The lead: a note, then a task due today.
	run(t, ctx, evalVoid(`location.hash = '#/leads/`+lead+`'`))
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Harbor Bakery' && document.querySelector('form.new-note') !== null && document.querySelector('form.new-task select[name="assigneeId"] option') !== null`)
	run(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`form.new-note textarea[name="newNote"]`), "Owner wants 50k for a second oven.\nCall after 3pm."),
		chromedp.Click(chromedp.CSS(`form.new-note button[type="submit"]`)))
	waitFor(t, ctx, `document.querySelector('.lead-notes .note-body')?.textContent === 'Owner wants 50k for a second oven.\nCall after 3pm.'`)
	if meta := eval[string](t, ctx, `document.querySelector('.lead-notes .note-meta').textContent`); !strings.HasPrefix(meta, "Dana Day, ") {
		t.Errorf("the note's author line reads %q", meta)
	}
	if buttons := eval[string](t, ctx, `[...document.querySelectorAll('.lead-notes .note > .actions > button')].map(b => b.textContent).join(',')`); buttons != "Edit,Delete" {
		t.Errorf("the author's note offers %q", buttons)
	}
	// The task is due later today when today has a minute left, else now:
	// it is on the day either way (due today, or overdue).
	run(t, ctx, evalVoid(`(() => {
		const d = new Date(); d.setHours(23, 59, 0, 0);
		const due = d > new Date(Date.now() + 60000) ? d : new Date();
		const pad = (n) => String(n).padStart(2, '0');
		document.querySelector('form.new-task input[name="dueAt"]').value =
			due.getFullYear() + '-' + pad(due.getMonth() + 1) + '-' + pad(due.getDate()) + 'T' + pad(due.getHours()) + ':' + pad(due.getMinutes());
	})()`),
		chromedp.SendKeys(chromedp.CSS(`form.new-task input[name="title"]`), "Send the application to Summit"),
	)
	if who := eval[string](t, ctx, `document.querySelector('form.new-task select[name="assigneeId"]').selectedOptions[0].textContent`); who != "Dana Day (you)" {
		t.Errorf("the assignee picker starts at %q, want the reader", who)
	}
	run(t, ctx, chromedp.Click(chromedp.CSS(`form.new-task button[type="submit"]`)))
	waitFor(t, ctx, `[...document.querySelectorAll('.lead-tasks tbody tr')].some(r => r.textContent.includes('Send the application to Summit') && r.textContent.includes('Dana Day'))`)
	checkA11y(t, ctx)
	shot(t, ctx, "lead-notes-tasks")

	// My day lists it, with its lead.
	run(t, ctx, evalVoid(`location.hash = '#/my-day'`))
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'My day' && [...document.querySelectorAll('.my-day tbody tr')].some(r => r.textContent.includes('Send the application to Summit'))`)
	row := `[...document.querySelectorAll('.my-day tbody tr')].find(r => r.textContent.includes('Send the application to Summit'))`
	if href := eval[string](t, ctx, row+`.querySelector('a').getAttribute('href') + ' ' + `+row+`.querySelector('a').textContent`); href != "#/leads/"+lead+" Harbor Bakery" {
		t.Errorf("the task's lead link is %q", href)
	}
	checkA11y(t, ctx)
	shot(t, ctx, "my-day")
	phone(t, ctx)
	checkA11y(t, ctx)
	shot(t, ctx, "my-day-phone")

	// Completed from the day, it leaves it.
	run(t, ctx, evalVoid(row+`.querySelector('button').click()`))
	waitFor(t, ctx, `document.querySelector('.my-day[aria-busy="false"]') !== null && ![...document.querySelectorAll('.my-day tbody tr')].some(r => r.textContent.includes('Send the application to Summit'))`)
	open := env.Post("/graphql", env.Key, map[string]any{"query": `{ tasks(where: {status: done}) { total } }`})
	if total := open.Body["data"].(map[string]any)["tasks"].(map[string]any)["total"]; total != 1.0 {
		t.Errorf("done tasks after completing from the day: %v", total)
	}
}
