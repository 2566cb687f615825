package console_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// apiRoundTrip drives app/api.js in the page: a query, a refused query as
// an ApiError with its code and request id, a subscription over the shared
// websocket, and a multipart upload; it answers what each gave, joined by
// " | ".
const apiRoundTrip = `(async () => {
	const api = await import('/console/app/api.js');
	const out = [];
	out.push((await api.gql('query { organization { name } }')).organization.name);
	try {
		await api.gql('query { noSuchField }');
		out.push('no error');
	} catch (e) {
		out.push([e instanceof api.ApiError, e.code !== '', /^[0-9a-f-]{36}$/.test(e.requestId)].join(','));
	}
	let stop;
	const event = new Promise((resolve, reject) => {
		stop = api.subscribe('subscription { events(types: ["lead.created"]) { event data } }', {}, {
			next: (d) => resolve(d.events.event + ' ' + d.events.data.businessName),
			error: reject,
		});
	});
	// The subscription starts asynchronously: create leads until one is seen.
	let seen = null;
	event.then((v) => { seen = v; }, (e) => { seen = 'error ' + e.message; });
	for (let i = 0; i < 50 && seen === null; i++) {
		await api.gql('mutation($in: CreateLeadInput!) { createLead(input: $in) { id } }', { in: { businessName: 'Live Co' } });
		await new Promise((r) => setTimeout(r, 100));
	}
	stop();
	out.push(seen);
	const file = new File(['Company\nUploaded Co\n'], 'leads.csv', { type: 'text/csv' });
	const job = await api.upload('mutation($file: Upload!) { importLeads(file: $file) { id status } }', {}, { file });
	out.push(job.importLeads.id ? 'job' : 'no job');
	return out.join(' | ');
})()`

// app/api.js against the real server: a query, a refused query as an
// ApiError with its code and request id, a subscription over the shared
// websocket (the key in connection_init), and a multipart upload.
func TestAPIClient(t *testing.T) {
	env := serve(t)
	ctx := newBrowser(t, "status of 422", "status of 400")
	signIn(t, ctx, env, env.Key)
	got := eval[string](t, ctx, apiRoundTrip)
	if want := env.Org.Name + " | true,true,true | lead.created Live Co | job"; got != want {
		t.Errorf("the API client gave %q, want %q", got, want)
	}
	if strings.Contains(eval[string](t, ctx, `document.getElementById('errors').textContent`), "Error") {
		t.Error("the error region shows an error")
	}
}

// app/api.js in a person's session: the same calls go with the cookie and
// the session's CSRF token (the websocket with an empty connection_init),
// no Authorization header; a POST without the token is refused.
func TestAPIClientInSession(t *testing.T) {
	env := serve(t)
	u := env.NewPerson(env.Org.ID, "Sid", "Session", "admin", personPassword)
	ctx := newBrowser(t, "status of 422", "status of 400", "status of 403")
	run(t, ctx, chromedp.Navigate(env.Server.URL+"/console"))
	passwordSignIn(t, ctx, u.Email, personPassword)
	waitFor(t, ctx, `document.getElementById('who').textContent === 'Sid Session' && document.querySelector('main h1')?.textContent === 'My day'`)
	if auth := eval[string](t, ctx, `(async () => JSON.stringify((await import('/console/app/api.js')).authHeaders()))()`); strings.Contains(auth, "Authorization") || !strings.Contains(auth, "X-CSRF-Token") {
		t.Errorf("in a session the console sends headers %s", auth)
	}
	got := eval[string](t, ctx, apiRoundTrip)
	if want := env.Org.Name + " | true,true,true | lead.created Live Co | job"; got != want {
		t.Errorf("the API client gave %q, want %q", got, want)
	}
	// The cookie alone is not enough to change anything: the token is
	// what the console adds.
	refused := eval[string](t, ctx, `(async () => {
		const res = await fetch('/graphql', { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ query: 'mutation { createLead(input: { businessName: "Forged" }) { id } }' }) });
		return res.status + ' ' + JSON.stringify(await res.json());
	})()`)
	if !strings.HasPrefix(refused, "403 ") || !strings.Contains(refused, "CSRF") {
		t.Errorf("a POST with the cookie and no CSRF token answered %s", refused)
	}
	if strings.Contains(eval[string](t, ctx, `document.getElementById('errors').textContent`), "Error") {
		t.Error("the error region shows an error")
	}
}
