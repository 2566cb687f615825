package graph_test

import (
	"strings"
	"testing"
)

// A refused value is echoed in at most 100 characters: a 100,000-character
// time zone gets a short answer naming the parameter.
func TestRefusedValueQuotedShort(t *testing.T) {
	l := newLendingEnv(t)
	r := l.Post("/graphql", l.key, map[string]any{"query": analyticsDoc, "variables": map[string]any{"tz": strings.Repeat("Z", 100_000)}})
	if len(r.Raw) > 1000 || !strings.Contains(string(r.Raw), `"field":"timezone"`) {
		t.Errorf("GraphQL answer of %d bytes: %.300s", len(r.Raw), r.Raw)
	}
	rest := l.Get("/v1/analytics/funding?timezone="+strings.Repeat("Z", 5000), l.key)
	if _, field := rest.Error(); rest.Status != 422 || field != "timezone" || len(rest.Raw) > 1000 {
		t.Errorf("REST: %d, %d bytes: %.300s", rest.Status, len(rest.Raw), rest.Raw)
	}
}

// A value of the wrong form, given as a variable or written in the
// document, is VALIDATION_ERROR naming the variable, argument or input
// field (named here as REST names the parameter), as REST answers a
// malformed parameter; a mistake in the document's shape (a field the type
// lacks, a missing argument) stays GRAPHQL_VALIDATION_FAILED.
func TestInputValueErrorsAreValidationErrors(t *testing.T) {
	l := newLendingEnv(t)
	for _, c := range []struct {
		query string
		vars  map[string]any
		field string
	}{
		{`query($page: Int) { leadsPage(page: $page) { total } }`, map[string]any{"page": "two"}, "page"},
		{analyticsDoc, map[string]any{"interval": "fortnight"}, "interval"},
		{`query($priority: LeadPriority) { leadsPage(where: {priority: $priority}) { total } }`, map[string]any{"priority": "hot"}, "priority"},
		{`{ leadsPage(page: "two") { total } }`, nil, "page"},
		{`{ leadsPage(where: {source: api, priority: hot}) { total } }`, nil, "priority"},
		{`{ leadsPage(tags: ["a", 2]) { total } }`, nil, "tags"},
		{`{ leadsPage(where: {stageId: true}) { total } }`, nil, "stageId"},
		// A member the input type lacks, or a required one missing, is a
		// malformed input, as an unknown or missing member of a REST body.
		{`{ leadsPage(where: {stageID: "a"}) { total } }`, nil, "stageID"},
		{`mutation { createAutomation(input: {name: "x", trigger: {event: "lead.created"}, actions: [{tags: ["a"]}]}) { id } }`, nil, "actions[0].type"},
		// Members are named by their path below the argument, as REST names them.
		{`mutation { createAutomation(input: {name: "x", trigger: {event: 5}, actions: [{type: "add_tags"}]}) { id } }`, nil, "trigger.event"},
		{`mutation($i: NewAutomation!) { createAutomation(input: $i) { id } }`, map[string]any{"i": map[string]any{"name": "x",
			"trigger": map[string]any{"event": "lead.created"}, "actions": []any{map[string]any{"type": "add_tags", "tags": []any{"a", 5}}}}},
			"actions[0].tags"},
		// A number is not a String, in a variable as in the document.
		{`query($search: String) { leadsPage(search: $search) { total } }`, map[string]any{"search": 5}, "search"},
		// A variable's default value and a directive's argument are named too.
		{`query($page: Int = "x") { leadsPage(page: $page) { total } }`, nil, "page"},
		{`{ leadsPage { total @include(if: "yes") } }`, nil, "if"},
	} {
		r := l.Post("/graphql", l.key, map[string]any{"query": c.query, "variables": c.vars})
		errs, _ := r.Body["errors"].([]any)
		if r.Status != 422 || len(errs) != 1 {
			t.Errorf("%s %v: %d %s", c.query, c.vars, r.Status, r.Raw)
			continue
		}
		wantError(t, errs[0].(map[string]any)["extensions"].(map[string]any), "VALIDATION_ERROR", c.field)
	}
	// A range whose end is not after its start is refused, naming the end,
	// as REST's createdTo and fundedTo are.
	for doc, field := range map[string]string{
		`{ leadsPage(where: {createdAtGTE: "2026-02-01T00:00:00Z", createdAtLT: "2026-01-01T00:00:00Z"}) { total } }`: "createdAtLT",
		`{ fundedDealsPage(fundedFrom: "2026-02-01T00:00:00Z", fundedTo: "2026-02-01T00:00:00Z") { total } }`:         "fundedTo",
	} {
		r := l.Post("/graphql", l.key, map[string]any{"query": doc})
		errs, _ := r.Body["errors"].([]any)
		if len(errs) != 1 {
			t.Fatalf("%s: %s", doc, r.Raw)
		}
		wantError(t, errs[0].(map[string]any)["extensions"].(map[string]any), "VALIDATION_ERROR", field)
	}
	for _, doc := range []string{`{ leadsPage { totl } }`, `{ lead { id } }`} {
		r := l.Post("/graphql", l.key, map[string]any{"query": doc})
		if errs, _ := r.Body["errors"].([]any); len(errs) == 0 || errs[0].(map[string]any)["extensions"].(map[string]any)["code"] != "GRAPHQL_VALIDATION_FAILED" {
			t.Errorf("%s, a mistake in the document's shape: %s", doc, r.Raw)
		}
	}
}
