package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/webhookdelivery"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/event/eventtest"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

var lendingEvents = []string{event.ApplicationSubmitted, event.ApplicationApproved, event.ApplicationDeclined,
	event.DealFunded, event.DealCommissionPaid}

// TestLendingEventsDelivered drives the lending half through a real
// subscription: each event arrives once, with exactly the fields of SPEC
// 6.3 and PRODUCT 1.8, of their types, valid against the catalog's schema.
// Refused moves and a rolled-back funding emit nothing.
func TestLendingEventsDelivered(t *testing.T) {
	l := newLendingEnv(t)
	rc := webhookstest.NewReceiver(t, webhookstest.OK)
	r := l.Post("/v1/app-webhooks", l.key, map[string]any{"url": rc.URL, "events": lendingEvents})
	if r.Status != http.StatusCreated {
		t.Fatalf("subscribing: %s", r.Raw)
	}
	sub, err := uuid.Parse(strings.TrimPrefix(r.Data()["id"].(string), "whsub_"))
	if err != nil {
		t.Fatal(err)
	}
	advisor := l.NewUser(l.Org.ID, "Ada", "Advisor", "advisor", "")
	alpha := l.lender(t, "Alpha Funding", map[string]any{"commissionRate": "0.015"})
	beta := l.lender(t, "Beta Capital", nil)
	lead := l.lead(t, map[string]any{"assignToAdvisorId": advisor.ID, "requestedAmount": "25000.5"})

	appA := l.submit(t, lead, alpha, map[string]any{})["id"].(string) // the lead's amount
	appB := l.submit(t, lead, beta, map[string]any{"requestedAmount": "30000"})["id"].(string)
	l.must(t, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, approvedAmount: "24000", interestRate: "1.35", rateType: factor, termMonths: 9}) { id } }`,
		map[string]any{"id": appA})
	l.must(t, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: DECLINED, reason: "Industry excluded", declineCategory: industry}) { id } }`,
		map[string]any{"id": appB})

	// Refused moves emit nothing.
	for _, c := range []struct{ doc, app string }{{declineDoc, appB}, {approveDoc, appB}, {underwriteDoc, appA}, {fundDoc, appB}} {
		if ext := l.refused(t, c.doc, map[string]any{"id": c.app}); ext["code"] != "CONFLICT" {
			t.Errorf("%s: %v, want CONFLICT", c.doc, ext)
		}
	}
	// A funding whose operation fails in a later field keeps nothing: no
	// deal, no moves, no event.
	data, ext := gqlExt(t, l.Env, l.key, `mutation($id: ID!) { a: fundDeal(input: {applicationId: $id}) { id } b: createLead(input: {email: "not an email"}) { id } }`,
		map[string]any{"id": appA})
	if ext == nil || ext["code"] != "VALIDATION_ERROR" {
		t.Fatalf("the operation did not fail in its second field: %v %v", data, ext)
	}
	if a := l.application(t, appA); a["status"] != "approved" || a["fundedDealId"] != nil {
		t.Errorf("the rolled-back funding left the application %v", a)
	}
	if st := l.leadState(t, lead); slotOf(st) != "approved" || st["convertedAt"] != nil {
		t.Errorf("the rolled-back funding left the lead %v", st)
	}
	deals := l.must(t, `{ fundedDealsPage { total } commissionsPage { total } }`, nil)
	if deals["fundedDealsPage"].(map[string]any)["total"] != 0.0 || deals["commissionsPage"].(map[string]any)["total"] != 0.0 {
		t.Errorf("the rolled-back funding left %v", deals)
	}
	if n := len(l.outbox(t, event.DealFunded)); n != 0 {
		t.Errorf("the rolled-back funding left %d deal.funded events", n)
	}

	deal := l.fund(t, map[string]any{"applicationId": appA})
	paidAt := time.Date(2024, 6, 7, 8, 9, 10, 0, time.UTC)
	c := l.must(t, `mutation($d: ID!, $at: Time) { recordCommissionPayment(input: {dealId: $d, amount: "100.5", paidAt: $at, reference: "ACH-1"}) { id } }`,
		map[string]any{"d": deal["id"], "at": paidAt.Format(time.RFC3339)})["recordCommissionPayment"].(map[string]any)
	// A clawback has no event in the catalog.
	l.must(t, `mutation($d: ID!) { recordCommissionClawback(input: {dealId: $d, amount: "0.50"}) { id } }`, map[string]any{"d": deal["id"]})

	org := l.Org.ID.String()
	want := []struct {
		event string
		data  map[string]any
	}{
		{event.ApplicationSubmitted, map[string]any{"applicationId": appA, "orgId": org, "lenderId": alpha, "lenderName": "Alpha Funding",
			"requestedAmount": "25000.50", "submittedBy": l.actor}},
		{event.ApplicationSubmitted, map[string]any{"applicationId": appB, "orgId": org, "lenderId": beta, "lenderName": "Beta Capital",
			"requestedAmount": "30000.00", "submittedBy": l.actor}},
		{event.ApplicationApproved, map[string]any{"applicationId": appA, "orgId": org, "lenderId": alpha,
			"approvedAmount": "24000.00", "interestRate": "1.35", "termMonths": json.Number("9")}},
		{event.ApplicationDeclined, map[string]any{"applicationId": appB, "orgId": org, "lenderId": beta, "reason": "Industry excluded"}},
		{event.DealFunded, map[string]any{"dealId": deal["id"], "orgId": org, "applicationId": appA, "lenderId": alpha,
			"fundedAmount": "24000.00", "commission": "360.00", "advisorId": advisor.ID.String()}},
		{event.DealCommissionPaid, map[string]any{"commissionId": c["id"], "dealId": deal["id"], "orgId": org, "lenderId": alpha,
			"advisorId": advisor.ID.String(), "amount": "100.50", "paidAt": "2024-06-07T08:09:10.000Z", "paidAmount": "100.50",
			"expectedAmount": "360.00", "status": "partially_paid"}},
	}

	// Every delivery of the subscription is made once, at the first attempt.
	deliveries := waitDelivered(t, l, sub, len(want))
	got := rc.Wait(t, len(want))
	if len(got) != len(want) || deliveries != len(want) {
		t.Fatalf("%d deliveries received, %d made; want %d", len(got), deliveries, len(want))
	}
	ids := map[string]bool{}
	var received []map[string]any
	for _, d := range got {
		var env struct {
			ID, Event, Timestamp string
			Data                 map[string]any
		}
		dec := json.NewDecoder(bytes.NewReader(d.Body))
		dec.UseNumber() // to tell an integer from 9.0
		if err := dec.Decode(&env); err != nil {
			t.Fatalf("a delivery's body: %v", err)
		}
		if !strings.HasPrefix(env.ID, "evt_") || ids[env.ID] {
			t.Errorf("event id %q: not evt_ or delivered twice", env.ID)
		}
		ids[env.ID] = true
		if err := eventtest.Check(env.Event, d.Env.Data); err != nil {
			t.Error(err)
		}
		env.Data["event"] = env.Event
		received = append(received, env.Data)
	}
	for _, w := range want {
		w.data["event"] = w.event
		i := slices.IndexFunc(received, func(d map[string]any) bool { return sameData(d, w.data) })
		if i < 0 {
			t.Errorf("no delivery of %s with %v;\nreceived %v", w.event, w.data, received)
			continue
		}
		received = slices.Delete(received, i, i+1)
	}
	for _, d := range received {
		t.Errorf("an unexpected delivery: %v", d)
	}
	amount := regexp.MustCompile(`^[0-9]+\.[0-9]{2}$`)
	for _, d := range got {
		for k, v := range d.Env.Data {
			if strings.HasSuffix(k, "Amount") || k == "amount" || k == "commission" {
				if s, ok := v.(string); !ok || !amount.MatchString(s) {
					t.Errorf("%s.%s = %#v, want a string with two decimals", d.Env.Event, k, v)
				}
			}
		}
	}
	// The outbox holds nothing more of these types than was delivered.
	total := 0
	for _, ty := range lendingEvents {
		total += len(l.outbox(t, ty))
	}
	if total != len(want) {
		t.Errorf("the outbox holds %d lending events, want %d", total, len(want))
	}
}

// sameData reports whether got has exactly want's keys and values.
func sameData(got, want map[string]any) bool {
	if !slices.Equal(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want))) {
		return false
	}
	for k, v := range want {
		if fmt.Sprintf("%T %#v", got[k], got[k]) != fmt.Sprintf("%T %#v", v, v) { // json.Number: an integer
			return false
		}
	}
	return true
}

// waitDelivered waits until the subscription has n deliveries, every one
// delivered, and returns how many it has (more than n is a failure the
// caller reports).
func waitDelivered(t *testing.T, l *lendingEnv, sub uuid.UUID, n int) int {
	t.Helper()
	ctx := rule.SystemContext(context.Background())
	deadline := time.Now().Add(30 * time.Second)
	for {
		all, err := l.DB.Client.WebhookDelivery.Query().Where(webhookdelivery.SubscriptionID(sub)).All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		done := len(all) >= n
		for _, d := range all {
			done = done && d.Status == webhookdelivery.StatusSucceeded && d.Attempts == 1
		}
		if done || time.Now().After(deadline) {
			if !done {
				t.Fatalf("after 30s: %d deliveries, not all delivered at the first attempt", len(all))
			}
			return len(all)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
