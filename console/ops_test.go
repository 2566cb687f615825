package console_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

// The agents board shows the first page, then changes a row in place when
// a dialer reports over REST: no reload, no polling.
func TestAgentsBoardLive(t *testing.T) {
	env := serve(t)
	dee := env.NewUser(env.Org.ID, "Dee", "Dialer", "agent", "Floor A")
	env.NewUser(env.Org.ID, "Sam", "Caller", "agent", "Floor A")
	lead := opsREST(t, env, "/v1/leads", env.Key, map[string]any{"businessName": "Acme Trucking", "phone": "+15550100"}, http.StatusCreated)
	dialer := env.NewKey(env.Org.ID, viewer.ScopeDialerWrite)
	opsREST(t, env, "/v1/dialer/presence", dialer, map[string]any{"userId": dee.ID.String(), "status": "online", "campaignName": "Q4 renewals"}, http.StatusOK)

	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	run(t, ctx, evalVoid(`location.hash = '#/agents'`))
	status := fmt.Sprintf(`document.querySelector('.cell[data-agent="%s"][data-cell="status"]')`, dee.ID)
	call := fmt.Sprintf(`document.querySelector('.cell[data-agent="%s"][data-cell="call"]')`, dee.ID)
	waitFor(t, ctx, status+`?.textContent === 'Online'`)
	if n := eval[int](t, ctx, `document.querySelectorAll('main tbody tr').length`); n != 2 {
		t.Errorf("the board lists %d agents, want 2", n)
	}
	// A marker a reload would wipe.
	run(t, ctx, evalVoid(`window.opsNoReload = true`))

	// The subscription starts asynchronously: the dialer reports until the
	// row changes (each report is an event), within a bounded number of tries.
	seen := false
	for i := 0; i < 40 && !seen; i++ {
		opsREST(t, env, "/v1/dialer/presence", dialer, map[string]any{
			"userId": dee.ID.String(), "status": "on_call", "currentCallId": "call-7", "currentLeadId": lead,
		}, http.StatusOK)
		seen = opsWait(ctx, status+`?.textContent === 'On a call' && `+call+`?.textContent.includes('Acme Trucking')`, 250*time.Millisecond)
	}
	if !seen {
		body := eval[string](t, ctx, `document.querySelector('main').innerText`)
		t.Fatalf("the board did not show the call; it reads:\n%s", body)
	}
	if !eval[bool](t, ctx, `window.opsNoReload === true`) {
		t.Error("the page reloaded")
	}
	if got := eval[string](t, ctx, call+`.textContent`); !strings.Contains(got, "call-7") {
		t.Errorf("the current call reads %q", got)
	}
	shot(t, ctx, "agents")

	// The next report moves the row on again; leaving the screen closes the
	// subscription without an error.
	opsREST(t, env, "/v1/dialer/presence", dialer, map[string]any{"userId": dee.ID.String(), "status": "break"}, http.StatusOK)
	waitFor(t, ctx, status+`?.textContent === 'On a break' && `+call+`?.textContent === '—'`)
	run(t, ctx, evalVoid(`location.hash = '#/webhooks'`))
	waitFor(t, ctx, `document.querySelector('main h1')?.textContent === 'Webhooks'`)
	opsREST(t, env, "/v1/dialer/presence", dialer, map[string]any{"userId": dee.ID.String(), "status": "offline"}, http.StatusOK)
	if errs := eval[string](t, ctx, `document.getElementById('errors').textContent`); errs != "" {
		t.Errorf("the error region reads %q", errs)
	}
}

