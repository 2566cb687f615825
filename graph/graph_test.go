package graph_test

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"

	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

// gql runs a GraphQL operation and returns data and the first error's code.
func gql(t *testing.T, e *resttest.Env, key, query string, vars map[string]any) (map[string]any, string) {
	t.Helper()
	r := e.Post("/graphql", key, map[string]any{"query": query, "variables": vars})
	if r.Status != http.StatusOK {
		t.Fatalf("status %d: %s", r.Status, r.Raw)
	}
	data, _ := r.Body["data"].(map[string]any)
	errs, _ := r.Body["errors"].([]any)
	if len(errs) == 0 {
		return data, ""
	}
	ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
	code, _ := ext["code"].(string)
	return data, code
}

func TestLeadReadsTheSameOnBothSurfaces(t *testing.T) {
	e := resttest.New(t)
	adv := e.NewUser(e.Org.ID, "Ada", "Lovelace", "advisor", "")
	created := e.Post("/v1/leads", e.Key, map[string]any{
		"businessName": "Acme", "email": "jane@acme.com", "monthlyRevenue": "1200.50",
		"tags": []string{"x"}, "assignToAdvisorId": adv.ID, "customFields": map[string]any{"k": "v"},
	})
	if created.Status != http.StatusCreated {
		t.Fatalf("create: %s", created.Raw)
	}
	id := created.Data()["id"].(string)
	data, code := gql(t, e, e.Key, `query($id: ID!) { lead(id: $id) {
		id businessName email monthlyRevenue source priority tags customFields
		primaryAdvisorId primaryAdvisorName stage { id stageKey stageLabel color semanticSlot } } }`,
		map[string]any{"id": id})
	if code != "" {
		t.Fatalf("error %s", code)
	}
	l := data["lead"].(map[string]any)
	for gqlField, restField := range map[string]string{
		"id": "", "businessName": "businessName", "email": "email", "monthlyRevenue": "monthlyRevenue",
		"source": "source", "priority": "priority", "primaryAdvisorId": "primaryAdvisorId",
		"primaryAdvisorName": "primaryAdvisorName", "tags": "tags", "customFields": "customFields", "stage": "stage",
	} {
		want := created.Attr(restField)
		if restField == "" {
			want = id
		}
		if fmt.Sprint(l[gqlField]) != fmt.Sprint(want) {
			t.Errorf("%s: graphql %v, rest %v", gqlField, l[gqlField], want)
		}
	}
	data, _ = gql(t, e, e.Key, `{ leads(first: 10) { totalCount edges { node { id } } } }`, nil)
	conn := data["leads"].(map[string]any)
	if conn["totalCount"] != 1.0 {
		t.Errorf("totalCount = %v", conn["totalCount"])
	}
	data, _ = gql(t, e, e.Key, `query($id: ID!) { node(id: $id) { id ... on Lead { businessName } } }`, map[string]any{"id": id})
	if data["node"].(map[string]any)["businessName"] != "Acme" {
		t.Errorf("node = %v", data["node"])
	}
}

