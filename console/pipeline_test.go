package console_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

// newLead creates a lead over REST and returns its id.
func newLead(t *testing.T, env *resttest.Env, body map[string]any) string {
	t.Helper()
	r := env.Post("/v1/leads", env.Key, body)
	if r.Status != http.StatusCreated {
		t.Fatalf("creating a lead: %d %s", r.Status, r.Raw)
	}
	return r.Data()["id"].(string)
}

// leadStage is the id of the lead's stage, read over REST.
func leadStage(t *testing.T, env *resttest.Env, id string) string {
	t.Helper()
	r := env.Get("/v1/leads/"+id, env.Key)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /v1/leads/%s: %d %s", id, r.Status, r.Raw)
	}
	stage, _ := r.Attr("stage").(map[string]any)
	got, _ := stage["id"].(string)
	return got
}

// waitBoard waits until every column of the board has loaded.
func waitBoard(t *testing.T, ctx context.Context) {
	t.Helper()
	waitFor(t, ctx, `document.querySelectorAll('.board-column').length > 0 &&
		[...document.querySelectorAll('.board-list')].every(l => l.getAttribute('aria-busy') === 'false')`)
}

// The "New lead" form creates the lead, opens its page, and the lead is
// there for any other client.
func TestCreateLead(t *testing.T) {
	env := serve(t)
	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	waitBoard(t, ctx)
	run(t, ctx,
		chromedp.Click(chromedp.CSS(`.screen-head button.primary`)),
		chromedp.WaitVisible(chromedp.CSS(`form.new-lead input[name="businessName"]`)),
		chromedp.SendKeys(chromedp.CSS(`form.new-lead input[name="businessName"]`), "Harbor Freight Co"),
		chromedp.SendKeys(chromedp.CSS(`form.new-lead input[name="contactFirstName"]`), "Mara"),
		chromedp.SendKeys(chromedp.CSS(`form.new-lead input[name="contactLastName"]`), "Quill"),
		chromedp.SendKeys(chromedp.CSS(`form.new-lead input[name="email"]`), "mara@harbor.example"),
		chromedp.SendKeys(chromedp.CSS(`form.new-lead input[name="phone"]`), "+1 555 0199"),
		chromedp.SendKeys(chromedp.CSS(`form.new-lead input[name="requestedAmount"]`), "125000.50"),
		chromedp.SetValue(chromedp.CSS(`form.new-lead select[name="source"]`), "referral"),
		chromedp.SetValue(chromedp.CSS(`form.new-lead select[name="priority"]`), "high"),
		chromedp.Click(chromedp.CSS(`form.new-lead button[type="submit"]`)),
	)
	waitFor(t, ctx, `location.hash.startsWith('#/leads/') && document.querySelector('main h1')?.textContent === 'Harbor Freight Co'`)
	id := strings.TrimPrefix(eval[string](t, ctx, `location.hash`), "#/leads/")
	if !uuidPattern.MatchString(id) {
		t.Fatalf("opened %q, want a lead's page", id)
	}
	waitFor(t, ctx, `document.querySelector('.attrs dd[data-attr="Requested amount"]')?.textContent === '$125,000.50'`)
	if shown := eval[string](t, ctx, `document.querySelector('.attrs').textContent`); !strings.Contains(shown, "Mara Quill") || !strings.Contains(shown, "referral") {
		t.Errorf("the lead's page reads %q", shown)
	}

	r := env.Get("/v1/leads/"+id, env.Key)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /v1/leads/%s: %d %s", id, r.Status, r.Raw)
	}
	for k, want := range map[string]string{"businessName": "Harbor Freight Co", "email": "mara@harbor.example", "requestedAmount": "125000.50", "source": "referral", "priority": "high"} {
		if got, _ := r.Attr(k).(string); got != want {
			t.Errorf("the created lead's %s is %q, want %q", k, got, want)
		}
	}

	// A bad amount is refused in words, and nothing is created.
	run(t, ctx, evalVoid(`location.hash = '#/board'`))
	waitBoard(t, ctx)
	run(t, ctx,
		chromedp.Click(chromedp.CSS(`.screen-head button.primary`)),
		chromedp.SendKeys(chromedp.CSS(`form.new-lead input[name="businessName"]`), "Bad Amount Inc"),
		chromedp.SendKeys(chromedp.CSS(`form.new-lead input[name="requestedAmount"]`), "12,5x"),
		chromedp.Click(chromedp.CSS(`form.new-lead button[type="submit"]`)),
	)
	waitFor(t, ctx, `document.querySelector('#errors .error')?.textContent.includes('VALIDATION_ERROR')`)
	if total := env.Get("/v1/leads", env.Key).Meta()["total"]; total != 1.0 {
		t.Errorf("%v leads after the refused one, want 1", total)
	}
}

