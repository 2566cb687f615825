package rest_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/root"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

// isolationCase is how the matrix calls one route: the path with org A's
// ids filled in, a body, and the scope the route needs ("" for public or
// any key).
type isolationCase struct {
	path  string
	body  any
	scope string
	open  bool // public or authenticated otherwise (HMAC, path token)
	csv   bool // answers CSV, not JSON (the exports)
}

// TestTenantIsolationMatrix calls every route of the router's table, so a
// new route without an entry fails: with a key of another organization it
// must answer 404 for org A's ids and never show any of org A's ids; with
// an org A key lacking the route's scope it must answer 403.
func TestTenantIsolationMatrix(t *testing.T) {
	e := resttest.New(t)
	a := fixturesOf(t, e)
	_, otherKey := e.NewOrg("Other Shop", viewer.AllScopes...)
	cases := map[string]isolationCase{
		"GET /status":  {path: "/status", open: true},
		"GET /healthz": {path: "/healthz", open: true},
		// A person's own session: TestSessionIsolation holds sessions to
		// their organization.
		"POST /auth/sign-in":                      {path: "/auth/sign-in", open: true},
		"GET /auth/session":                       {path: "/auth/session", open: true},
		"POST /auth/sign-out":                     {path: "/auth/sign-out", open: true},
		"GET /auth/oidc/start":                    {path: "/auth/oidc/start", open: true},
		"GET /auth/oidc/callback":                 {path: "/auth/oidc/callback", open: true},
		"GET /readyz":                             {path: "/readyz", open: true},
		"GET /v1/openapi.json":                    {path: "/v1/openapi.json", open: true},
		"GET /v1/webhooks/catalog":                {path: "/v1/webhooks/catalog", open: true},
		"POST /v1/webhooks/inbound/{endpointKey}": {path: "/v1/webhooks/inbound/" + a.endpointKey, body: map[string]any{}, open: true},
		"POST /v1/dialer/connect/{orgToken}":      {path: "/v1/dialer/connect/not-a-token", body: map[string]any{"type": "dnc"}, open: true},

		"GET /v1/leads":                     {path: "/v1/leads", scope: viewer.ScopeLeadsRead},
		"POST /v1/leads":                    {path: "/v1/leads", body: map[string]any{"businessName": "B's own"}, scope: viewer.ScopeLeadsWrite},
		"GET /v1/leads/{id}":                {path: "/v1/leads/" + a.lead, scope: viewer.ScopeLeadsRead},
		"PATCH /v1/leads/{id}":              {path: "/v1/leads/" + a.lead, body: map[string]any{"industry": "Taken"}, scope: viewer.ScopeLeadsWrite},
		"POST /v1/leads/{id}/stage":         {path: "/v1/leads/" + a.lead + "/stage", body: map[string]any{"stageId": a.stage}, scope: viewer.ScopeLeadsWrite},
		"POST /v1/leads/{id}/assign":        {path: "/v1/leads/" + a.lead + "/assign", body: map[string]any{"advisorId": a.advisor}, scope: viewer.ScopeLeadsWrite},
		"GET /v1/leads/{id}/activity":       {path: "/v1/leads/" + a.lead + "/activity", scope: viewer.ScopeLeadsRead},
		"GET /v1/leads/{id}/offers":         {path: "/v1/leads/" + a.lead + "/offers", scope: viewer.ScopeLendingRead},
		"GET /v1/leads/{id}/lender-matches": {path: "/v1/leads/" + a.lead + "/lender-matches", scope: viewer.ScopeLendingRead},

		"POST /v1/dialer/events": {path: "/v1/dialer/events", scope: viewer.ScopeDialerWrite, body: map[string]any{
			"externalCallId": "iso-1", "userId": a.agent, "leadId": a.lead, "eventType": "call_started", "occurredAt": "2026-11-22T09:00:00Z"}},
		"POST /v1/dialer/disposition": {path: "/v1/dialer/disposition", scope: viewer.ScopeDialerWrite, body: map[string]any{
			"externalCallId": "iso-1", "userId": a.agent, "disposition": "interested", "occurredAt": "2026-11-22T09:00:00Z"}},
		"POST /v1/dialer/presence": {path: "/v1/dialer/presence", scope: viewer.ScopeDialerWrite, body: map[string]any{"userId": a.agent, "status": "online"}},
		"GET /v1/dialer/agents":    {path: "/v1/dialer/agents"},

		"GET /v1/lenders":           {path: "/v1/lenders", scope: viewer.ScopeLendingRead},
		"GET /v1/lenders/{id}":      {path: "/v1/lenders/" + a.lender, scope: viewer.ScopeLendingRead},
		"GET /v1/applications":      {path: "/v1/applications", scope: viewer.ScopeLendingRead},
		"GET /v1/stipulations":      {path: "/v1/stipulations?applicationId=" + a.application, scope: viewer.ScopeLendingRead},
		"GET /v1/applications/{id}": {path: "/v1/applications/" + a.application, scope: viewer.ScopeLendingRead},
		"GET /v1/funded-deals":      {path: "/v1/funded-deals", scope: viewer.ScopeLendingRead},
		"GET /v1/funded-deals/{id}": {path: "/v1/funded-deals/" + a.deal, scope: viewer.ScopeLendingRead},
		"GET /v1/commissions":       {path: "/v1/commissions", scope: viewer.ScopeLendingRead},
		"GET /v1/commissions/{id}":  {path: "/v1/commissions/" + a.commission, scope: viewer.ScopeLendingRead},

		"GET /v1/tasks": {path: "/v1/tasks?assigneeId=" + a.advisor + "&leadId=" + a.lead, scope: viewer.ScopeLeadsRead},
		// Far enough ahead that org A's deal is due in A's own queue.
		"GET /v1/renewals": {path: "/v1/renewals?advisorId=" + a.advisor + "&dueBefore=2100-01-01", scope: viewer.ScopeLendingRead},
		// Another organization's export holds none of org A's rows, also
		// when it filters by org A's ids.
		"GET /v1/exports/leads.csv":        {path: "/v1/exports/leads.csv?stageId=" + a.stage, scope: viewer.ScopeLeadsRead, csv: true},
		"GET /v1/exports/applications.csv": {path: "/v1/exports/applications.csv?leadId=" + a.lead, scope: viewer.ScopeLendingRead, csv: true},
		"GET /v1/exports/funded-deals.csv": {path: "/v1/exports/funded-deals.csv?lenderId=" + a.lender, scope: viewer.ScopeLendingRead, csv: true},
		"GET /v1/exports/commissions.csv":  {path: "/v1/exports/commissions.csv?dealId=" + a.deal, scope: viewer.ScopeLendingRead, csv: true},

		"GET /v1/documents/{id}/content":  {path: "/v1/documents/" + a.document + "/content", scope: viewer.ScopeLendingRead},
		"HEAD /v1/documents/{id}/content": {path: "/v1/documents/" + a.document + "/content", scope: viewer.ScopeLendingRead},

		// The reports: another organization's key sees its own (empty)
		// figures, also when it filters by org A's advisor or team.
		"GET /v1/analytics/pipeline":    {path: "/v1/analytics/pipeline?advisorId=" + a.advisor, scope: viewer.ScopeAnalyticsRead},
		"GET /v1/analytics/funding":     {path: "/v1/analytics/funding?interval=week", scope: viewer.ScopeAnalyticsRead},
		"GET /v1/analytics/lenders":     {path: "/v1/analytics/lenders", scope: viewer.ScopeAnalyticsRead},
		"GET /v1/analytics/commissions": {path: "/v1/analytics/commissions?teamId=" + a.team, scope: viewer.ScopeAnalyticsRead},
		"GET /v1/analytics/dialer":      {path: "/v1/analytics/dialer?teamId=" + a.team, scope: viewer.ScopeAnalyticsRead},

		"GET /v1/stages": {path: "/v1/stages"},
		"GET /v1/users":  {path: "/v1/users"},
		"GET /v1/teams":  {path: "/v1/teams"},

		"POST /v1/app-webhooks":                                     {path: "/v1/app-webhooks", scope: viewer.ScopeWebhooksManage, body: map[string]any{"url": "https://b.example/hook", "events": []string{"*"}}},
		"GET /v1/app-webhooks":                                      {path: "/v1/app-webhooks", scope: viewer.ScopeWebhooksManage},
		"PATCH /v1/app-webhooks/{id}":                               {path: "/v1/app-webhooks/" + a.subscription, body: map[string]any{"isActive": false}, scope: viewer.ScopeWebhooksManage},
		"DELETE /v1/app-webhooks/{id}":                              {path: "/v1/app-webhooks/" + a.subscription, scope: viewer.ScopeWebhooksManage},
		"GET /v1/app-webhooks/{id}/deliveries":                      {path: "/v1/app-webhooks/" + a.subscription + "/deliveries", scope: viewer.ScopeWebhooksManage},
		"POST /v1/app-webhooks/{id}/deliveries/{deliveryId}/replay": {path: "/v1/app-webhooks/" + a.subscription + "/deliveries/" + a.delivery + "/replay", scope: viewer.ScopeWebhooksManage},
		"POST /v1/app-webhooks/{id}/replay":                         {path: "/v1/app-webhooks/" + a.subscription + "/replay", body: map[string]any{}, scope: viewer.ScopeWebhooksManage},

		"POST /v1/inbound-endpoints":                   {path: "/v1/inbound-endpoints", body: map[string]any{"name": "B's"}, scope: viewer.ScopeAdmin},
		"GET /v1/inbound-endpoints":                    {path: "/v1/inbound-endpoints", scope: viewer.ScopeAdmin},
		"PATCH /v1/inbound-endpoints/{id}":             {path: "/v1/inbound-endpoints/" + a.endpoint, body: map[string]any{"name": "Taken"}, scope: viewer.ScopeAdmin},
		"DELETE /v1/inbound-endpoints/{id}":            {path: "/v1/inbound-endpoints/" + a.endpoint, scope: viewer.ScopeAdmin},
		"GET /v1/inbound-endpoints/{id}/requests":      {path: "/v1/inbound-endpoints/" + a.endpoint + "/requests", scope: viewer.ScopeAdmin},
		"GET /v1/automations":                          {path: "/v1/automations", scope: viewer.ScopeAdmin},
		"GET /v1/apps/installations":                   {path: "/v1/apps/installations?includeUninstalled=true", scope: viewer.ScopeAdmin},
		"POST /v1/automations":                         {path: "/v1/automations", scope: viewer.ScopeAdmin, body: a.automationBody},
		"GET /v1/automations/{id}":                     {path: "/v1/automations/" + a.automation, scope: viewer.ScopeAdmin},
		"PATCH /v1/automations/{id}":                   {path: "/v1/automations/" + a.automation, body: map[string]any{"isActive": false}, scope: viewer.ScopeAdmin},
		"DELETE /v1/automations/{id}":                  {path: "/v1/automations/" + a.automation, scope: viewer.ScopeAdmin},
		"GET /v1/automations/{id}/runs":                {path: "/v1/automations/" + a.automation + "/runs", scope: viewer.ScopeAdmin},
		"POST /v1/automations/{id}/runs/{runId}/retry": {path: "/v1/automations/" + a.automation + "/runs/" + a.run + "/retry", scope: viewer.ScopeAdmin},
	}
	cells := 0
	for _, route := range routeTable(t) {
		c, ok := cases[route]
		if !ok {
			t.Errorf("%s has no entry in the isolation matrix", route)
			continue
		}
		if c.open {
			continue
		}
		method := strings.Fields(route)[0]
		t.Run(route, func(t *testing.T) {
			call := e.Do
			if c.csv {
				call = e.DoRaw
			}
			r := call(resttest.Request{Method: method, Path: c.path, Key: otherKey, Body: c.body})
			for _, id := range a.hidden(t, c) {
				if strings.Contains(string(r.Raw), id) {
					t.Fatalf("another organization's key saw %s: %d %s", id, r.Status, r.Raw)
				}
			}
			// An id of org A is unknown to org B: 404, or 422 when a body
			// reference of org A is refused first. Either way nothing of A's.
			if strings.Contains(route, "{id}") && r.Status != http.StatusNotFound && r.Status != http.StatusUnprocessableEntity {
				t.Fatalf("another organization's key: %d %s, want 404", r.Status, r.Raw)
			}
			cells++
			if c.scope == "" {
				return
			}
			r = e.Do(resttest.Request{Method: method, Path: c.path, Key: a.keyWithout(e, c.scope), Body: c.body})
			if r.Status != http.StatusForbidden {
				t.Fatalf("a key without %s: %d %s, want 403", c.scope, r.Status, r.Raw)
			}
			cells++
		})
	}
	t.Logf("%d matrix cells checked", cells)
}

