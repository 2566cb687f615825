package autorun_test

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks"
)

// portal is a lender portal that posts signed JSON to an inbound
// endpoint of a server over a real database.
type portal struct {
	e      *resttest.Env
	id     string // the endpoint's
	path   string
	secret string
}

// gql runs a GraphQL operation with the organization's key and fails the
// test on any error.
func gql(t *testing.T, e *resttest.Env, query string, vars map[string]any) map[string]any {
	t.Helper()
	r := e.Post("/graphql", e.Key, map[string]any{"query": query, "variables": vars})
	if r.Status != http.StatusOK || r.Body["errors"] != nil {
		t.Fatalf("GraphQL %d: %s", r.Status, r.Raw)
	}
	return r.Body["data"].(map[string]any)
}

// post sends body signed as the service's own deliveries are (timestamp
// and raw body); the portal's request must be acknowledged.
func (p portal) post(t *testing.T, body string) {
	t.Helper()
	now := time.Now()
	r := p.e.Do(resttest.Request{Method: "POST", Path: p.path, Body: body, Header: map[string]string{
		"X-Webhook-Timestamp": strconv.FormatInt(now.Unix(), 10), "X-Webhook-Signature": webhooks.Sign(p.secret, now, []byte(body)),
	}})
	if r.Status != http.StatusOK {
		t.Fatalf("inbound POST: %d %s", r.Status, r.Raw)
	}
}