func TestGraphQLMutations(t *testing.T) {
	e := resttest.New(t)
	stages := e.Stages(e.Org.ID)
	data, code := gql(t, e, e.Key, `mutation { createLead(input: {businessName: "Bolt", priority: high}) { id stage { stageKey } } }`, nil)
	if code != "" {
		t.Fatalf("createLead: %s", code)
	}
	l := data["createLead"].(map[string]any)
	id := l["id"].(string)
	if l["stage"].(map[string]any)["stageKey"] != stages[0].StageKey {
		t.Errorf("stage = %v, want the first stage", l["stage"])
	}
	t.Run("Update", func(t *testing.T) {
		data, code := gql(t, e, e.Key, `mutation($id: ID!) { updateLead(id: $id, input: {industry: "Freight", clearBusinessName: true}) { industry businessName } }`, map[string]any{"id": id})
		if code != "" || data["updateLead"].(map[string]any)["industry"] != "Freight" || data["updateLead"].(map[string]any)["businessName"] != nil {
			t.Fatalf("updateLead = %v %s", data, code)
		}
	})
	t.Run("Move", func(t *testing.T) {
		data, code := gql(t, e, e.Key, `mutation($id: ID!, $s: ID!) { moveLeadToStage(id: $id, stageId: $s) { stage { stageKey } } }`,
			map[string]any{"id": id, "s": stages[2].ID})
		if code != "" || data["moveLeadToStage"].(map[string]any)["stage"].(map[string]any)["stageKey"] != stages[2].StageKey {
			t.Fatalf("moveLeadToStage = %v %s", data, code)
		}
	})
	t.Run("Assign", func(t *testing.T) {
		adv := e.NewUser(e.Org.ID, "Bea", "Broker", "advisor", "")
		data, code := gql(t, e, e.Key, `mutation($id: ID!, $a: ID!) { assignLead(id: $id, advisorId: $a) { primaryAdvisorName } }`,
			map[string]any{"id": id, "a": adv.ID})
		if code != "" || data["assignLead"].(map[string]any)["primaryAdvisorName"] != "Bea Broker" {
			t.Fatalf("assignLead = %v %s", data, code)
		}
	})
	t.Run("AppendTagsKeepsTheLimit", func(t *testing.T) {
		data, code := gql(t, e, e.Key, `mutation($id: ID!) { a: updateLead(id: $id, input: {tags: ["x"]}) { id } b: updateLead(id: $id, input: {appendTags: ["y"]}) { tags } }`, map[string]any{"id": id})
		if got := fmt.Sprint(data["b"].(map[string]any)["tags"]); code != "" || got != "[x y]" {
			t.Fatalf("appendTags: tags %s, code %q", got, code)
		}
		many := make([]string, 50)
		for i := range many {
			many[i] = fmt.Sprintf("t%d", i)
		}
		_, code = gql(t, e, e.Key, `mutation($id: ID!, $tags: [String!]) { updateLead(id: $id, input: {tags: $tags}) { id } }`,
			map[string]any{"id": id, "tags": many})
		if code != "" {
			t.Fatalf("50 tags: %s", code)
		}
		_, code = gql(t, e, e.Key, `mutation($id: ID!) { updateLead(id: $id, input: {appendTags: ["one-more"]}) { id } }`, map[string]any{"id": id})
		if code != "VALIDATION_ERROR" {
			t.Errorf("51st tag by append: code %q, want VALIDATION_ERROR", code)
		}
	})
	t.Run("ValidationCode", func(t *testing.T) {
		_, code := gql(t, e, e.Key, `mutation { createLead(input: {email: "nope"}) { id } }`, nil)
		if code != "VALIDATION_ERROR" {
			t.Errorf("code = %q, want VALIDATION_ERROR", code)
		}
	})
	t.Run("ForbiddenWithoutWrite", func(t *testing.T) {
		ro := e.NewKey(e.Org.ID, viewer.ScopeLeadsRead)
		_, code := gql(t, e, ro, `mutation { createLead(input: {businessName: "No"}) { id } }`, nil)
		if code != "FORBIDDEN" {
			t.Errorf("code = %q, want FORBIDDEN", code)
		}
	})
	t.Run("RolledBackOnError", func(t *testing.T) {
		// The second mutation fails, so the transaction around the whole
		// operation rolls the first one back too.
		_, code := gql(t, e, e.Key, `mutation { a: createLead(input: {businessName: "Kept?"}) { id } b: createLead(input: {email: "bad"}) { id } }`, nil)
		if code != "VALIDATION_ERROR" {
			t.Fatalf("code = %q", code)
		}
		data, _ := gql(t, e, e.Key, `{ leadsPage(search: "kept") { total } }`, nil)
		if total := data["leadsPage"].(map[string]any)["total"]; total != 0.0 {
			t.Errorf("a failed operation left %v leads behind", total)
		}
	})
	t.Run("Dashboard", func(t *testing.T) {
		data, code := gql(t, e, e.Key, `mutation { createTeam(input: {name: "Closers"}) { id } }`, nil)
		if code != "" {
			t.Fatalf("createTeam: %s", code)
		}
		team := data["createTeam"].(map[string]any)["id"]
		_, code = gql(t, e, e.Key, `mutation($t: ID!) { createUser(input: {firstName: "Cy", lastName: "Closer", email: "cy@example.com", role: advisor, teamId: $t}) { id team { name } } }`,
			map[string]any{"t": team})
		if code != "" {
			t.Fatalf("createUser: %s", code)
		}
		data, _ = gql(t, e, e.Key, `{ users(first: 10) { totalCount } teams { totalCount } stages { totalCount } }`, nil)
		if data["stages"].(map[string]any)["totalCount"] != 7.0 || data["teams"].(map[string]any)["totalCount"] != 1.0 {
			t.Errorf("dashboard = %v", data)
		}
	})
}