// A delivery the receiver refused is seen failed in the delivery log,
// replayed with a click and seen delivered; the receiver got it twice with
// the same X-Webhook-Id. Subscribing, pausing, resuming and deleting go
// through the screens too.
func TestReplayFailedDelivery(t *testing.T) {
	// One attempt per delivery: a refused one is dead-lettered at once.
	env := resttest.New(t, func(c *rest.Config) { c.Webhooks.Schedule = []time.Duration{0} })
	rc := webhookstest.NewReceiver(t, func(n int) int {
		if n == 1 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	other := opsGQL(t, env, `mutation($in: NewWebhookSubscription!) { createWebhookSubscription(input: $in) { subscription { id } } }`,
		map[string]any{"in": map[string]any{"url": rc.URL + "/other", "events": []string{"lead.updated"}}})
	otherID := opsPath(other, "createWebhookSubscription", "subscription", "id").(string)

	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	run(t, ctx, evalVoid(`location.hash = '#/webhooks'`))
	waitFor(t, ctx, `document.querySelector('main form input[name="url"]') !== null`)

	// Subscribe through the form: the secret shows once.
	run(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`main form input[name="url"]`), rc.URL+"/hooks"),
		evalVoid(`document.querySelector('main form input[name="events"]').value = ''`),
		chromedp.SendKeys(chromedp.CSS(`main form input[name="events"]`), "lead.created, lead.updated"),
		chromedp.Click(chromedp.CSS(`main form button[type="submit"]`)),
	)
	waitFor(t, ctx, `document.querySelector('.secret-panel input.secret')?.value.startsWith('whsec_')`)
	waitFor(t, ctx, `[...document.querySelectorAll('main tbody a')].some(a => a.textContent === '`+rc.URL+`/hooks')`)

	// Pause shows why, with a Resume button; Resume makes it active again.
	pauseButton := `[...document.querySelectorAll('main tbody tr')].find(tr => tr.textContent.includes('` + rc.URL + `/hooks'))?.querySelector('button')`
	run(t, ctx, evalVoid(pauseButton+`.click()`))
	waitFor(t, ctx, `[...document.querySelectorAll('main tbody tr')].some(tr => tr.textContent.includes('/hooks') && tr.textContent.includes('Paused') && tr.textContent.includes('paused by request') && [...tr.querySelectorAll('button')].some(b => b.textContent === 'Resume'))`)
	run(t, ctx, evalVoid(pauseButton+`.click()`))
	waitFor(t, ctx, `[...document.querySelectorAll('main tbody tr')].some(tr => tr.textContent.includes('/hooks') && tr.textContent.includes('Active'))`)

	// Delete asks first.
	otherRow := `[...document.querySelectorAll('main tbody tr')].find(tr => tr.textContent.includes('/other'))`
	run(t, ctx, evalVoid(`[...`+otherRow+`.querySelectorAll('button')].find(b => b.textContent === 'Delete').click()`))
	waitFor(t, ctx, otherRow+`?.textContent.includes('Delete this subscription')`)
	run(t, ctx, evalVoid(`[...`+otherRow+`.querySelectorAll('button')].find(b => b.textContent === 'Yes, delete').click()`))
	waitFor(t, ctx, `!(`+otherRow+`) && document.querySelectorAll('main tbody tr').length === 1`)
	gone := opsGQL(t, env, `query($id: ID!) { webhookSubscriptions(where: {id: $id}) { totalCount } }`, map[string]any{"id": otherID})
	if n := opsPath(gone, "webhookSubscriptions", "totalCount"); n != 0.0 {
		t.Errorf("the deleted subscription is still there: %v", gone)
	}
	shot(t, ctx, "webhooks")

	// An event: its one delivery is refused and dead-lettered.
	opsREST(t, env, "/v1/leads", env.Key, map[string]any{"businessName": "Replay Co"}, http.StatusCreated)
	first := rc.Wait(t, 1)[0]
	webhookID := first.Header.Get("X-Webhook-Id")
	run(t, ctx, evalVoid(`[...document.querySelectorAll('main tbody a')].find(a => a.textContent.endsWith('/hooks')).click()`))
	waitFor(t, ctx, `document.querySelector('main select[name="status"]') !== null`)
	run(t, ctx, chromedp.SetValue(chromedp.CSS(`main select[name="status"]`), "dead"),
		evalVoid(`document.querySelector('main select[name="status"]').dispatchEvent(new Event('change'))`))
	deadRow := `[...document.querySelectorAll('main tbody tr')].find(tr => tr.textContent.includes('` + webhookID + `') && tr.textContent.includes('Dead letter'))`
	// The worker records the failure after the receiver answers: Refresh
	// until the log shows it.
	opsRefreshUntil(t, ctx, deadRow+` && `+deadRow+`.textContent.includes('HTTP 500')`)
	if got := eval[string](t, ctx, deadRow+`.textContent`); !strings.Contains(got, "lead.created") {
		t.Errorf("the dead letter reads %q", got)
	}
	shot(t, ctx, "deliveries")

	run(t, ctx, evalVoid(deadRow+`.querySelector('button.replay').click()`))
	waitFor(t, ctx, `document.querySelector('main .notice')?.textContent.includes('queued again')`)
	second := rc.Wait(t, 2)[1]
	if got := second.Header.Get("X-Webhook-Id"); got != webhookID {
		t.Errorf("the replay was sent as %q, want %q", got, webhookID)
	}
	run(t, ctx, chromedp.SetValue(chromedp.CSS(`main select[name="status"]`), ""),
		evalVoid(`document.querySelector('main select[name="status"]').dispatchEvent(new Event('change'))`))
	opsRefreshUntil(t, ctx, `[...document.querySelectorAll('main tbody tr')].some(tr => tr.textContent.includes('`+webhookID+`') && tr.textContent.includes('Delivered'))`)
	if errs := eval[string](t, ctx, `document.getElementById('errors').textContent`); errs != "" {
		t.Errorf("the error region reads %q", errs)
	}
}