// A card dragged with the mouse to another column moves the lead: the
// card stays there, the API has the new stage, and the webhook
// subscriber hears lead.status_changed.
func TestDragLeadToStage(t *testing.T) {
	env := serve(t)
	rc := webhookstest.NewReceiver(t, webhookstest.OK)
	sub := env.Post("/v1/app-webhooks", env.Key, map[string]any{"url": rc.URL, "events": []string{"lead.status_changed"}})
	if sub.Status != http.StatusCreated {
		t.Fatalf("subscribing: %d %s", sub.Status, sub.Raw)
	}
	secret, _ := sub.Attr("secret").(string)
	stages := env.Stages(env.Org.ID)
	adv := env.NewUser(env.Org.ID, "Dana", "Reyes", "advisor", "")
	id := newLead(t, env, map[string]any{"businessName": "Dragged Bakery", "contactFirstName": "Ola", "contactLastName": "Penn", "requestedAmount": "40000.00", "priority": "urgent"})
	for i, name := range []string{"Cedar Dental", "Blue Fin Marine", "Northwind Cafe"} {
		other := newLead(t, env, map[string]any{"businessName": name, "requestedAmount": strconv.Itoa(20000+i*15000) + ".00", "source": "web_form"})
		if i == 1 {
			env.Post("/v1/leads/"+other+"/assign", env.Key, map[string]any{"advisorId": adv.ID})
			env.Post("/v1/leads/"+other+"/stage", env.Key, map[string]any{"stageId": stages[2].ID})
		}
	}

	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	waitBoard(t, ctx)
	card := `.board-list[data-stage="` + stages[0].ID.String() + `"] .card[data-id="` + id + `"]`
	waitFor(t, ctx, `document.querySelector('`+card+`') !== null`)
	if n := eval[string](t, ctx, `document.querySelector('.board-column[data-stage="`+stages[0].ID.String()+`"] .board-count').textContent`); n != "3" {
		t.Errorf("the first column counts %q, want 3", n)
	}
	shot(t, ctx, "board")

	target := `.board-list[data-stage="` + stages[1].ID.String() + `"]`
	run(t, ctx, chromedp.DragAndDrop(chromedp.CSS(card+` .card-meta`), chromedp.CSS(target)))
	moved := target + ` .card[data-id="` + id + `"]`
	waitFor(t, ctx, `document.querySelector('`+moved+`') !== null && !document.querySelector('`+moved+`').hasAttribute('aria-busy')`)
	if errs := eval[string](t, ctx, `document.getElementById('errors').textContent`); errs != "" {
		t.Errorf("the move showed an error: %s", errs)
	}

	if got := leadStage(t, env, id); got != stages[1].ID.String() {
		t.Errorf("the lead's stage is %q after the drag, want %s", got, stages[1].ID)
	}
	// The setup's own move is the first delivery; the drag's is the second.
	var d webhookstest.Delivery
	for _, got := range rc.Wait(t, 2) {
		if got.Env.Data["leadId"] == id {
			d = got
		}
	}
	if d.Env.Event != "lead.status_changed" || d.Env.Data["leadId"] != id || d.Env.Data["newStageId"] != stages[1].ID.String() {
		t.Errorf("delivered %s %v", d.Env.Event, d.Env.Data)
	}
	if !webhooks.Verify(secret, d.Header.Get(webhooks.HeaderTimestamp), d.Header.Get(webhooks.HeaderSignature), d.Body, time.Now()) {
		t.Errorf("the delivery's signature does not verify")
	}

	// The other way: the card's "Move…" menu moves it back.
	run(t, ctx, chromedp.Click(chromedp.CSS(moved+` button.move`)),
		chromedp.Click(chromedp.CSS(moved+` [role="menuitem"][data-stage="`+stages[0].ID.String()+`"]`)))
	waitFor(t, ctx, `document.querySelector('`+card+`') !== null && !document.querySelector('`+card+`').hasAttribute('aria-busy')`)
	if got := leadStage(t, env, id); got != stages[0].ID.String() {
		t.Errorf("the menu left the lead at %q", got)
	}

	// A move the server refuses puts the card back and says why: a key
	// that may read leads but not change them.
	readOnly := newBrowser(t)
	signIn(t, readOnly, env, env.NewKey(env.Org.ID, viewer.ScopeLeadsRead))
	waitBoard(t, readOnly)
	run(t, readOnly, chromedp.Click(chromedp.CSS(card+` button.move`)),
		chromedp.Click(chromedp.CSS(card+` [role="menuitem"][data-stage="`+stages[3].ID.String()+`"]`)))
	waitFor(t, readOnly, `document.querySelector('#errors .error')?.textContent.includes('could not be moved')`)
	waitFor(t, readOnly, `document.querySelector('`+card+`') !== null && !document.querySelector('`+card+`').hasAttribute('aria-busy')`)
	if n := eval[string](t, readOnly, `document.querySelector('.board-column[data-stage="`+stages[3].ID.String()+`"] .board-count').textContent`); n != "0" {
		t.Errorf("after the refusal the target column counts %q", n)
	}
	if msg := eval[string](t, readOnly, `document.querySelector('#errors .error').textContent`); !strings.Contains(msg, "FORBIDDEN") || !strings.Contains(msg, "Request id:") {
		t.Errorf("the refusal reads %q", msg)
	}
	if got := leadStage(t, env, id); got != stages[0].ID.String() {
		t.Errorf("a refused move left the lead at %q", got)
	}

	// Filters apply to every column.
	run(t, ctx, chromedp.SetValue(chromedp.CSS(`.board-filters select[name="source"]`), "web_form"))
	waitFor(t, ctx, `document.querySelectorAll('.card').length === 3 && !document.querySelector('`+card+`')`)
	run(t, ctx, chromedp.SendKeys(chromedp.CSS(`.board-filters input[name="search"]`), "blue"))
	waitFor(t, ctx, `document.querySelectorAll('.card').length === 1 && document.querySelector('.card .card-title').textContent === 'Blue Fin Marine'`)
}