func TestGraphQLOrgIsolation(t *testing.T) {
	e := resttest.New(t)
	id := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Secret"}).Data()["id"].(string)
	_, otherKey := e.NewOrg("Other", viewer.AllScopes...)
	t.Run("Lead", func(t *testing.T) {
		_, code := gql(t, e, otherKey, `query($id: ID!) { lead(id: $id) { id } }`, map[string]any{"id": id})
		if code != "NOT_FOUND" {
			t.Errorf("code = %q, want NOT_FOUND", code)
		}
	})
	t.Run("Node", func(t *testing.T) {
		data, code := gql(t, e, otherKey, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": id})
		if code != "NOT_FOUND" || data["node"] != nil {
			t.Errorf("node = %v, code %q", data["node"], code)
		}
	})
	t.Run("Connection", func(t *testing.T) {
		data, _ := gql(t, e, otherKey, `{ leads { totalCount } leadsPage(search: "secret") { total } }`, nil)
		if data["leads"].(map[string]any)["totalCount"] != 0.0 || data["leadsPage"].(map[string]any)["total"] != 0.0 {
			t.Errorf("other org sees %v", data)
		}
	})
	t.Run("Update", func(t *testing.T) {
		_, code := gql(t, e, otherKey, `mutation($id: ID!) { updateLead(id: $id, input: {industry: "x"}) { id } }`, map[string]any{"id": id})
		if code != "NOT_FOUND" {
			t.Errorf("code = %q, want NOT_FOUND", code)
		}
	})
	t.Run("CrossOrgReference", func(t *testing.T) {
		_, code := gql(t, e, otherKey, `mutation($s: ID!) { createLead(input: {stageId: $s}) { id } }`,
			map[string]any{"s": e.Stages(e.Org.ID)[0].ID})
		if code != "VALIDATION_ERROR" {
			t.Errorf("code = %q, want VALIDATION_ERROR", code)
		}
		team := e.NewUser(e.Org.ID, "In", "Team", "agent", "Floor").TeamID
		_, code = gql(t, e, otherKey, `mutation($t: ID!) { createUser(input: {firstName: "X", lastName: "Y", email: "x@y.com", teamId: $t}) { id } }`,
			map[string]any{"t": team})
		if code != "VALIDATION_ERROR" {
			t.Errorf("user in another org's team: code = %q, want VALIDATION_ERROR", code)
		}
	})
}

func TestWebhookSubscriptionsOverGraphQL(t *testing.T) {
	e := resttest.New(t)
	data, code := gql(t, e, e.Key, `mutation { createWebhookSubscription(input: {url: "https://hooks.example.com/a", events: ["lead.created"]}) {
		secret subscription { id url events isActive } } }`, nil)
	if code != "" {
		t.Fatalf("create: %s", code)
	}
	created := data["createWebhookSubscription"].(map[string]any)
	if s, _ := created["secret"].(string); len(s) < 20 || s[:6] != "whsec_" {
		t.Errorf("secret = %v", created["secret"])
	}
	id := created["subscription"].(map[string]any)["id"]
	data, code = gql(t, e, e.Key, `query { webhookSubscriptions { totalCount edges { node { id url } } } }`, nil)
	if code != "" || data["webhookSubscriptions"].(map[string]any)["totalCount"] != 1.0 {
		t.Errorf("list = %v %s", data, code)
	}
	if _, code := gql(t, e, e.Key, `mutation($id: ID!) { updateWebhookSubscription(id: $id, input: {isActive: false}) { isActive pausedReason } }`, map[string]any{"id": id}); code != "" {
		t.Errorf("update: %s", code)
	}
	if _, code := gql(t, e, e.Key, `mutation { createWebhookSubscription(input: {url: "https://h.example.com", events: ["nope"]}) { secret } }`, nil); code != "VALIDATION_ERROR" {
		t.Errorf("unknown event: code %q", code)
	}
	noScope := e.NewKey(e.Org.ID, "leads:read")
	if _, code := gql(t, e, noScope, `query { webhookSubscriptions { totalCount } }`, nil); code != "FORBIDDEN" {
		t.Errorf("without webhooks:manage: code %q, want FORBIDDEN", code)
	}
	if _, code := gql(t, e, e.Key, `mutation($id: ID!) { deleteWebhookSubscription(id: $id) }`, map[string]any{"id": id}); code != "" {
		t.Errorf("delete: %s", code)
	}
}

func TestInboundEndpointsOverGraphQL(t *testing.T) {
	e := resttest.New(t)
	data, code := gql(t, e, e.Key, `mutation { createInboundEndpoint(input: {name: "Forms", mapping: {businessName: "$.company"}}) {
		secret endpoint { id endpointKey isActive mapping } } }`, nil)
	if code != "" {
		t.Fatalf("create: %s", code)
	}
	created := data["createInboundEndpoint"].(map[string]any)
	ep := created["endpoint"].(map[string]any)
	if s, _ := created["secret"].(string); len(s) < 20 || ep["mapping"].(map[string]any)["businessName"] != "$.company" {
		t.Errorf("created = %v", created)
	}
	if _, code := gql(t, e, e.Key, `mutation { createInboundEndpoint(input: {name: "Bad", mapping: {x: "$[?"}}) { secret } }`, nil); code != "VALIDATION_ERROR" {
		t.Errorf("bad JSONPath: code %q", code)
	}
	data, code = gql(t, e, e.Key, `query($id: ID!) { inboundEndpoints { totalCount } inboundRequests(endpointId: $id) { total } }`, map[string]any{"id": ep["id"]})
	if code != "" || data["inboundEndpoints"].(map[string]any)["totalCount"] != 1.0 || data["inboundRequests"].(map[string]any)["total"] != 0.0 {
		t.Errorf("queries = %v %s", data, code)
	}
	if _, code := gql(t, e, e.NewKey(e.Org.ID, "leads:write"), `query { inboundEndpoints { totalCount } }`, nil); code != "FORBIDDEN" {
		t.Errorf("without admin: code %q, want FORBIDDEN", code)
	}
}

// Operations nested deeper than MaxDepth are refused before any resolver
// runs, however cheap each level; at the limit they run.
func TestGraphQLDepthLimit(t *testing.T) {
	e := resttest.New(t)
	nest := func(levels int) string {
		// leads → edges → node → stage → leads ...: four levels per round.
		q := "id"
		for i := 0; i < levels/4; i++ {
			q = "leads(first: 1) { edges { node { stage { " + q + " } } } }"
		}
		return "{ stages(first: 1) { edges { node { " + q + " } } } }"
	}
	r := e.Post("/graphql", e.Key, map[string]any{"query": nest(20)})
	if !bytes.Contains(r.Raw, []byte("DEPTH_LIMIT_EXCEEDED")) || bytes.Contains(r.Raw, []byte(`"data":{`)) {
		t.Fatalf("a deep query was not refused: %d %s", r.Status, r.Raw)
	}
	if _, errs := gql(t, e, e.Key, "{ leads(first: 1) { edges { node { stage { stageKey } } } } }", nil); errs != "" {
		t.Fatalf("a shallow query was refused: %s", errs)
	}
}

// Leads render stage and advisor from a cache; a change to either shows on
// the next read.
func TestLeadShowsRenamedAdvisorAndStage(t *testing.T) {
	e := resttest.New(t)
	adv := e.NewUser(e.Org.ID, "Ada", "Advisor", "advisor", "")
	stage := e.Stages(e.Org.ID)[0]
	id := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Cached", "assignToAdvisorId": adv.ID}).Data()["id"].(string)
	if got := e.Get("/v1/leads/"+id, e.Key).Attr("primaryAdvisorName"); got != "Ada Advisor" {
		t.Fatalf("advisor name %v", got)
	}
	if _, code := gql(t, e, e.Key, `mutation($id: ID!) { updateUser(id: $id, input: {firstName: "Adele"}) { id } }`, map[string]any{"id": adv.ID}); code != "" {
		t.Fatal(code)
	}
	if _, code := gql(t, e, e.Key, `mutation($id: ID!) { updateStage(id: $id, input: {stageLabel: "Fresh"}) { id } }`, map[string]any{"id": stage.ID}); code != "" {
		t.Fatal(code)
	}
	r := e.Get("/v1/leads/"+id, e.Key)
	if r.Attr("primaryAdvisorName") != "Adele Advisor" || r.Attr("stage").(map[string]any)["stageLabel"] != "Fresh" {
		t.Fatalf("stale: %s", r.Raw)
	}
}

// An unfiltered leads connection's totalCount is the organization's
// maintained count; a filtered one counts its matches; a key without
// leads:read gets no total at all. Without orderBy, newest first, as REST.
func TestLeadsTotalCount(t *testing.T) {
	e := resttest.New(t)
	for _, name := range []string{"Acme", "Zed Freight", "Orbit"} {
		if r := e.Post("/v1/leads", e.Key, map[string]any{"businessName": name}); r.Status != http.StatusCreated {
			t.Fatalf("create: %s", r.Raw)
		}
	}
	data, code := gql(t, e, e.Key, `{ all: leads(first: 2) { totalCount edges { node { businessName } } }
		zed: leads(first: 2, where: {businessNameContains: "Zed"}) { totalCount } }`, nil)
	if code != "" {
		t.Fatalf("error %s", code)
	}
	all := data["all"].(map[string]any)
	var names []any
	for _, edge := range all["edges"].([]any) {
		names = append(names, edge.(map[string]any)["node"].(map[string]any)["businessName"])
	}
	if all["totalCount"] != 3.0 || fmt.Sprint(names) != "[Orbit Zed Freight]" {
		t.Errorf("unfiltered: %v", all)
	}
	if zed := data["zed"].(map[string]any); zed["totalCount"] != 1.0 {
		t.Errorf("filtered totalCount = %v, want 1", zed["totalCount"])
	}
	if _, code := gql(t, e, e.NewKey(e.Org.ID, "webhooks:manage"), `{ leads { totalCount } }`, nil); code != "FORBIDDEN" {
		t.Errorf("a key without leads:read: code %q, want FORBIDDEN", code)
	}
}
