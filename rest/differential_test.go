package rest_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks"
)

// counterpart is how one REST GET route reads on GraphQL (PRODUCT 8.4).
type counterpart struct {
	path string // the REST path, with org A's ids
	// query reads the same records; %s is filled with the GraphQL fields
	// of the REST answer's attributes (after renames), so a REST attribute
	// without a GraphQL field fails the query.
	query string
	vars  map[string]any
	at    string // where the records are in the answer: "leadsPage.nodes", "lead"
	// renames maps a REST attribute to its GraphQL field (docs/api.md).
	renames map[string]string
	// skip names REST attributes GraphQL does not show, each with why.
	skip map[string]string
	// sub lists, for a REST attribute holding objects, the members compared
	// (the GraphQL field's selection).
	sub map[string]string
	// prefixed names REST attributes that show GraphQL's id with a prefix.
	prefixed map[string]string
	// restID turns a GraphQL id into REST's (whsub_ prefix, say).
	restID func(string) string
	// none says why the route has no GraphQL counterpart; nothing else is set.
	none string
}

// TestRESTMatchesGraphQL reads the same records over every REST GET route
// and over GraphQL and compares them field by field, after the documented
// renames. Its table is checked against the router's: a new GET route
// without an entry fails, and so does a REST attribute GraphQL lacks.
func TestRESTMatchesGraphQL(t *testing.T) {
	e := resttest.New(t)
	a := fixturesOf(t, e)
	endpoint := inboundRequestFixture(t, e)
	offersLead := offersFixture(t, e)
	horizon := time.Now().UTC().AddDate(2, 0, 0).Format(time.RFC3339)
	byID := func(typ string) string {
		return `query($id: ID!) { node(id: $id) { ... on ` + typ + ` { id %s } } }`
	}
	page := func(field, args string) string { return `{ ` + field + `(` + args + `) { nodes { id %s } } }` }
	conn := func(field string) string { return `{ ` + field + `(first: 100) { edges { node { id %s } } } }` }
	deal := map[string]string{"commission": "expectedCommission"}
	payments := map[string]string{"payments": "id amount kind paidAt reference createdAt"}
	automation := map[string]string{"trigger.event": "triggerEvent", "trigger.endpointId": "endpointId"}
	automationParts := map[string]string{"conditions": "path op value", "actions": "type matchBy matchField tags stageId advisorId teamId reason"}
	cases := map[string]counterpart{
		"GET /status":                      {none: "service health, not a record"},
		"GET /healthz":                     {none: "a liveness probe"},
		"GET /auth/session":                {none: "a person's own session; GraphQL's me names who is signed in"},
		"GET /auth/oidc/start":             {none: "a redirect to the OpenID provider, no record"},
		"GET /auth/oidc/callback":          {none: "a redirect that signs a browser in, no record"},
		"GET /readyz":                      {none: "a readiness probe"},
		"GET /v1/openapi.json":             {none: "the REST document itself"},
		"GET /v1/webhooks/catalog":         {none: "the event catalog, a document"},
		"GET /v1/documents/{id}/content":   {none: "a document's bytes; TestDocumentDownload compares them with what was uploaded"},
		"GET /v1/exports/leads.csv":        {none: "CSV of the list's resource; TestExportLeads holds its rows to GET /v1/leads"},
		"GET /v1/exports/applications.csv": {none: "CSV of the list's resource; TestExportLending holds its rows to GET /v1/applications"},
		"GET /v1/exports/funded-deals.csv": {none: "CSV of the list's resource; TestExportLending holds its rows to GET /v1/funded-deals"},
		"GET /v1/exports/commissions.csv":  {none: "CSV of the list's resource; TestExportLending holds its rows to GET /v1/commissions"},
		"GET /v1/analytics/pipeline":       {none: "compared field by field by TestAnalyticsMatchesGraphQL"},
		"GET /v1/analytics/funding":        {none: "compared field by field by TestAnalyticsMatchesGraphQL"},
		"GET /v1/analytics/lenders":        {none: "compared field by field by TestAnalyticsMatchesGraphQL"},
		"GET /v1/analytics/commissions":    {none: "compared field by field by TestAnalyticsMatchesGraphQL"},
		"GET /v1/analytics/dialer":         {none: "compared field by field by TestAnalyticsMatchesGraphQL"},

		"GET /v1/leads": {path: "/v1/leads?limit=50", query: page("leadsPage", "limit: 50"), at: "leadsPage.nodes", sub: leadStage},
		"GET /v1/leads/{id}": {path: "/v1/leads/" + a.lead, query: `query($id: ID!) { lead(id: $id) { id %s } }`, vars: map[string]any{"id": a.lead},
			at: "lead", sub: leadStage},
		"GET /v1/leads/{id}/lender-matches": {path: "/v1/leads/" + a.lead + "/lender-matches",
			query: `query($id: ID!) { lenderMatches(leadId: $id) { id: lenderId %s } }`, vars: map[string]any{"id": a.lead}, at: "lenderMatches",
			sub: map[string]string{"misses": "field message", "components": "approvalRate fundedShare medianDaysToDecision sampleSize"}},
		"GET /v1/leads/{id}/offers": {path: "/v1/leads/" + offersLead + "/offers",
			query: `query($id: ID!) { lead(id: $id) { offers { id: applicationId %s } } }`, vars: map[string]any{"id": offersLead}, at: "lead.offers"},
		"GET /v1/leads/{id}/activity": {path: "/v1/leads/" + a.lead + "/activity?limit=20",
			query: `query($id: ID!) { lead(id: $id) { activity(first: 20) { edges { node { id %s } } } } }`, vars: map[string]any{"id": a.lead},
			at: "lead.activity.edges.node", sub: map[string]string{"actor": "type id name", "changes": "field from to"}},
		"GET /v1/stages": {path: "/v1/stages?limit=100", query: page("stagesPage", "limit: 100"), at: "stagesPage.nodes"},
		"GET /v1/users": {path: "/v1/users?limit=100", query: page("usersPage", "limit: 100"), at: "usersPage.nodes",
			renames: map[string]string{"teamName": "team.name"}},
		"GET /v1/teams": {path: "/v1/teams?limit=100", query: page("teamsPage", "limit: 100"), at: "teamsPage.nodes"},

		"GET /v1/lenders":           {path: "/v1/lenders?limit=100", query: page("lendersPage", "limit: 100"), at: "lendersPage.nodes"},
		"GET /v1/lenders/{id}":      {path: "/v1/lenders/" + a.lender, query: byID("Lender"), vars: map[string]any{"id": a.lender}, at: "node"},
		"GET /v1/applications":      {path: "/v1/applications?limit=50", query: page("applicationsPage", "limit: 50"), at: "applicationsPage.nodes"},
		"GET /v1/applications/{id}": {path: "/v1/applications/" + a.application, query: byID("Application"), vars: map[string]any{"id": a.application}, at: "node"},
		"GET /v1/funded-deals":      {path: "/v1/funded-deals?limit=50", query: page("fundedDealsPage", "limit: 50"), at: "fundedDealsPage.nodes", renames: deal},
		// The queue's entries are named by their deal's id; two years on,
		// the fixture's deal is due.
		"GET /v1/renewals": {path: "/v1/renewals?limit=100&dueBefore=" + horizon,
			query: `query($d: Time) { renewalQueue(where: {dueBefore: $d}, limit: 100) { nodes { id: dealId %s } } }`,
			vars:  map[string]any{"d": horizon}, at: "renewalQueue.nodes"},
		"GET /v1/stipulations": {path: "/v1/stipulations?limit=100&applicationId=" + a.application,
			query: `query($a: ID) { stipulations(where: {applicationId: $a}, limit: 100) { nodes { id %s } } }`,
			vars:  map[string]any{"a": a.application}, at: "stipulations.nodes"},
		"GET /v1/funded-deals/{id}": {path: "/v1/funded-deals/" + a.deal, query: byID("FundedDeal"), vars: map[string]any{"id": a.deal}, at: "node", renames: deal},
		"GET /v1/commissions":       {path: "/v1/commissions?limit=10", query: page("commissionsPage", "limit: 10"), at: "commissionsPage.nodes", sub: payments},
		"GET /v1/commissions/{id}":  {path: "/v1/commissions/" + a.commission, query: byID("Commission"), vars: map[string]any{"id": a.commission}, at: "node", sub: payments},

		"GET /v1/tasks": {path: "/v1/tasks?limit=100&leadId=" + a.lead, query: `query($l: ID) { tasks(where: {leadId: $l}, limit: 100) { nodes { id %s } } }`,
			vars: map[string]any{"l": a.lead}, at: "tasks.nodes"},

		"GET /v1/dialer/agents": {path: "/v1/dialer/agents?limit=100", query: page("agentsBoardPage", "limit: 100"), at: "agentsBoardPage.nodes",
			restID: func(id string) string { return "pres_" + id }},

		"GET /v1/app-webhooks": {path: "/v1/app-webhooks", query: conn("webhookSubscriptions"), at: "webhookSubscriptions.edges.node",
			restID: func(id string) string { return "whsub_" + id }},
		"GET /v1/app-webhooks/{id}/deliveries": {path: "/v1/app-webhooks/" + a.subscription + "/deliveries?limit=10",
			query: `query($id: ID!) { webhookDeliveries(subscriptionId: $id, limit: 10) { nodes { webhookId %s } } }`,
			vars:  map[string]any{"id": strings.TrimPrefix(a.subscription, "whsub_")}, at: "webhookDeliveries.nodes",
			sub: map[string]string{"attemptLog": "attemptedAt statusCode latencyMs error responseExcerpt"}},
		"GET /v1/inbound-endpoints": {path: "/v1/inbound-endpoints", query: conn("inboundEndpoints"), at: "inboundEndpoints.edges.node",
			skip: map[string]string{"path": "REST's convenience: /v1/webhooks/inbound/ + endpointKey, which both show"}},
		"GET /v1/inbound-endpoints/{id}/requests": {path: "/v1/inbound-endpoints/" + endpoint + "/requests?limit=100",
			query: `query($id: ID!) { inboundRequests(endpointId: $id, limit: 100) { nodes { id %s } } }`,
			vars:  map[string]any{"id": endpoint}, at: "inboundRequests.nodes"},
		"GET /v1/apps/installations": {path: "/v1/apps/installations?includeUninstalled=true&limit=100",
			query: page("appInstallations", "includeUninstalled: true, limit: 100"), at: "appInstallations.nodes"},
		"GET /v1/automations": {path: "/v1/automations?limit=10", query: `{ automations(first: 10) { edges { node { id %s } } } }`, at: "automations.edges.node",
			renames: automation, sub: automationParts},
		"GET /v1/automations/{id}": {path: "/v1/automations/" + a.automation,
			query: `query($id: ID!) { automations(first: 1, where: {id: $id}) { edges { node { id %s } } } }`, vars: map[string]any{"id": a.automation},
			at:      "automations.edges.node",
			renames: automation, sub: automationParts},
		"GET /v1/automations/{id}/runs": {path: "/v1/automations/" + a.automation + "/runs?limit=100",
			query: `query($id: ID!) { automationRuns(automationId: $id, limit: 100) { nodes { id %s } } }`,
			vars:  map[string]any{"id": a.automation}, at: "automationRuns.nodes", prefixed: map[string]string{"eventId": "evt_"}},
	}
	compared := 0
	for _, route := range routeTable(t) {
		if !strings.HasPrefix(route, "GET ") {
			continue
		}
		c, ok := cases[route]
		if !ok {
			t.Errorf("%s has no entry in the REST/GraphQL comparison", route)
			continue
		}
		if c.none != "" {
			continue
		}
		t.Run(route, func(t *testing.T) { compared += compareSurfaces(t, e, c) })
	}
	if compared == 0 {
		t.Fatal("no record was compared")
	}
	t.Logf("%d records compared field by field", compared)
}

