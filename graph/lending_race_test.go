package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/lendingpipe/svc/analytics"
	"github.com/lendingpipe/svc/internal/event"
)

// Concurrent operations on one lead, as lender portals and brokers make
// them: each race is run for several rounds, on SQLite and (with
// SVC_TEST_DATABASE_URL) on PostgreSQL, where a deadlock or a lost update
// would show as a 500 or a wrong end state.
const raceRounds = 20

// answer is one GraphQL answer of a concurrent call.
type answer struct {
	data map[string]any
	ext  map[string]any // the first error's extensions; nil on success
	err  error          // the call itself failed (transport, status, body)
}

// together runs the operations at once, each in its own request, and
// returns their answers in order. It may run outside the test's goroutine.
func (l *lendingEnv) together(ops ...gqlCase) []answer {
	out := make([]answer, len(ops))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, op := range ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body, _ := json.Marshal(map[string]any{"query": op.doc, "variables": op.vars})
			req, _ := http.NewRequest("POST", l.Server.URL+"/graphql", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+l.key)
			<-start
			resp, err := l.Server.Client().Do(req)
			if err != nil {
				out[i].err = err
				return
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK {
				out[i].err = fmt.Errorf("status %d: %s", resp.StatusCode, raw)
				return
			}
			var r struct {
				Data   map[string]any
				Errors []struct{ Extensions map[string]any }
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				out[i].err = fmt.Errorf("%v: %s", err, raw)
				return
			}
			out[i].data = r.Data
			if len(r.Errors) > 0 {
				out[i].ext = r.Errors[0].Extensions
				if out[i].ext == nil {
					out[i].ext = map[string]any{"code": "none", "raw": string(raw)}
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	return out
}

// sound fails the test for an answer that is no answer: a failed call, or
// an internal error (a deadlock, a lost connection).
func sound(t *testing.T, answers []answer) {
	t.Helper()
	for i, a := range answers {
		if a.err != nil {
			t.Fatalf("call %d: %v", i, a.err)
		}
		if a.ext != nil && (a.ext["code"] == "INTERNAL_ERROR" || a.ext["code"] == "SERVICE_UNAVAILABLE") {
			t.Fatalf("call %d failed inside: %v", i, a.ext)
		}
	}
}

// Two fundings of two approved applications of one lead: one deal; the
// other call finds its application withdrawn (funded_elsewhere).
func TestConcurrentFundingsOfOneLead(t *testing.T) {
	l := newLendingEnv(t)
	first, second := l.lender(t, "First Race Capital", nil), l.lender(t, "Second Race Capital", nil)
	for round := range raceRounds {
		lead := l.lead(t, nil)
		apps := []string{l.approved(t, lead, first, "10000", nil), l.approved(t, lead, second, "12000", nil)}
		got := l.together(gqlCase{fundDoc, map[string]any{"id": apps[0]}}, gqlCase{fundDoc, map[string]any{"id": apps[1]}})
		sound(t, got)
		won := -1
		for i, a := range got {
			switch {
			case a.ext == nil && won < 0:
				won = i
			case a.ext == nil:
				t.Fatalf("round %d: both fundings succeeded", round)
			case a.ext["code"] != "CONFLICT" || a.ext["field"] != "status" || a.ext["from"] != "withdrawn" || a.ext["to"] != "funded":
				t.Fatalf("round %d: the losing funding answered %v, want CONFLICT withdrawn -> funded", round, a.ext)
			}
		}
		if won < 0 {
			t.Fatalf("round %d: neither funding succeeded: %v", round, got)
		}
		lost := apps[1-won]
		if a := l.application(t, apps[won]); a["status"] != "funded" {
			t.Errorf("round %d: the funded application is %v", round, a["status"])
		}
		if a := l.application(t, lost); a["status"] != "withdrawn" || a["withdrawnReason"] != "funded_elsewhere" {
			t.Errorf("round %d: the other application is %v (%v)", round, a["status"], a["withdrawnReason"])
		}
		deals := l.must(t, `query($l: ID) { fundedDealsPage(leadId: $l) { total } }`, map[string]any{"l": lead})
		if n := deals["fundedDealsPage"].(map[string]any)["total"]; n != 1.0 {
			t.Errorf("round %d: %v deals of the lead, want 1", round, n)
		}
		if slot := slotOf(l.leadState(t, lead)); slot != "won" {
			t.Errorf("round %d: the lead is in %s, want won", round, slot)
		}
	}
	if n := len(l.outbox(t, event.DealFunded)); n != raceRounds {
		t.Errorf("%d deal.funded events, want one a round (%d)", n, raceRounds)
	}
}

// Two decisions on one application: one is recorded, the other finds the
// application decided.
func TestConcurrentDecisionsOnOneApplication(t *testing.T) {
	l := newLendingEnv(t)
	lender := l.lender(t, "Decision Race Capital", nil)
	for round := range raceRounds {
		app := l.submit(t, l.lead(t, nil), lender, nil)["id"].(string)
		ops := []struct {
			doc, to string
		}{{approveDoc, "approved"}, {declineDoc, "declined"}}
		if round%2 == 1 {
			ops[1] = struct{ doc, to string }{approveDoc, "approved"} // the same decision twice
		}
		got := l.together(gqlCase{ops[0].doc, map[string]any{"id": app}}, gqlCase{ops[1].doc, map[string]any{"id": app}})
		sound(t, got)
		winner := ""
		for i, a := range got {
			if a.ext == nil {
				if winner != "" {
					t.Fatalf("round %d: both decisions succeeded", round)
				}
				winner = ops[i].to
			}
		}
		if winner == "" {
			t.Fatalf("round %d: neither decision succeeded: %v", round, got)
		}
		for i, a := range got {
			if a.ext != nil && (a.ext["code"] != "CONFLICT" || a.ext["field"] != "status" || a.ext["from"] != winner || a.ext["to"] != ops[i].to) {
				t.Fatalf("round %d: the losing decision answered %v, want CONFLICT %s -> %s", round, a.ext, winner, ops[i].to)
			}
		}
		if a := l.application(t, app); a["status"] != winner {
			t.Errorf("round %d: the application is %v, want %s", round, a["status"], winner)
		}
		events := 0
		for _, ty := range []string{event.ApplicationApproved, event.ApplicationDeclined} {
			for _, d := range l.outbox(t, ty) {
				if d["applicationId"] == app {
					events++
				}
			}
		}
		if events != 1 {
			t.Errorf("round %d: %d decision events for the application, want 1", round, events)
		}
	}
}

// Two approvals of two applications of one lead at once: both are
// recorded, and the lead's first approval is counted once in the rollups,
// whichever decision waited for the other (the rows the hooks kept equal
// a rebuild's).
func TestConcurrentApprovalsOfOneLead(t *testing.T) {
	l := newLendingEnv(t)
	ctx := context.Background()
	if err := analytics.RebuildRollups(ctx, l.DB.Client, l.Org.ID); err != nil { // built: the hooks keep them from here
		t.Fatal(err)
	}
	first, second := l.lender(t, "First Approval Capital", nil), l.lender(t, "Second Approval Capital", nil)
	for round := range raceRounds {
		lead := l.lead(t, nil)
		apps := []string{l.submit(t, lead, first, nil)["id"].(string), l.submit(t, lead, second, nil)["id"].(string)}
		got := l.together(gqlCase{approveDoc, map[string]any{"id": apps[0]}}, gqlCase{approveDoc, map[string]any{"id": apps[1]}})
		sound(t, got)
		for i, a := range got {
			if a.ext != nil {
				t.Fatalf("round %d: approval %d answered %v", round, i, a.ext)
			}
		}
	}
	kept := rollupRows(t, l.DB.Client, l.Org.ID)
	if err := analytics.RebuildRollups(ctx, l.DB.Client, l.Org.ID); err != nil {
		t.Fatal(err)
	}
	if d := rowsDiff(rollupRows(t, l.DB.Client, l.Org.ID), kept); d != "" {
		t.Fatalf("the rollups kept through concurrent approvals differ from a rebuild's:\n%s", d)
	}
}

// A funding and a move of another application of the same lead at once
// (an approval, a submission): both end well, and the lead ends in won,
// never moved back by the other operation.
func TestConcurrentFundingAndOtherMovesOfTheLead(t *testing.T) {
	l := newLendingEnv(t)
	funder, other, late := l.lender(t, "Funder Capital", nil), l.lender(t, "Other Capital", nil), l.lender(t, "Late Capital", nil)
	for round := range raceRounds {
		lead := l.lead(t, nil)
		funded := l.approved(t, lead, funder, "10000", nil)
		pending := l.submit(t, lead, other, nil)["id"].(string)
		got := l.together(
			gqlCase{fundDoc, map[string]any{"id": funded}},
			gqlCase{approveDoc, map[string]any{"id": pending}},
			gqlCase{submitDoc, submitInput(lead, late, map[string]any{"requestedAmount": "5000"})},
		)
		sound(t, got)
		if got[0].ext != nil {
			t.Fatalf("round %d: the funding failed: %v", round, got[0].ext)
		}
		if a := got[1].ext; a != nil && (a["code"] != "CONFLICT" || a["from"] != "withdrawn" || a["to"] != "approved") {
			t.Fatalf("round %d: the approval answered %v, want success or CONFLICT withdrawn -> approved", round, a)
		}
		if got[2].ext != nil {
			t.Fatalf("round %d: the submission failed: %v", round, got[2].ext)
		}
		if st := l.leadState(t, lead); slotOf(st) != "won" || st["convertedAt"] == nil {
			t.Errorf("round %d: the lead ends in %s (convertedAt %v), want won", round, slotOf(st), st["convertedAt"])
		}
		if a := l.application(t, pending); a["status"] != "withdrawn" || a["withdrawnReason"] != "funded_elsewhere" {
			t.Errorf("round %d: the other application ends %v (%v), want withdrawn by the funding", round, a["status"], a["withdrawnReason"])
		}
	}
}

// Two submissions of one lead to one lender at once: one application.
func TestConcurrentSubmissionsToOneLender(t *testing.T) {
	l := newLendingEnv(t)
	lender := l.lender(t, "Submission Race Capital", nil)
	for round := range raceRounds {
		lead := l.lead(t, nil)
		in := submitInput(lead, lender, map[string]any{"requestedAmount": "5000"})
		got := l.together(gqlCase{submitDoc, in}, gqlCase{submitDoc, in})
		sound(t, got)
		ok := 0
		for _, a := range got {
			switch {
			case a.ext == nil:
				ok++
			case a.ext["code"] != "CONFLICT" || a.ext["field"] != "lenderId":
				t.Fatalf("round %d: the second submission answered %v, want CONFLICT on lenderId", round, a.ext)
			}
		}
		if ok != 1 {
			t.Fatalf("round %d: %d submissions succeeded, want 1", round, ok)
		}
	}
}

// Payments and clawbacks of one commission at once: none is lost, and two
// clawbacks that together exceed what was paid cannot both pass.
func TestConcurrentCommissionPayments(t *testing.T) {
	l := newLendingEnv(t)
	lender := l.lender(t, "Payment Race Capital", nil)
	pay := `mutation($d: ID!, $a: Amount!) { recordCommissionPayment(input: {dealId: $d, amount: $a}) { id } }`
	claw := `mutation($d: ID!, $a: Amount!) { recordCommissionClawback(input: {dealId: $d, amount: $a}) { id } }`
	for round := range raceRounds {
		deal := l.fund(t, map[string]any{"applicationId": l.approved(t, l.lead(t, nil), lender, "5000", nil), "commission": "100"})["id"]
		got := l.together(gqlCase{pay, map[string]any{"d": deal, "a": "30"}}, gqlCase{pay, map[string]any{"d": deal, "a": "70.01"}})
		sound(t, got)
		for _, a := range got {
			if a.ext != nil {
				t.Fatalf("round %d: a payment failed: %v", round, a.ext)
			}
		}
		got = l.together(gqlCase{claw, map[string]any{"d": deal, "a": "60"}}, gqlCase{claw, map[string]any{"d": deal, "a": "60"}})
		sound(t, got)
		refused := 0
		for _, a := range got {
			if a.ext != nil {
				if a.ext["code"] != "VALIDATION_ERROR" || a.ext["field"] != "amount" {
					t.Fatalf("round %d: a clawback answered %v", round, a.ext)
				}
				refused++
			}
		}
		if refused != 1 {
			t.Fatalf("round %d: %d of two clawbacks of 60 from 100.01 refused, want 1", round, refused)
		}
		c := l.must(t, `query($d: ID) { commissionsPage(dealId: $d) { nodes { paidAmount status payments { id } } } }`, map[string]any{"d": deal})
		got0 := c["commissionsPage"].(map[string]any)["nodes"].([]any)[0].(map[string]any)
		if got0["paidAmount"] != "40.01" || got0["status"] != "clawed_back" || len(got0["payments"].([]any)) != 3 {
			t.Errorf("round %d: the commission ends %v, want 40.01 clawed_back with 3 payments", round, got0)
		}
	}
}