// The lead's page edits its details, assigns it, and uploads a document
// that is then listed.
func TestLeadDetail(t *testing.T) {
	env := serve(t)
	env.NewUser(env.Org.ID, "Priya", "Shah", "advisor", "")
	adv := env.NewUser(env.Org.ID, "Tomas", "Varga", "advisor", "")
	id := newLead(t, env, map[string]any{"businessName": "Juniper Print Shop", "contactFirstName": "Lee", "contactLastName": "Ortiz",
		"email": "lee@juniper.example", "requestedAmount": "60000.00", "monthlyRevenue": "18500.00", "industry": "Printing"})

	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	run(t, ctx, evalVoid(`location.hash = '#/leads/`+id+`'`))
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Juniper Print Shop'`)

	// Edit an attribute.
	run(t, ctx,
		chromedp.Click(chromedp.CSS(`.lead-attrs > button`)),
		chromedp.WaitVisible(chromedp.CSS(`form.lead-edit input[name="industry"]`)),
		evalVoid(`document.querySelector('form.lead-edit input[name="industry"]').value = ''`),
		chromedp.SendKeys(chromedp.CSS(`form.lead-edit input[name="industry"]`), "Commercial printing"),
		chromedp.Click(chromedp.CSS(`form.lead-edit button[type="submit"]`)),
	)
	waitFor(t, ctx, `document.querySelector('.attrs dd[data-attr="Industry"]')?.textContent === 'Commercial printing'`)
	if got, _ := env.Get("/v1/leads/"+id, env.Key).Attr("industry").(string); got != "Commercial printing" {
		t.Errorf("industry is %q after the edit", got)
	}

	// Assign.
	waitFor(t, ctx, `[...document.querySelectorAll('form.lead-assign select option')].some(o => o.value === '`+adv.ID.String()+`')`)
	run(t, ctx,
		chromedp.SetValue(chromedp.CSS(`form.lead-assign select`), adv.ID.String()),
		chromedp.Click(chromedp.CSS(`form.lead-assign button[type="submit"]`)),
	)
	waitFor(t, ctx, `document.querySelector('.attrs dd[data-attr="Advisor"]')?.textContent === 'Tomas Varga'`)
	if got, _ := env.Get("/v1/leads/"+id, env.Key).Attr("primaryAdvisorId").(string); got != adv.ID.String() {
		t.Errorf("the lead's advisor is %q, want %s", got, adv.ID)
	}

	// Upload a CSV and see it listed, and in the timeline.
	file := filepath.Join(t.TempDir(), "bank-statement.csv")
	if err := os.WriteFile(file, []byte("date,amount\n2026-10-01,1200.00\n2026-10-02,-80.25\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run(t, ctx,
		chromedp.SetUploadFiles(chromedp.CSS(`form.doc-upload input[type="file"]`), []string{file}),
		chromedp.SetValue(chromedp.CSS(`form.doc-upload select[name="category"]`), "bank_statement"),
		chromedp.Click(chromedp.CSS(`form.doc-upload button[type="submit"]`)),
	)
	waitFor(t, ctx, `document.querySelector('.lead-documents table')?.textContent.includes('bank-statement.csv')`)
	if row := eval[string](t, ctx, `document.querySelector('.lead-documents tbody tr').textContent`); !strings.Contains(row, "bank statement") || !strings.Contains(row, "text/csv") {
		t.Errorf("the document row reads %q", row)
	}
	waitFor(t, ctx, `document.querySelector('.timeline > li .summary')?.textContent === 'Uploaded bank-statement.csv'`)
	// The file's button downloads it through GET /v1/documents/{id}/content
	// as a blob: the link the page clicks is caught here and read back.
	run(t, ctx, evalVoid(`window.downloaded = null;
		const blobs = new Map();
		const createObjectURL = URL.createObjectURL;
		URL.createObjectURL = (b) => { const u = createObjectURL(b); blobs.set(u, b); return u; };
		document.addEventListener('click', (ev) => {
			const a = ev.target.closest && ev.target.closest('a[download]');
			if (!a) return;
			ev.preventDefault();
			blobs.get(a.href).text().then((text) => { window.downloaded = a.download + ':' + text; });
		}, true)`),
		chromedp.Click(chromedp.CSS(`.lead-documents tbody button`)))
	waitFor(t, ctx, `window.downloaded !== null`)
	if got := eval[string](t, ctx, `window.downloaded`); got != "bank-statement.csv:date,amount\n2026-10-01,1200.00\n2026-10-02,-80.25\n" {
		t.Errorf("the download gave %q", got)
	}
	run(t, ctx, evalVoid(`window.scrollTo(0, 0)`))
	shot(t, ctx, "lead")
}