// leadStage is what a lead's stage shows on both surfaces.
var leadStage = map[string]string{"stage": "id stageKey stageLabel color semanticSlot"}

// inboundRequestFixture creates an inbound endpoint and sends it one signed
// request, for its request log; it returns the endpoint's id.
func inboundRequestFixture(t *testing.T, e *resttest.Env) string {
	t.Helper()
	ep := e.Post("/v1/inbound-endpoints", e.Key, map[string]any{"name": "Differential", "mapping": map[string]any{"businessName": "$.company"}})
	mustStatus(t, ep, http.StatusCreated)
	body := []byte(`{"company":"Compared Co"}`)
	now := time.Now()
	r := e.Do(resttest.Request{Method: http.MethodPost, Path: ep.Attr("path").(string), Body: body, Header: map[string]string{
		"X-Webhook-Signature": webhooks.Sign(ep.Attr("secret").(string), now, body), "X-Webhook-Timestamp": fmt.Sprint(now.Unix())}})
	if r.Status/100 != 2 {
		t.Fatalf("inbound request: %d %s", r.Status, r.Raw)
	}
	return ep.Data()["id"].(string)
}

// compareSurfaces reads c both ways and compares every record REST shows
// with GraphQL's of the same id; it returns how many it compared.
func compareSurfaces(t *testing.T, e *resttest.Env, c counterpart) int {
	r := e.Get(c.path, e.Key)
	if r.Status != http.StatusOK {
		t.Fatalf("REST %s: %d %s", c.path, r.Status, r.Raw)
	}
	items := r.Items()
	if len(items) == 0 {
		if d := r.Data(); d != nil {
			items = []map[string]any{d}
		}
	}
	if len(items) == 0 {
		t.Fatalf("REST %s answered no record; the fixtures should give it one", c.path)
	}
	pairs := c.pairs(items)
	query := fmt.Sprintf(c.query, selection(slices.Collect(maps.Values(pairs))))
	g := e.Post("/graphql", e.Key, map[string]any{"query": query, "variables": c.vars})
	if errs, ok := g.Body["errors"]; ok {
		t.Fatalf("GraphQL %s: %v\n(a REST attribute without a GraphQL field needs a rename or a skip with its reason)", query, errs)
	}
	byID := map[string]map[string]any{}
	for _, rec := range recordsAt(g.Body["data"], strings.Split(c.at, ".")) {
		id, _ := rec["id"].(string)
		if id == "" {
			id, _ = rec["webhookId"].(string)
		}
		if c.restID != nil {
			id = c.restID(id)
		}
		byID[id] = rec
	}
	for _, it := range items {
		id := it["id"].(string)
		rec, ok := byID[id]
		if !ok {
			t.Errorf("%s: REST shows %s, GraphQL does not", c.path, id)
			continue
		}
		for restPath, gqlPath := range pairs {
			v, got := valueAt(it["attributes"], restPath), valueAt(rec, gqlPath)
			if p, ok := c.prefixed[restPath]; ok {
				if sv, isString := got.(string); isString {
					got = p + sv
				}
			}
			if !sameJSON(v, got) {
				t.Errorf("%s %s: REST %s = %s, GraphQL %s = %s", c.path, id, restPath, jsonOf(v), gqlPath, jsonOf(got))
			}
		}
	}
	return len(items)
}