// routeTable lists "METHOD /path" for every route of the server.
func routeTable(t *testing.T) []string {
	routes, ok := root.Handler(rest.Config{MaxBodyBytes: 1 << 20, RateLimit: 10, RateWindow: time.Minute},
		storetest.Open(t), slog.Default()).(chi.Routes)
	if !ok {
		t.Fatal("the server is not a chi router")
	}
	var out []string
	_ = chi.Walk(routes, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if route != "/" {
			route = strings.TrimSuffix(route, "/")
		}
		if !root.OutsideContract(method, route) {
			out = append(out, method+" "+route)
		}
		return nil
	})
	return out
}

// orgFixtures are org A's resources the matrix aims at.
type orgFixtures struct {
	lead, stage, team, advisor, agent, subscription, delivery, endpoint, endpointKey, automation, run string
	lender, application, deal, commission, document, task                                             string
	installation                                                                                      string
	automationBody                                                                                    map[string]any
	keys                                                                                              map[string]string
}

func (f *orgFixtures) ids() []string {
	return []string{f.lead, f.advisor, f.agent, strings.TrimPrefix(f.subscription, "whsub_"), strings.TrimPrefix(f.delivery, "msg_"),
		f.endpoint, f.endpointKey, f.automation, f.run, f.lender, f.application, f.deal, f.commission, f.installation, f.document, f.task}
}

