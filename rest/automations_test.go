package rest_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

// automate creates an automation and returns its id.
func automate(t *testing.T, e *resttest.Env, body map[string]any) string {
	t.Helper()
	r := e.Post("/v1/automations", e.Key, body)
	mustStatus(t, r, http.StatusCreated)
	return r.Data()["id"].(string)
}

// send posts a signed JSON body to the fixture's endpoint.
func (f inboundFixture) send(t *testing.T, body string) {
	t.Helper()
	mustStatus(t, f.post(body, map[string]string{"X-svc-Signature": rawSig(f.secret, []byte(body))}), http.StatusOK)
}

// settle waits until the automation has n runs and none is queued, and
// returns them newest first.
func settle(t *testing.T, e *resttest.Env, automationID string, n int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := e.Get("/v1/automations/"+automationID+"/runs?limit=100", e.Key)
		mustStatus(t, r, http.StatusOK)
		runs := r.Items()
		queued := slices.ContainsFunc(runs, func(run map[string]any) bool { return attr(run, "status") == "queued" })
		if len(runs) >= n && !queued {
			if len(runs) > n {
				t.Fatalf("%d runs, want %d: %s", len(runs), n, r.Raw)
			}
			return runs
		}
		if time.Now().After(deadline) {
			t.Fatalf("runs did not settle: %s", r.Raw)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func attr(item map[string]any, name string) any {
	return item["attributes"].(map[string]any)[name]
}

func TestAutomationCreatesLeadFromNestedPayload(t *testing.T) {
	f := newInbound(t, map[string]any{
		"businessName":             "$.application.business.legalName",
		"contactFirstName":         "$.application.owners[?@.primary == true].first",
		"email":                    "$.application.owners[?@.primary == true].email",
		"monthlyRevenue":           "$.application.business.revenue.monthly",
		"customFields.loanPurpose": "$.application.purpose",
		"externalIds.partner":      "$.id",
		"industry":                 "$.application.business.industry", // absent: left unset
	})
	e := f.e
	rc := webhookstest.NewReceiver(t, webhookstest.OK)
	subscribe(t, e, rc.URL, "lead.created")
	advisor := e.NewUser(e.Org.ID, "Ada", "Advisor", "advisor", "")
	id := automate(t, e, map[string]any{
		"name":    "Partner applications",
		"trigger": map[string]any{"endpointId": f.id},
		"actions": []map[string]any{
			{"type": "create_lead"},
			{"type": "add_tags", "tags": []string{"partner", "inbound"}},
			{"type": "assign_advisor", "advisorId": advisor.ID},
		},
	})
	f.send(t, `{"id":"app-981","application":{"purpose":"equipment","business":{"legalName":"Nested Bakery LLC",
		"revenue":{"monthly":42000.5}},"owners":[{"first":"Bo","email":"bo@x.example","primary":false},
		{"first":"Cy","email":"cy@nested.example","primary":true}]}}`)

	runs := settle(t, e, id, 1)
	run := runs[0]
	if attr(run, "status") != "succeeded" || attr(run, "attempts") != 1.0 {
		t.Fatalf("run = %v", run)
	}
	if applied := attr(run, "applied").([]any); len(applied) != 3 {
		t.Errorf("applied = %v", applied)
	}
	r := e.Get("/v1/leads/"+attr(run, "leadId").(string), e.Key)
	mustStatus(t, r, http.StatusOK)
	want := map[string]any{"businessName": "Nested Bakery LLC", "contactFirstName": "Cy", "email": "cy@nested.example",
		"monthlyRevenue": "42000.5", "source": "api", "primaryAdvisorId": advisor.ID.String(), "industry": nil}
	for k, v := range want {
		if got := r.Attr(k); got != v {
			t.Errorf("%s = %v, want %v", k, got, v)
		}
	}
	if cf := r.Attr("customFields").(map[string]any); cf["loanPurpose"] != "equipment" {
		t.Errorf("customFields = %v", cf)
	}
	if ext := r.Attr("externalIds").(map[string]any); ext["partner"] != "app-981" {
		t.Errorf("externalIds = %v", ext)
	}
	if tags := r.Attr("tags").([]any); len(tags) != 2 {
		t.Errorf("tags = %v", tags)
	}
	if !strings.HasPrefix(r.Attr("createdBy").(string), "automation:") {
		t.Errorf("createdBy = %v", r.Attr("createdBy"))
	}
	got := rc.Wait(t, 1)
	if got[0].Env.Event != "lead.created" || got[0].Env.Data["businessName"] != "Nested Bakery LLC" {
		t.Errorf("delivery = %s", got[0].Body)
	}
	logged := f.e.Get(f.requestsPath, e.Key).Items()[0]
	if attr(logged, "status") != "processed" {
		t.Errorf("inbound request status = %v", attr(logged, "status"))
	}
}

func TestAutomationRoundRobinOverTeam(t *testing.T) {
	f := newInbound(t, map[string]any{"businessName": "$.name"})
	e := f.e
	var advisors []string
	for _, name := range []string{"Ann", "Ben", "Cat"} {
		advisors = append(advisors, e.NewUser(e.Org.ID, name, "Closer", "advisor", "Closers").ID.String())
	}
	e.NewUser(e.Org.ID, "Dee", "Dialer", "agent", "Closers") // agents are not assigned leads
	team := e.NewUser(e.Org.ID, "Eve", "Lead", "advisor", "Closers")
	advisors = append(advisors, team.ID.String())
	id := automate(t, e, map[string]any{
		"name":    "Round robin",
		"trigger": map[string]any{"endpointId": f.id},
		"actions": []map[string]any{{"type": "create_lead"}, {"type": "assign_advisor", "teamId": team.TeamID}},
	})
	for i := range 8 {
		f.send(t, fmt.Sprintf(`{"name":"Lead %d"}`, i))
	}
	runs := settle(t, e, id, 8)
	slices.Reverse(runs) // oldest first
	counts := map[string]int{}
	for i, run := range runs {
		l := e.Get("/v1/leads/"+attr(run, "leadId").(string), e.Key)
		got := l.Attr("primaryAdvisorId").(string)
		if want := advisors[i%len(advisors)]; got != want {
			t.Errorf("lead %d went to %s, want %s", i, got, want)
		}
		counts[got]++
	}
	if len(counts) != 4 {
		t.Errorf("assignments = %v, want two each over four advisors", counts)
	}
}

func TestAutomationFailedRunIsRetriedAndNeverHalfApplied(t *testing.T) {
	e := resttest.New(t, fastRetries(0, 50*time.Millisecond, 50*time.Millisecond, time.Hour))
	r := e.Post("/v1/inbound-endpoints", e.Key, map[string]any{"name": "Forms", "mapping": map[string]any{"businessName": "$.name"}})
	mustStatus(t, r, http.StatusCreated)
	f := inboundFixture{e: e, id: r.Data()["id"].(string), path: r.Attr("path").(string), secret: r.Attr("secret").(string)}
	// The team's only member is an agent: it has no advisors yet.
	first := e.NewUser(e.Org.ID, "Only", "Agent", "agent", "Empty")
	id := automate(t, e, map[string]any{
		"name":    "Needs an advisor",
		"trigger": map[string]any{"endpointId": f.id},
		"actions": []map[string]any{{"type": "create_lead"}, {"type": "assign_advisor", "teamId": first.TeamID}},
	})
	f.send(t, `{"name":"Patient Co"}`)
	// Three attempts fail; the fourth waits an hour.
	deadline := time.Now().Add(20 * time.Second)
	var run map[string]any
	for {
		run = e.Get("/v1/automations/"+id+"/runs", e.Key).Items()[0]
		if attr(run, "attempts") == 3.0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if attr(run, "status") != "queued" || !strings.Contains(attr(run, "error").(string), "actions[1] (assign_advisor)") {
		t.Fatalf("run after failures = %v", run)
	}
	if n := e.Get("/v1/leads", e.Key).Meta()["total"]; n != 0.0 {
		t.Fatalf("%v leads exist after failed runs: the create_lead of a failed run was kept", n)
	}
	// Fix the cause; the next attempt (brought forward) succeeds, once.
	e.NewUser(e.Org.ID, "Now", "Here", "advisor", "Empty")
	e.Clock.Advance(time.Hour)
	runs := settle(t, e, id, 1)
	if attr(runs[0], "status") != "succeeded" || attr(runs[0], "attempts") != 4.0 || attr(runs[0], "error") != nil {
		t.Fatalf("run = %v", runs[0])
	}
	leads := e.Get("/v1/leads", e.Key)
	if leads.Meta()["total"] != 1.0 || leads.Items()[0]["attributes"].(map[string]any)["businessName"] != "Patient Co" {
		t.Errorf("leads = %s", leads.Raw)
	}
}

func TestAutomationUpdateLeadRetriesUntilTheLeadExists(t *testing.T) {
	e := resttest.New(t, fastRetries(0, 30*time.Millisecond, 30*time.Millisecond, 30*time.Millisecond, 30*time.Millisecond, time.Second))
	r := e.Post("/v1/inbound-endpoints", e.Key, map[string]any{"name": "Bureau", "mapping": map[string]any{
		"ref": "$.applicant.ref", "requestedAmount": "$.amount",
	}})
	mustStatus(t, r, http.StatusCreated)
	f := inboundFixture{e: e, id: r.Data()["id"].(string), path: r.Attr("path").(string), secret: r.Attr("secret").(string)}
	id := automate(t, e, map[string]any{
		"name":    "Bureau updates",
		"trigger": map[string]any{"endpointId": f.id},
		"actions": []map[string]any{{"type": "update_lead", "matchBy": "externalIds.bureau", "matchField": "ref"}, {"type": "mark_do_not_call", "reason": "bureau flag"}},
	})
	f.send(t, `{"applicant":{"ref":"B-77"},"amount":125000}`)
	time.Sleep(100 * time.Millisecond) // a few failed attempts
	created := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Late Arrival", "externalIds": map[string]any{"bureau": "B-77"}})
	mustStatus(t, created, http.StatusCreated)
	runs := settle(t, e, id, 1)
	if attr(runs[0], "status") != "succeeded" || attr(runs[0], "attempts").(float64) < 2 {
		t.Fatalf("run = %v", runs[0])
	}
	l := e.Get("/v1/leads/"+created.Data()["id"].(string), e.Key)
	if l.Attr("requestedAmount") != "125000" || l.Attr("isDoNotCall") != true || l.Attr("dncReason") != "bureau flag" {
		t.Errorf("lead = %s", l.Raw)
	}
}

func TestAutomationRequiredFieldsAndConditions(t *testing.T) {
	f := newInbound(t, map[string]any{"businessName": "$.name", "email": "$.email", "requestedAmount": "$.amount"})
	e := f.e
	required := automate(t, e, map[string]any{
		"name": "Needs email", "trigger": map[string]any{"endpointId": f.id},
		"requiredFields": []string{"email"}, "actions": []map[string]any{{"type": "create_lead"}},
	})
	big := automate(t, e, map[string]any{
		"name": "Big tickets", "trigger": map[string]any{"endpointId": f.id},
		"conditions": []map[string]any{{"path": "$.requestedAmount", "op": "gte", "value": 100000}},
		"actions":    []map[string]any{{"type": "create_lead"}, {"type": "add_tags", "tags": []string{"big"}}},
	})
	f.send(t, `{"name":"No Email Inc","amount":"250000"}`)
	f.send(t, `{"name":"Small Co","email":"s@small.example","amount":5000}`)

	runs := settle(t, e, required, 2)
	statuses := []any{attr(runs[0], "status"), attr(runs[1], "status")}
	if !slices.Contains(statuses, "failed") || !slices.Contains(statuses, "succeeded") {
		t.Fatalf("required runs = %v", statuses)
	}
	for _, run := range runs {
		if attr(run, "status") == "failed" && (attr(run, "attempts") != 1.0 || !strings.Contains(attr(run, "error").(string), "email")) {
			t.Errorf("a missing required field must fail at once, naming it: %v", run)
		}
	}
	runs = settle(t, e, big, 2)
	var got []string
	for _, run := range runs {
		got = append(got, attr(run, "status").(string))
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"skipped", "succeeded"}) {
		t.Errorf("conditional runs = %v", got)
	}
	reqs := e.Get(f.requestsPath, e.Key).Items()
	var reqStatuses []string
	for _, q := range reqs {
		reqStatuses = append(reqStatuses, attr(q, "status").(string))
	}
	slices.Sort(reqStatuses)
	if !slices.Equal(reqStatuses, []string{"failed", "processed"}) {
		t.Errorf("inbound request statuses = %v", reqStatuses)
	}
	// A failed run can be retried by hand; it fails again the same way.
	var failedID string
	for _, run := range settle(t, e, required, 2) {
		if attr(run, "status") == "failed" {
			failedID = run["id"].(string)
		}
	}
	retried := e.Post("/v1/automations/"+required+"/runs/"+failedID+"/retry", e.Key, nil)
	mustStatus(t, retried, http.StatusOK)
	if retried.Attr("status") != "queued" || retried.Attr("errorCode") != nil {
		t.Errorf("a run queued again: status %v, errorCode %v; want queued, null", retried.Attr("status"), retried.Attr("errorCode"))
	}
	for _, run := range settle(t, e, required, 2) {
		if run["id"] == failedID && (attr(run, "status") != "failed" || attr(run, "attempts") != 1.0) {
			t.Errorf("retried run = %v", run)
		}
	}
	succeeded := e.Get("/v1/automations/"+required+"/runs?status=succeeded", e.Key)
	mustStatus(t, succeeded, http.StatusOK)
	mustError(t, e.Post("/v1/automations/"+required+"/runs/"+succeeded.Items()[0]["id"].(string)+"/retry", e.Key, nil),
		http.StatusConflict, "CONFLICT", "")
}

func TestEventTriggeredAutomationsStopChaining(t *testing.T) {
	e := resttest.New(t)
	for _, name := range []string{"Ann", "Ben"} {
		e.NewUser(e.Org.ID, name, "Closer", "advisor", "Closers")
	}
	team := e.NewUser(e.Org.ID, "Cat", "Closer", "advisor", "Closers")
	stages := e.Stages(e.Org.ID)
	onCreate := automate(t, e, map[string]any{
		"name": "Web forms", "trigger": map[string]any{"event": "lead.created"},
		"conditions": []map[string]any{{"path": "$.source", "op": "eq", "value": "web_form"}},
		"actions":    []map[string]any{{"type": "move_stage", "stageId": stages[1].ID}, {"type": "add_tags", "tags": []string{"web"}}},
	})
	// Each assignment emits lead.assigned, which triggers this again: a
	// loop that only the depth limit stops.
	loop := automate(t, e, map[string]any{
		"name": "Reassign", "trigger": map[string]any{"event": "lead.assigned"},
		"actions": []map[string]any{{"type": "assign_advisor", "teamId": team.TeamID}},
	})
	web := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Form Fill", "source": "web_form"})
	mustStatus(t, web, http.StatusCreated)
	mustStatus(t, e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Phone In", "source": "dialer"}), http.StatusCreated)
	runs := settle(t, e, onCreate, 2)
	l := e.Get("/v1/leads/"+web.Data()["id"].(string), e.Key)
	if l.Attr("stage").(map[string]any)["id"] != stages[1].ID.String() || len(l.Attr("tags").([]any)) != 1 {
		t.Errorf("lead = %s; runs = %v", l.Raw, runs)
	}
	mustStatus(t, e.Post("/v1/leads/"+web.Data()["id"].(string)+"/assign", e.Key, map[string]any{"advisorId": team.ID}), http.StatusOK)
	time.Sleep(300 * time.Millisecond) // let any further links of the chain run
	runs = settle(t, e, loop, 3)
	for _, run := range runs {
		if attr(run, "status") != "succeeded" {
			t.Errorf("run = %v", run)
		}
	}
}

func TestAutomationValidation(t *testing.T) {
	f := newInbound(t, map[string]any{"businessName": "$.name"})
	e := f.e
	other, otherKey := e.NewOrg("Other Brokers", viewer.AllScopes...)
	otherStage := e.Stages(other.ID)[0]
	trigger := map[string]any{"endpointId": f.id}
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"NoTrigger", map[string]any{"name": "x", "trigger": map[string]any{}, "actions": []map[string]any{{"type": "create_lead"}}}, "trigger"},
		{"TwoTriggers", map[string]any{"name": "x", "trigger": map[string]any{"endpointId": f.id, "event": "lead.created"}, "actions": []map[string]any{{"type": "create_lead"}}}, "trigger"},
		{"UnknownEvent", map[string]any{"name": "x", "trigger": map[string]any{"event": "lead.exploded"}, "actions": []map[string]any{{"type": "add_tags", "tags": []string{"a"}}}}, "trigger.event"},
		{"NoActions", map[string]any{"name": "x", "trigger": trigger, "actions": []map[string]any{}}, "actions"},
		{"UnknownAction", map[string]any{"name": "x", "trigger": trigger, "actions": []map[string]any{{"type": "send_fax"}}}, "actions[0].type"},
		{"LeadActionFirst", map[string]any{"name": "x", "trigger": trigger, "actions": []map[string]any{{"type": "add_tags", "tags": []string{"a"}}}}, "actions[0].type"},
		{"MoveWithoutStage", map[string]any{"name": "x", "trigger": trigger, "actions": []map[string]any{{"type": "create_lead"}, {"type": "move_stage"}}}, "actions[1].stageId"},
		{"OtherOrgsStage", map[string]any{"name": "x", "trigger": trigger, "actions": []map[string]any{{"type": "create_lead"}, {"type": "move_stage", "stageId": otherStage.ID}}}, "actions[1].stageId"},
		{"AdvisorAndTeam", map[string]any{"name": "x", "trigger": trigger, "actions": []map[string]any{{"type": "create_lead"}, {"type": "assign_advisor"}}}, "actions[1].advisorId"},
		{"BadMatch", map[string]any{"name": "x", "trigger": trigger, "actions": []map[string]any{{"type": "update_lead", "matchBy": "name"}}}, "actions[0].matchBy"},
		{"BadPath", map[string]any{"name": "x", "trigger": trigger, "conditions": []map[string]any{{"path": "$[?", "op": "eq"}}, "actions": []map[string]any{{"type": "create_lead"}}}, "conditions[0].path"},
		{"BadOp", map[string]any{"name": "x", "trigger": trigger, "conditions": []map[string]any{{"path": "$.a", "op": "like"}}, "actions": []map[string]any{{"type": "create_lead"}}}, "conditions[0].op"},
		{"NoName", map[string]any{"trigger": trigger, "actions": []map[string]any{{"type": "create_lead"}}}, "name"},
		{"UnknownMember", map[string]any{"name": "x", "trigger": trigger, "actions": []map[string]any{{"type": "create_lead"}}, "schedule": "daily"}, "schedule"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mustError(t, e.Post("/v1/automations", e.Key, c.body), http.StatusUnprocessableEntity, "VALIDATION_ERROR", c.field)
		})
	}
	// Another organization's endpoint is not a trigger here.
	mustError(t, e.Post("/v1/automations", otherKey, map[string]any{"name": "x", "trigger": trigger,
		"actions": []map[string]any{{"type": "create_lead"}}}), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "trigger.endpointId")
	if n := e.Get("/v1/automations", e.Key).Meta()["total"]; n != 0.0 {
		t.Errorf("%v automations stored by refused requests", n)
	}
}