// pairs maps each compared REST attribute path to its GraphQL field path:
// every attribute of items, after the renames (a rename of "trigger.event"
// compares that member of trigger instead of the whole), but the skipped.
func (c counterpart) pairs(items []map[string]any) map[string]string {
	out := map[string]string{}
	for _, it := range items {
		for attr := range it["attributes"].(map[string]any) {
			if _, ok := c.skip[attr]; ok {
				continue
			}
			nested := false
			for from, to := range c.renames {
				if strings.HasPrefix(from, attr+".") {
					out[from], nested = to, true
				}
			}
			if nested {
				continue
			}
			if to, ok := c.renames[attr]; ok {
				out[attr] = to
			} else {
				out[attr] = attr
			}
			if sub, ok := c.sub[attr]; ok {
				for _, f := range strings.Fields(sub) {
					out[attr+"."+f] = out[attr] + "." + f
				}
				delete(out, attr)
			}
		}
	}
	return out
}

// selection writes GraphQL fields for dotted paths: team.name → team { name }.
func selection(paths []string) string {
	children := map[string][]string{}
	var names []string
	for _, p := range paths {
		head, rest, nested := strings.Cut(p, ".")
		if _, seen := children[head]; !seen {
			names = append(names, head)
			children[head] = nil
		}
		if nested {
			children[head] = append(children[head], rest)
		}
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n)
		if len(children[n]) > 0 {
			b.WriteString(" { " + selection(children[n]) + " }")
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// valueAt reads a dotted path; through a list it reads each item's.
func valueAt(v any, path string) any {
	if path == "" {
		return v
	}
	head, rest, _ := strings.Cut(path, ".")
	switch v := v.(type) {
	case map[string]any:
		return valueAt(v[head], rest)
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = valueAt(item, path)
		}
		return out
	}
	return nil
}

// recordsAt walks path (field names; lists are walked through) in v.
func recordsAt(v any, path []string) []map[string]any {
	switch v := v.(type) {
	case []any:
		var out []map[string]any
		for _, item := range v {
			out = append(out, recordsAt(item, path)...)
		}
		return out
	case map[string]any:
		if len(path) == 0 {
			return []map[string]any{v}
		}
		return recordsAt(v[path[0]], path[1:])
	}
	return nil
}

func sameJSON(a, b any) bool {
	var x, y any
	_ = json.Unmarshal([]byte(jsonOf(a)), &x)
	_ = json.Unmarshal([]byte(jsonOf(b)), &y)
	return reflect.DeepEqual(x, y)
}

func jsonOf(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}