// hidden lists the ids of org A that a call made with another
// organization's key must not show: every id, except a stage or team id
// the call itself sends (an error may name what it was sent).
func (f *orgFixtures) hidden(t *testing.T, c isolationCase) []string {
	sent, err := json.Marshal(c.body)
	if err != nil {
		t.Fatal(err)
	}
	out := f.ids()
	for _, id := range []string{f.stage, f.team} {
		if !strings.Contains(c.path, id) && !strings.Contains(string(sent), id) {
			out = append(out, id)
		}
	}
	return out
}

// keyWithout returns an org A key holding every scope that does not grant scope.
func (f *orgFixtures) keyWithout(e *resttest.Env, scope string) string {
	if k, ok := f.keys[scope]; ok {
		return k
	}
	var scopes []string
	for _, s := range viewer.AllScopes {
		if !(viewer.Viewer{Scopes: []string{s}}).Can(scope) {
			scopes = append(scopes, s)
		}
	}
	f.keys[scope] = e.NewKey(e.Org.ID, scopes...)
	return f.keys[scope]
}

func fixturesOf(t *testing.T, e *resttest.Env) *orgFixtures {
	t.Helper()
	f := &orgFixtures{keys: map[string]string{}}
	f.stage = e.Stages(e.Org.ID)[2].ID.String()
	f.advisor = e.NewUser(e.Org.ID, "Ada", "Advisor", "advisor", "").ID.String()
	agent := e.NewUser(e.Org.ID, "Al", "Agent", "agent", "Floor")
	f.agent, f.team = agent.ID.String(), agent.TeamID.String()
	recv := webhookstest.NewReceiver(t, webhookstest.OK)
	sub := e.Post("/v1/app-webhooks", e.Key, map[string]any{"url": recv.URL, "events": []string{"*"}})
	mustStatus(t, sub, http.StatusCreated)
	f.subscription = sub.Data()["id"].(string)
	ep := e.Post("/v1/inbound-endpoints", e.Key, map[string]any{"name": "Partner"})
	mustStatus(t, ep, http.StatusCreated)
	f.endpoint, f.endpointKey = ep.Data()["id"].(string), ep.Attr("endpointKey").(string)
	f.automationBody = map[string]any{"name": "Tag new", "trigger": map[string]any{"event": "lead.created"},
		"actions": []map[string]any{{"type": "add_tags", "tags": []string{"auto"}}}}
	au := e.Post("/v1/automations", e.Key, f.automationBody)
	mustStatus(t, au, http.StatusCreated)
	f.automation = au.Data()["id"].(string)
	// The lead is the advisor's, so the deal and commission below are too,
	// and the agent calls: every report of org A names its records.
	l := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "A's secret lead", "assignToAdvisorId": f.advisor})
	mustStatus(t, l, http.StatusCreated)
	f.lead = l.Data()["id"].(string)
	// The lending half is written through GraphQL: a lender, the lead
	// submitted to it, approved and funded, which opens its commission.
	f.lender = field(gql(t, e, e.Key, `mutation { createLender(input: {name: "A's lender", commissionRate: "0.02"}) { id } }`, nil),
		"createLender")["id"].(string)
	f.application = field(gql(t, e, e.Key, `mutation($input: SubmitApplicationInput!) { submitApplication(input: $input) { id } }`,
		map[string]any{"input": map[string]any{"leadId": f.lead, "lenderId": f.lender, "requestedAmount": "25000"}}),
		"submitApplication")["id"].(string)
	gql(t, e, e.Key, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, interestRate: "1.3", rateType: factor, termMonths: 6, conditions: ["A's secret stipulation"]}) { id } }`,
		map[string]any{"id": f.application})
	deal := field(gql(t, e, e.Key, `mutation($id: ID!) { fundDeal(input: {applicationId: $id, waiveOutstanding: true}) { id commission { id } } }`,
		map[string]any{"id": f.application}), "fundDeal")
	f.deal, f.commission = deal["id"].(string), field(deal, "commission")["id"].(string)
	up := e.Upload(e.Key, `mutation($r: ID!, $file: Upload!) { uploadDocument(recordId: $r, file: $file) { id } }`,
		map[string]any{"r": f.lead}, resttest.File{Var: "file", Name: "secret.txt", Content: []byte("org A's secret\n")})
	f.document = field(up.Body["data"].(map[string]any), "uploadDocument")["id"].(string)
	// A task on the lead for its advisor.
	f.task = field(gql(t, e, e.Key, `mutation($l: ID!, $u: ID!) { createTask(input: {leadId: $l, title: "A's secret task", dueAt: "2026-11-23T10:00:00Z", assigneeId: $u}) { id } }`,
		map[string]any{"l": f.lead, "u": f.advisor}), "createTask")["id"].(string)
	// An app of org A's installed in org A.
	app := field(gql(t, e, e.Key, `mutation { registerApp(input: {name: "A's app", scopes: ["leads:read"]}) { id } }`, nil), "registerApp")
	f.installation = field(field(gql(t, e, e.Key, `mutation($a: ID!) { installApp(appId: $a, scopes: ["leads:read"]) { installation { id } } }`,
		map[string]any{"a": app["id"]}), "installApp"), "installation")["id"].(string)
	for _, ev := range []map[string]any{
		{"externalCallId": "a-call", "userId": f.agent, "leadId": f.lead, "eventType": "call_answered", "occurredAt": apitime.Format(time.Now())},
		{"externalCallId": "a-call", "userId": f.agent, "leadId": f.lead, "eventType": "disposition", "disposition": "interested", "occurredAt": apitime.Format(time.Now())},
	} {
		mustStatus(t, e.Post("/v1/dialer/events", e.Key, ev), http.StatusCreated)
	}
	deadline := time.Now().Add(10 * time.Second)
	for (f.delivery == "" || f.run == "") && time.Now().Before(deadline) {
		if d := e.Get("/v1/app-webhooks/"+f.subscription+"/deliveries", e.Key).Items(); len(d) > 0 {
			f.delivery = d[0]["id"].(string)
		}
		if r := e.Get("/v1/automations/"+f.automation+"/runs", e.Key).Items(); len(r) > 0 {
			f.run = r[0]["id"].(string)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if f.delivery == "" || f.run == "" {
		t.Fatalf("no delivery (%q) or run (%q) to aim at", f.delivery, f.run)
	}
	return f
}

// TestCrossTenantDeleteIsNotFound deletes org A's resources that have
// dependants (an endpoint that triggers an automation, an automation with
// runs, a subscription with deliveries) with another organization's key,
// on both surfaces: the answer is 404 like any other id of another
// organization, never a 409 that reveals the resource exists.
func TestCrossTenantDeleteIsNotFound(t *testing.T) {
	e := resttest.New(t)
	a := fixturesOf(t, e)
	au := e.Post("/v1/automations", e.Key, map[string]any{"name": "From partner", "trigger": map[string]any{"endpointId": a.endpoint},
		"actions": []map[string]any{{"type": "create_lead"}}})
	mustStatus(t, au, http.StatusCreated)
	_, otherKey := e.NewOrg("Other Shop", viewer.AllScopes...)
	for _, c := range []struct{ path, mutation, still string }{
		{"/v1/inbound-endpoints/" + a.endpoint, "deleteInboundEndpoint", "/requests"},
		{"/v1/automations/" + a.automation, "deleteAutomation", "/runs"},
		{"/v1/app-webhooks/" + a.subscription, "deleteWebhookSubscription", "/deliveries"},
	} {
		t.Run(c.mutation, func(t *testing.T) {
			mustError(t, e.Do(resttest.Request{Method: "DELETE", Path: c.path, Key: otherKey}), http.StatusNotFound, "NOT_FOUND", "")
			id := strings.TrimPrefix(c.path[strings.LastIndexByte(c.path, '/')+1:], "whsub_")
			r := e.Post("/graphql", otherKey, map[string]any{"query": "mutation($id: ID!) { " + c.mutation + "(id: $id) }", "variables": map[string]any{"id": id}})
			if !strings.Contains(string(r.Raw), `"NOT_FOUND"`) {
				t.Errorf("GraphQL %s of another organization's id: %s, want NOT_FOUND", c.mutation, r.Raw)
			}
			mustStatus(t, e.Get(c.path+c.still, e.Key), http.StatusOK) // still there for its owner
		})
	}
}
