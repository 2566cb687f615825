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
