package console_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/viewer"
)

// An agent the dialer reports on a call without naming the call shows the
// call its events name (the call id and the lead), and a line above the
// table sums up who is online, on a call, available and offline, kept
// current by the live updates.
func TestAgentsBoardSummaryAndCurrentCall(t *testing.T) {
	env := serve(t)
	dee := env.NewUser(env.Org.ID, "Dee", "Dialer", "agent", "Floor A")
	sam := env.NewUser(env.Org.ID, "Sam", "Caller", "agent", "Floor A")
	env.NewUser(env.Org.ID, "Pat", "Quiet", "agent", "Floor A")
	lead := opsREST(t, env, "/v1/leads", env.Key, map[string]any{"businessName": "Acme Trucking", "phone": "+15550100"}, http.StatusCreated)
	dialer := env.NewKey(env.Org.ID, viewer.ScopeDialerWrite)
	opsREST(t, env, "/v1/dialer/presence", dialer, map[string]any{"userId": sam.ID.String(), "status": "online"}, http.StatusOK)
	opsREST(t, env, "/v1/dialer/presence", dialer, map[string]any{"userId": dee.ID.String(), "status": "on_call"}, http.StatusOK)
	opsREST(t, env, "/v1/dialer/events", dialer, map[string]any{
		"externalCallId": "call-42", "userId": dee.ID.String(), "leadId": lead, "eventType": "call_started",
		"occurredAt": time.Now().UTC().Format(time.RFC3339),
	}, http.StatusCreated)

	ctx := newBrowser(t)
	signIn(t, ctx, env, env.Key)
	run(t, ctx, evalVoid(`location.hash = '#/agents'`))
	call := fmt.Sprintf(`document.querySelector('.cell[data-agent="%s"][data-cell="call"]')`, dee.ID)
	summary := `document.querySelector('main .agents-summary')?.textContent`
	waitFor(t, ctx, call+` !== null`)
	if got := eval[string](t, ctx, call+`.textContent`); !strings.Contains(got, "call-42") || !strings.Contains(got, "Acme Trucking") {
		t.Errorf("the on-call agent's current call reads %q, want the call id and the lead", got)
	}
	waitFor(t, ctx, `(`+summary+` || '') !== ''`)
	if got := eval[string](t, ctx, summary); got != "2 online · 1 on a call · 1 available · 1 offline" {
		t.Errorf("the summary reads %q", got)
	}

	// The subscription starts asynchronously: Sam reports until the line
	// changes.
	want := "1 online · 1 on a call · 0 available · 2 offline"
	seen := false
	for i := 0; i < 40 && !seen; i++ {
		opsREST(t, env, "/v1/dialer/presence", dialer, map[string]any{"userId": sam.ID.String(), "status": "offline"}, http.StatusOK)
		seen = opsWait(ctx, summary+` === '`+want+`'`, 250*time.Millisecond)
	}
	if !seen {
		t.Errorf("after Sam went offline the summary reads %q, want %q", eval[string](t, ctx, summary), want)
	}
}
