package graph_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql/introspection"

	"github.com/lendingpipe/svc/rest/resttest"
)

// maxFuzzAnswer bounds any answer to a fuzzed request: the largest a real
// one gets is the full introspection, a few hundred kilobytes.
const maxFuzzAnswer = 4 << 20

// checkAnswer fails on what bad input must never cause: a 5xx, an answer
// that is not JSON or is unbounded, or an internal error (a recovered
// panic is one).
func checkAnswer(t *testing.T, input any, status int, raw []byte) {
	t.Helper()
	if status >= 500 {
		t.Fatalf("%q: %d %.500s", input, status, raw)
	}
	if !json.Valid(raw) {
		t.Fatalf("%q: the answer is not JSON: %.500q", input, raw)
	}
	if len(raw) > maxFuzzAnswer {
		t.Fatalf("%q: a %d-byte answer", input, len(raw))
	}
	if strings.Contains(string(raw), `"INTERNAL_ERROR"`) {
		t.Fatalf("%q: an internal error: %.500s", input, raw)
	}
}

// Any bytes POSTed to /graphql are answered 2xx or 4xx, in JSON, bounded.
func FuzzGraphQLBody(f *testing.F) {
	e := resttest.New(f)
	for _, seed := range []string{`{"query": "{ leads(first: 2) { totalCount edges { node { id } } } }"}`,
		`{"query": "query($n: Int) { users(first: $n) { totalCount } }", "variables": {"n": 101}}`,
		`{"query": 5}`, `[1,2]`, `{"variables": "x"}`, `{"query": "{ __typename }", "operationName": "X"}`,
		`{"query": "mutation { createLead(input: {businessName: \"Fz\"}) { id } }"}`, `null`, `{"query": "{"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		status, raw := postRaw(t, e, body, false)
		checkAnswer(t, body, status, raw)
	})
}

// Any query text is parsed, validated and run against a real database
// without a 5xx, a panic or an internal error.
func FuzzGraphQLQuery(f *testing.F) {
	e := resttest.New(f)
	id := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Fuzzed", "phone": "+15550100"}).Data()["id"].(string)
	for _, seed := range []string{
		`{ leads(first: 5) { totalCount pageInfo { hasNextPage } edges { cursor node { id businessName stage { stageKey leads(first: 1) { totalCount } } } } } }`,
		`query($id: ID!) { lead(id: $id) { id callEvents(last: 2) { edges { node { id } } } } node(id: $id) { id } }`,
		`{ leadsPage(page: 2, limit: 3, search: "fuz") { total nodes { id } } agentsBoardPage { total } agentsBoard(last: 2) { totalCount edges { cursor node { id } } } }`,
		`{ users { edges { node { advisedLeads { totalCount } callEvents { totalCount } team { members(first: 2) { totalCount } } } } } }`,
		`mutation { updateLead(id: "` + id + `", input: {industry: "Freight"}) { id } }`,
		`mutation { markDoNotCall(phone: "+15550100") { leadCount leads(first: 1) { id } } }`,
		`{ a: leads(first: 100) { edges { node { id } } } b: leads(first: 100) { edges { node { id } } } }`,
		`{ __schema { types { name fields { name type { ofType { name } } } } } }`,
		`fragment F on Query { ...F } { ...F }`,
		introspection.Query,
		`{ leads(first: 1, after: "bm90LWEtY3Vyc29y") { totalCount } }`,
		`{ contacts(where: {firstNameContains: "a"}, orderBy: {field: CREATED_AT}) { totalCount } }`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, query string) {
		body, err := json.Marshal(map[string]any{"query": query, "variables": map[string]any{"id": id}})
		if err != nil {
			t.Fatal(err)
		}
		status, raw := postRaw(t, e, body, false)
		checkAnswer(t, query, status, raw)
		if status != http.StatusOK && status != http.StatusUnprocessableEntity && status != http.StatusBadRequest {
			t.Fatalf("%q: status %d", query, status)
		}
	})
}