func TestAutomationManagement(t *testing.T) {
	f := newInbound(t, map[string]any{"businessName": "$.name"})
	e := f.e
	id := automate(t, e, map[string]any{"name": "First", "trigger": map[string]any{"endpointId": f.id},
		"actions": []map[string]any{{"type": "create_lead"}}})
	r := e.Get("/v1/automations/"+id, e.Key)
	mustStatus(t, r, http.StatusOK)
	if tr := r.Attr("trigger").(map[string]any); tr["type"] != "inbound_endpoint" || tr["endpointId"] != f.id || tr["event"] != nil {
		t.Errorf("trigger = %v", tr)
	}
	p := e.Patch("/v1/automations/"+id, e.Key, map[string]any{"name": "Renamed", "isActive": false,
		"trigger": map[string]any{"event": "contact.created"}})
	mustStatus(t, p, http.StatusOK)
	if p.Attr("name") != "Renamed" || p.Attr("isActive") != false || p.Attr("trigger").(map[string]any)["type"] != "event" {
		t.Errorf("patched = %s", p.Raw)
	}
	list := e.Get("/v1/automations?limit=1", e.Key)
	mustStatus(t, list, http.StatusOK)
	if list.Meta()["total"] != 1.0 || list.Meta()["hasMore"] != false {
		t.Errorf("list meta = %v", list.Meta())
	}
	// Scopes and organizations.
	_, otherKey := e.NewOrg("Other Brokers", viewer.AllScopes...)
	mustError(t, e.Get("/v1/automations/"+id, otherKey), http.StatusNotFound, "NOT_FOUND", "")
	mustError(t, e.Patch("/v1/automations/"+id, otherKey, map[string]any{"name": "Mine"}), http.StatusNotFound, "NOT_FOUND", "")
	if n := e.Get("/v1/automations", otherKey).Meta()["total"]; n != 0.0 {
		t.Errorf("another org lists %v automations", n)
	}
	writer := e.NewKey(e.Org.ID, viewer.ScopeLeadsWrite)
	mustError(t, e.Get("/v1/automations", writer), http.StatusForbidden, "FORBIDDEN", "")
	mustError(t, e.Post("/v1/automations", writer, map[string]any{"name": "x", "trigger": map[string]any{"event": "lead.created"},
		"actions": []map[string]any{{"type": "add_tags", "tags": []string{"a"}}}}), http.StatusForbidden, "FORBIDDEN", "")
	// An endpoint with automations cannot be deleted from under them.
	second := automate(t, e, map[string]any{"name": "Second", "trigger": map[string]any{"endpointId": f.id},
		"actions": []map[string]any{{"type": "create_lead"}}})
	mustError(t, e.Do(resttest.Request{Method: "DELETE", Path: "/v1/inbound-endpoints/" + f.id, Key: e.Key}), http.StatusConflict, "CONFLICT", "")
	mustStatus(t, e.Do(resttest.Request{Method: "DELETE", Path: "/v1/automations/" + second, Key: e.Key}), http.StatusNoContent)
	mustStatus(t, e.Do(resttest.Request{Method: "DELETE", Path: "/v1/inbound-endpoints/" + f.id, Key: e.Key}), http.StatusNoContent)
	mustError(t, e.Get("/v1/automations/"+second, e.Key), http.StatusNotFound, "NOT_FOUND", "")
}

