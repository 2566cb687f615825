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

// A variable's value of the wrong form is VALIDATION_ERROR naming the
// variable (named here as REST names the parameter), as REST answers a
// malformed parameter; a mistake in the document itself stays
// GRAPHQL_VALIDATION_FAILED.
func TestVariableErrorsAreValidationErrors(t *testing.T) {
	l := newLendingEnv(t)
	for _, c := range []struct {
		query string
		vars  map[string]any
		field string
	}{
		{`query($page: Int) { leadsPage(page: $page) { total } }`, map[string]any{"page": "two"}, "page"},
		{analyticsDoc, map[string]any{"interval": "fortnight"}, "interval"},
		{`query($priority: LeadPriority) { leadsPage(where: {priority: $priority}) { total } }`, map[string]any{"priority": "hot"}, "priority"},
	} {
		r := l.Post("/graphql", l.key, map[string]any{"query": c.query, "variables": c.vars})
		errs, _ := r.Body["errors"].([]any)
		if r.Status != 422 || len(errs) != 1 {
			t.Errorf("%v: %d %s", c.vars, r.Status, r.Raw)
			continue
		}
		wantError(t, errs[0].(map[string]any)["extensions"].(map[string]any), "VALIDATION_ERROR", c.field)
	}
	r := l.Post("/graphql", l.key, map[string]any{"query": `{ leadsPage(page: "two") { total } }`})
	if errs, _ := r.Body["errors"].([]any); len(errs) == 0 || errs[0].(map[string]any)["extensions"].(map[string]any)["code"] != "GRAPHQL_VALIDATION_FAILED" {
		t.Errorf("a literal of the wrong type in the document: %s", r.Raw)
	}
}