// The inbound screen lists an endpoint and its request log with the
// failing run's errorCode; the automations screen lists the run with its
// errorCode and retries it.
func TestInboundAndAutomations(t *testing.T) {
	env := serve(t)
	created := opsGQL(t, env, `mutation($in: NewInboundEndpoint!) { createInboundEndpoint(input: $in) { secret endpoint { id endpointKey } } }`,
		map[string]any{"in": map[string]any{"name": "Partner CRM", "mapping": map[string]any{"businessName": "$.company.name", "email": "$.contact.email"}}})
	endpointID := opsPath(created, "createInboundEndpoint", "endpoint", "id").(string)
	key := opsPath(created, "createInboundEndpoint", "endpoint", "endpointKey").(string)
	secret := opsPath(created, "createInboundEndpoint", "secret").(string)
	auto := opsGQL(t, env, `mutation($in: NewAutomation!) { createAutomation(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"name": "Partner leads", "trigger": map[string]any{"endpointId": endpointID},
			"requiredFields": []string{"email"}, "actions": []map[string]any{{"type": "create_lead"}, {"type": "add_tags", "tags": []string{"partner"}}}}})
	automationID := opsPath(auto, "createAutomation", "id").(string)

	for _, body := range []string{
		`{"company":{"name":"Northwind Freight"},"contact":{"email":"ops@northwind.example"}}`,
		`{"company":{"name":"No Email Ltd"}}`,
	} {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write([]byte(body))
		r := env.Do(resttest.Request{Method: "POST", Path: "/v1/webhooks/inbound/" + key, Body: body,
			Header: map[string]string{"X-svc-Signature": hex.EncodeToString(m.Sum(nil))}})
		if r.Status >= 300 {
			t.Fatalf("inbound post: %d %s", r.Status, r.Raw)
		}
	}
	// The runs finish in the background worker.
	var code string
	deadline := time.Now().Add(15 * time.Second)
	for code == "" {
		runs := opsGQL(t, env, `query($id: ID!) { automationRuns(automationId: $id, status: "failed") { nodes { errorCode } } }`, map[string]any{"id": automationID})
		if nodes, _ := opsPath(runs, "automationRuns", "nodes").([]any); len(nodes) == 1 {
			code, _ = nodes[0].(map[string]any)["errorCode"].(string)
		}
		if code == "" {
			if time.Now().After(deadline) {
				t.Fatalf("no failed run with an errorCode: %v", runs)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	run(t, ctx, evalVoid(`location.hash = '#/inbound'`))
	waitFor(t, ctx, `[...document.querySelectorAll('main tbody tr')].some(tr => tr.textContent.includes('Partner CRM') && tr.textContent.includes('`+key+`'))`)
	run(t, ctx, evalVoid(`document.querySelector('main tbody button[aria-label="Requests to Partner CRM"]').click()`))
	failedRequest := `[...document.querySelectorAll('main .detail tbody tr')].find(tr => tr.querySelector('.request-status')?.textContent === 'Failed')`
	waitFor(t, ctx, `document.querySelectorAll('main .detail tbody tr').length === 2 && `+failedRequest+`?.querySelector('.error-code')?.textContent === '`+code+`'`)
	if got := eval[string](t, ctx, failedRequest+`.textContent`); !strings.Contains(got, "email") {
		t.Errorf("the failed request reads %q, want its error naming the missing field", got)
	}
	run(t, ctx, evalVoid(failedRequest+`.scrollIntoView({block: 'center'})`))
	shot(t, ctx, "inbound")

	run(t, ctx, evalVoid(`location.hash = '#/automations'`))
	waitFor(t, ctx, `document.querySelector('main tbody button[aria-label="Runs of Partner leads"]') !== null`)
	if got := eval[string](t, ctx, `document.querySelector('main tbody tr').textContent`); !strings.Contains(got, "Inbound endpoint Partner CRM") {
		t.Errorf("the automation's row reads %q, want its endpoint by name", got)
	}
	run(t, ctx, evalVoid(`document.querySelector('main tbody button[aria-label="Runs of Partner leads"]').click()`))
	failedRun := `[...document.querySelectorAll('main .detail tbody tr')].find(tr => tr.querySelector('.run-status')?.textContent === 'failed')`
	waitFor(t, ctx, `document.querySelectorAll('main .detail tbody tr').length === 2 && `+failedRun+`?.querySelector('.error-code')?.textContent === '`+code+`'`)
	if got := eval[string](t, ctx, `[...document.querySelectorAll('main .detail tbody tr')].map(tr => tr.querySelector('.run-status').textContent).sort().join(',')`); got != "failed,succeeded" {
		t.Errorf("the runs are %q", got)
	}
	shot(t, ctx, "automations")

	run(t, ctx, evalVoid(failedRun+`.querySelector('button.retry').click()`))
	waitFor(t, ctx, `document.querySelector('main .detail .notice')?.textContent.includes('queued again')`)
	if errs := eval[string](t, ctx, `document.getElementById('errors').textContent`); errs != "" {
		t.Errorf("the error region reads %q", errs)
	}
}

// opsREST posts body to path with key, fails the test unless the answer
// has status want, and returns the created resource's id.
func opsREST(t *testing.T, env *resttest.Env, path, key string, body map[string]any, want int) string {
	t.Helper()
	r := env.Post(path, key, body)
	if r.Status != want {
		t.Fatalf("POST %s: %d %s", path, r.Status, r.Raw)
	}
	id, _ := r.Data()["id"].(string)
	return id
}

// opsGQLRaw runs a GraphQL operation and returns the whole answer.
func opsGQLRaw(t *testing.T, env *resttest.Env, query string, vars map[string]any) map[string]any {
	t.Helper()
	r := env.Post("/graphql", env.Key, map[string]any{"query": query, "variables": vars})
	if r.Status != http.StatusOK {
		t.Fatalf("GraphQL %d: %s", r.Status, r.Raw)
	}
	return r.Body
}

// opsGQL runs a GraphQL operation and returns its data, failing the test
// on an error.
func opsGQL(t *testing.T, env *resttest.Env, query string, vars map[string]any) map[string]any {
	t.Helper()
	body := opsGQLRaw(t, env, query, vars)
	if errs, _ := body["errors"].([]any); len(errs) > 0 {
		raw, _ := json.Marshal(errs)
		t.Fatalf("GraphQL errors: %s", raw)
	}
	data, _ := body["data"].(map[string]any)
	return data
}

// opsPath walks nested objects by key; nil when a step is missing.
func opsPath(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// opsWait polls a JavaScript condition for up to timeout and says whether
// it held.
func opsWait(ctx context.Context, expr string, timeout time.Duration) bool {
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(timeout)))
	return err == nil
}

// opsRefreshUntil clicks the screen's Refresh button until expr holds:
// the delivery log is re-read when the reader asks, never on a timer.
func opsRefreshUntil(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	for i := 0; i < 50; i++ {
		if opsWait(ctx, expr, 200*time.Millisecond) {
			return
		}
		run(t, ctx, evalVoid(`[...document.querySelectorAll('main button')].find(b => b.textContent === 'Refresh').click()`))
	}
	waitFor(t, ctx, expr)
}