func TestAutomationsOverGraphQL(t *testing.T) {
	f := newInbound(t, map[string]any{"businessName": "$.name"})
	e := f.e
	gql := func(query string, vars map[string]any) *resttest.Response {
		t.Helper()
		r := e.Do(resttest.Request{Method: "POST", Path: "/graphql", Key: e.Key, Body: map[string]any{"query": query, "variables": vars}})
		mustStatus(t, r, http.StatusOK)
		return r
	}
	r := gql(`mutation($ep: ID!) { createAutomation(input: {name: "GQL", trigger: {endpointId: $ep},
		conditions: [{path: "$.businessName", op: "exists"}],
		actions: [{type: "create_lead"}, {type: "add_tags", tags: ["gql"]}]}) { id name endpointId actions { type tags } conditions { path op } } }`,
		map[string]any{"ep": f.id})
	created, _ := r.Body["data"].(map[string]any)["createAutomation"].(map[string]any)
	if created == nil || created["endpointId"] != f.id || len(created["actions"].([]any)) != 2 {
		t.Fatalf("created = %s", r.Raw)
	}
	id := created["id"].(string)
	bad := gql(`mutation($ep: ID!) { createAutomation(input: {name: "Bad", trigger: {endpointId: $ep}, actions: [{type: "move_stage"}]}) { id } }`,
		map[string]any{"ep": f.id})
	if !strings.Contains(string(bad.Raw), `"field":"actions[0].type"`) {
		t.Errorf("invalid automation over GraphQL: %s", bad.Raw)
	}
	f.send(t, `{"name":"Graph Co"}`)
	settle(t, e, id, 1)
	runs := gql(`query($id: ID!) { automationRuns(automationId: $id) { total nodes { status attempts leadId applied input } }
		automations { totalCount edges { node { name } } } }`, map[string]any{"id": id})
	page := runs.Body["data"].(map[string]any)["automationRuns"].(map[string]any)
	node := page["nodes"].([]any)[0].(map[string]any)
	if page["total"] != 1.0 || node["status"] != "succeeded" || node["leadId"] == nil || node["input"].(map[string]any)["businessName"] != "Graph Co" {
		t.Errorf("runs = %s", runs.Raw)
	}
	if runs.Body["data"].(map[string]any)["automations"].(map[string]any)["totalCount"] != 1.0 {
		t.Errorf("automations = %s", runs.Raw)
	}
	del := gql(`mutation($id: ID!) { deleteAutomation(id: $id) }`, map[string]any{"id": id})
	if del.Body["data"].(map[string]any)["deleteAutomation"] != id {
		t.Errorf("delete = %s", del.Raw)
	}
}

