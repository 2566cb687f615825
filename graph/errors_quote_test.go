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
		{`{ leadsPage(where: {stageID: "a"}) { total } }`, nil, "stageID"},
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