// runs waits until the automation has n runs, none queued, and returns
// their attributes, newest first.
func runs(t *testing.T, e *resttest.Env, automation string, n int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := e.Get("/v1/automations/"+automation+"/runs?limit=100", e.Key)
		if r.Status != http.StatusOK {
			t.Fatalf("runs: %d %s", r.Status, r.Raw)
		}
		var out []map[string]any
		queued := false
		for _, item := range r.Items() {
			a := item["attributes"].(map[string]any)
			queued = queued || a["status"] == "queued"
			out = append(out, a)
		}
		if len(out) == n && !queued {
			return out
		}
		if len(out) > n || time.Now().After(deadline) {
			t.Fatalf("runs did not settle at %d: %s", n, r.Raw)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

const applicationFields = `status approvedAmount interestRate rateType termMonths paymentFrequency
	conditions declineReason lead { stage { semanticSlot } }
	fundedDeal { id fundedAmount paybackAmount advisorId commission { expectedAmount paidAmount status payments { amount reference } } }`

// A lender's portal answers through one signed inbound endpoint: its
// decision approves the application it names by the lender's id and
// reference, its funding notice funds it, its remittance pays the
// commission, each through the dashboard's operations and with their
// events in the outbox; an approval of an application the lender had
// declined fails its run with the refused move, at once.
func TestLenderPortalThroughAnInboundEndpoint(t *testing.T) {
	e := resttest.New(t)
	lender := gql(t, e, `mutation { createLender(input: {name: "Tidewater Merchant Capital", commissionRate: "0.08"}) { id } }`, nil)["createLender"].(map[string]any)["id"].(string)
	submit := func(business, ref string) string {
		lead := gql(t, e, `mutation($b: String!) { createLead(input: {businessName: $b, requestedAmount: "60000"}) { id } }`,
			map[string]any{"b": business})["createLead"].(map[string]any)["id"].(string)
		return gql(t, e, `mutation($lead: ID!, $lender: ID!, $ref: String!) {
			submitApplication(input: {leadId: $lead, lenderId: $lender, externalRef: $ref}) { id } }`,
			map[string]any{"lead": lead, "lender": lender, "ref": ref})["submitApplication"].(map[string]any)["id"].(string)
	}
	approved, declined := submit("Harborview Dental PLLC", "TMC-20417"), submit("Quayside Bistro LLC", "TMC-20418")
	gql(t, e, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: DECLINED, reason: "Too many positions"}) { status } }`,
		map[string]any{"id": declined})

	ep := e.Post("/v1/inbound-endpoints", e.Key, map[string]any{"name": "Tidewater portal", "mapping": map[string]string{
		"event": "$.event", "lenderId": "$.lender_id", "externalRef": "$.file.reference", "decision": "$.file.status",
		"approvedAmount": "$.offer.amount", "interestRate": "$.offer.factor", "rateType": "$.offer.type",
		"termMonths": "$.offer.term", "paymentFrequency": "$.offer.frequency", "conditions": "$.offer.stips",
		"reason": "$.file.decline_reason", "fundedAmount": "$.funding.amount", "fundedAt": "$.funding.date",
		"amount": "$.remittance.amount", "paidAt": "$.remittance.date", "reference": "$.remittance.id",
	}})
	if ep.Status != http.StatusCreated {
		t.Fatalf("endpoint: %d %s", ep.Status, ep.Raw)
	}
	p := portal{e: e, id: ep.Data()["id"].(string), path: ep.Attr("path").(string), secret: ep.Attr("secret").(string)}
	automate := func(name, when, action string) string {
		r := e.Post("/v1/automations", e.Key, map[string]any{"name": name, "trigger": map[string]any{"endpointId": p.id},
			"conditions": []map[string]any{{"path": "$.event", "op": "eq", "value": when}},
			"actions":    []map[string]any{{"type": action}}})
		if r.Status != http.StatusCreated {
			t.Fatalf("automation %s: %d %s", name, r.Status, r.Raw)
		}
		return r.Data()["id"].(string)
	}
	decide := automate("Tidewater decisions", "decision", "decide_application")
	fund := automate("Tidewater fundings", "funded", "fund_deal")
	pay := automate("Tidewater remittances", "commission", "record_commission_payment")
	app := func(id string) map[string]any {
		data := gql(t, e, `query($id: ID!) { applications(first: 1, where: {id: $id}) { edges { node { `+applicationFields+` } } } }`, map[string]any{"id": id})
		edges := data["applications"].(map[string]any)["edges"].([]any)
		if len(edges) != 1 {
			t.Fatalf("application %s: %v", id, data)
		}
		return edges[0].(map[string]any)["node"].(map[string]any)
	}

	p.post(t, `{"event":"decision","lender_id":"`+lender+`","file":{"reference":"TMC-20417","status":"APPROVED"},
		"offer":{"amount":50000,"factor":1.35,"type":"factor","term":12,"frequency":"daily","stips":["voided check","bank statements"]}}`)
	if run := runs(t, e, decide, 1)[0]; run["status"] != "succeeded" {
		t.Fatalf("decision run: %v", run)
	}
	a := app(approved)
	if a["status"] != "approved" || a["approvedAmount"] != "50000.00" || a["interestRate"] != "1.35" || a["rateType"] != "factor" ||
		a["termMonths"] != 12.0 || a["paymentFrequency"] != "daily" || fmt.Sprint(a["conditions"]) != "[voided check bank statements]" ||
		a["lead"].(map[string]any)["stage"].(map[string]any)["semanticSlot"] != "approved" {
		t.Errorf("approved application = %v", a)
	}

	fundedAt := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	p.post(t, `{"event":"funded","lender_id":"`+lender+`","file":{"reference":"TMC-20417"},
		"funding":{"amount":"50000.00","date":"`+fundedAt.Format(time.RFC3339)+`"}}`)
	if run := runs(t, e, fund, 2)[0]; run["status"] != "succeeded" {
		t.Fatalf("funding run: %v", run)
	}
	a = app(approved)
	deal, _ := a["fundedDeal"].(map[string]any)
	if a["status"] != "funded" || deal == nil || deal["fundedAmount"] != "50000.00" || deal["paybackAmount"] != "67500.00" ||
		a["lead"].(map[string]any)["stage"].(map[string]any)["semanticSlot"] != "won" {
		t.Fatalf("funded application = %v", a)
	}
	if c := deal["commission"].(map[string]any); c["expectedAmount"] != "4000.00" || c["status"] != "pending" {
		t.Errorf("commission at funding = %v", c)
	}

	p.post(t, `{"event":"commission","lender_id":"`+lender+`","file":{"reference":"TMC-20417"},
		"remittance":{"amount":4000,"date":"`+fundedAt.Add(30*time.Minute).Format(time.RFC3339)+`","id":"RM-5521"}}`)
	if run := runs(t, e, pay, 3)[0]; run["status"] != "succeeded" {
		t.Fatalf("remittance run: %v", run)
	}
	c := app(approved)["fundedDeal"].(map[string]any)["commission"].(map[string]any)
	if c["paidAmount"] != "4000.00" || c["status"] != "paid" || fmt.Sprint(c["payments"]) != "[map[amount:4000.00 reference:RM-5521]]" {
		t.Errorf("commission after the remittance = %v", c)
	}
	// Each request ran each automation: the two whose event it was not
	// were skipped.
	for _, id := range []string{decide, fund, pay} {
		skipped := 0
		for _, run := range runs(t, e, id, 3) {
			if run["status"] == "skipped" {
				skipped++
			}
		}
		if skipped != 2 {
			t.Errorf("automation %s: %d skipped runs, want 2", id, skipped)
		}
	}

	evs, err := e.DB.Client.WebhookEvent.Query().Where(webhookevent.OrgID(e.Org.ID)).
		Order(webhookevent.ByOccurredAt(), webhookevent.ByID()).All(rule.SystemContext(t.Context()))
	if err != nil {
		t.Fatal(err)
	}
	var lending []string
	for _, ev := range evs {
		if strings.HasPrefix(ev.EventType, "application.") || strings.HasPrefix(ev.EventType, "deal.") {
			lending = append(lending, ev.EventType)
		}
		switch ev.EventType {
		case event.ApplicationApproved:
			if ev.Data["applicationId"] != approved || ev.Data["approvedAmount"] != "50000.00" || ev.Data["interestRate"] != "1.35" {
				t.Errorf("application.approved = %v", ev.Data)
			}
		case event.DealFunded:
			if ev.Data["dealId"] != deal["id"] || ev.Data["fundedAmount"] != "50000.00" || ev.Data["commission"] != "4000.00" {
				t.Errorf("deal.funded = %v", ev.Data)
			}
		case event.DealCommissionPaid:
			if ev.Data["amount"] != "4000.00" || ev.Data["status"] != "paid" || ev.Data["paidAt"] != fundedAt.Add(30*time.Minute).Format("2006-01-02T15:04:05.000Z") {
				t.Errorf("deal.commission_paid = %v", ev.Data)
			}
		}
	}
	want := []string{event.ApplicationSubmitted, event.ApplicationSubmitted, event.ApplicationDeclined,
		event.ApplicationApproved, event.DealFunded, event.DealCommissionPaid}
	if !slices.Equal(lending, want) {
		t.Errorf("lending events %v, want %v", lending, want)
	}

	// The lender approves the file it declined: the transition table
	// refuses it, and the run fails at its first attempt, saying so.
	p.post(t, `{"event":"decision","lender_id":"`+lender+`","file":{"reference":"TMC-20418","status":"approved"},
		"offer":{"amount":"20000.00","factor":"1.4","type":"factor","term":6}}`)
	run := runs(t, e, decide, 4)[0]
	if run["status"] != "failed" || run["attempts"] != 1.0 ||
		run["error"] != "status: actions[0] (decide_application): the application cannot move from declined to approved" {
		t.Errorf("refused run = %v", run)
	}
	if a := app(declined); a["status"] != "declined" || a["approvedAmount"] != nil {
		t.Errorf("declined application after the refused approval = %v", a)
	}
	logged := e.Get("/v1/inbound-endpoints/"+p.id+"/requests", e.Key).Items()[0]["attributes"].(map[string]any)
	if logged["status"] != "failed" || !strings.Contains(fmt.Sprint(logged["error"]), "cannot move from declined to approved") {
		t.Errorf("inbound request log = %v", logged)
	}
	// The failure carries the code the mutation gives (CONFLICT), on both
	// surfaces; a finished run has no next attempt on either.
	if run["errorCode"] != "CONFLICT" || logged["errorCode"] != "CONFLICT" || run["nextAttemptAt"] != nil {
		t.Errorf("REST: run errorCode %v, request errorCode %v, run nextAttemptAt %v; want CONFLICT, CONFLICT, null",
			run["errorCode"], logged["errorCode"], run["nextAttemptAt"])
	}
	data := gql(t, e, `query($a: ID!, $p: ID!) { automationRuns(automationId: $a, limit: 1) { nodes { status error errorCode nextAttemptAt } }
		inboundRequests(endpointId: $p, limit: 1) { nodes { status errorCode } } }`, map[string]any{"a": decide, "p": p.id})
	if got := fmt.Sprint(data); !strings.Contains(got, "errorCode:CONFLICT nextAttemptAt:<nil>") || !strings.Contains(got, "map[errorCode:CONFLICT status:failed]") {
		t.Errorf("GraphQL: %s", got)
	}
}