func TestLeadExternalIDs(t *testing.T) {
	e := resttest.New(t)
	r := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Ext", "externalIds": map[string]any{"crm": "A-1", "bureau": 77}})
	mustStatus(t, r, http.StatusCreated)
	if ext := r.Attr("externalIds").(map[string]any); ext["crm"] != "A-1" || ext["bureau"] != 77.0 {
		t.Errorf("externalIds = %v", ext)
	}
	mustError(t, e.Post("/v1/leads", e.Key, map[string]any{"externalIds": map[string]any{"crm": map[string]any{"id": 1}}}),
		http.StatusUnprocessableEntity, "VALIDATION_ERROR", "externalIds.crm")
	mustError(t, e.Post("/v1/leads", e.Key, map[string]any{"externalIds": []string{"x"}}),
		http.StatusUnprocessableEntity, "VALIDATION_ERROR", "externalIds")
	mustError(t, e.Patch("/v1/leads/"+r.Data()["id"].(string), e.Key, map[string]any{"externalIds": map[string]any{"crm": "B"}}),
		http.StatusUnprocessableEntity, "VALIDATION_ERROR", "externalIds")
}

func TestInactiveAutomationDoesNotRun(t *testing.T) {
	f := newInbound(t, map[string]any{"businessName": "$.name"})
	e := f.e
	id := automate(t, e, map[string]any{"name": "Paused", "trigger": map[string]any{"endpointId": f.id},
		"isActive": false, "actions": []map[string]any{{"type": "create_lead"}}})
	f.send(t, `{"name":"Nobody"}`)
	if runs := e.Get("/v1/automations/"+id+"/runs", e.Key); runs.Meta()["total"] != 0.0 {
		t.Errorf("an inactive automation ran: %s", runs.Raw)
	}
	if got := attr(e.Get(f.requestsPath, e.Key).Items()[0], "status"); got != "processed" {
		t.Errorf("request status = %v", got)
	}
	if n := e.Get("/v1/leads", e.Key).Meta()["total"]; n != 0.0 {
		t.Errorf("%v leads created", n)
	}
}

// A run whose action the data layer refuses (here an email the lead's
// validator rejects) fails at once, naming the field: another attempt
// would fail the same way.
func TestAutomationRefusedActionFailsAtOnce(t *testing.T) {
	f := newInbound(t, map[string]any{"businessName": "$.name", "email": "$.email"})
	e := f.e
	id := automate(t, e, map[string]any{
		"name": "Partner leads", "trigger": map[string]any{"endpointId": f.id},
		"actions": []map[string]any{{"type": "create_lead"}},
	})
	f.send(t, `{"name":"Bad Mail Co","email":"not-an-email"}`)
	run := settle(t, e, id, 1)[0]
	msg, _ := attr(run, "error").(string)
	if attr(run, "status") != "failed" || attr(run, "attempts") != 1.0 || !strings.HasPrefix(msg, "email: ") ||
		!strings.Contains(msg, "actions[0] (create_lead)") {
		t.Errorf("run = %v", run)
	}
}
