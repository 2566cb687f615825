package rest_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lendingpipe/svc/rest/resttest"
)

// GET /v1/leads filters as GraphQL's leads(where:) does: each filter given
// must hold, the total counts the matches, and a malformed value is 422
// naming the parameter.
func TestLeadFilters(t *testing.T) {
	e := resttest.New(t)
	e.Clock.Set(time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)) // the three leads are created on one day
	stages := e.Stages(e.Org.ID)
	maya := e.NewUser(e.Org.ID, "Maya", "Chen", "advisor", "")
	hot := createLead(t, e, e.Key, map[string]any{"businessName": "Hot Co", "priority": "high", "source": "referral",
		"tags": []string{"hot", "callback"}, "stageId": stages[2].ID, "assignToAdvisorId": maya.ID})
	e.Clock.Advance(time.Hour)
	warm := createLead(t, e, e.Key, map[string]any{"businessName": "Warm Co", "priority": "high", "tags": []string{"hot"}})
	e.Clock.Advance(time.Hour)
	cold := createLead(t, e, e.Key, map[string]any{"businessName": "Cold Co", "source": "web_form"})
	created := func(id string) string { return e.Get("/v1/leads/"+id, e.Key).Attr("createdAt").(string) }

	for query, want := range map[string][]string{
		"":                                     {cold, warm, hot},
		"priority=high":                        {warm, hot},
		"source=referral":                      {hot},
		"stageId=" + stages[2].ID.String():     {hot},
		"primaryAdvisorId=" + maya.ID.String(): {hot},
		"tags=hot":                             {warm, hot},
		"search=co&priority=high":              {warm, hot}, // a search beside filters: newest first
		"search=hot&tags=hot":                  {hot},
		"tags=hot,callback":                    {hot},
		"priority=high&source=web_form":        {},
		"createdFrom=" + url.QueryEscape(created(warm)):                         {cold, warm},
		"createdTo=" + url.QueryEscape(created(warm)):                           {hot},
		"createdFrom=" + created(hot)[:10] + "&createdTo=" + created(cold)[:10]: {cold, warm, hot},
	} {
		r := e.Get("/v1/leads?"+query, e.Key)
		mustIDs(t, r, want...)
	}
	for _, c := range []struct{ query, field string }{
		{"stageId=first", "stageId"}, {"primaryAdvisorId=maya", "primaryAdvisorId"}, {"priority=hot", "priority"},
		{"source=fax", "source"}, {"createdFrom=yesterday", "createdFrom"}, {"createdTo=2026-02-30", "createdTo"},
		{"search=" + strings.Repeat("x", 201) + "&priority=high", "search"}, {"tags=" + strings.Repeat("x", 51), "tags"},
		{"tags=" + manyTags(51), "tags"},
		{"createdFrom=2026-03-11&createdTo=2026-03-10", "createdTo"},
		{"createdFrom=" + url.QueryEscape(created(warm)) + "&createdTo=" + url.QueryEscape(created(warm)), "createdTo"},
	} {
		mustError(t, e.Get("/v1/leads?"+c.query, e.Key), http.StatusUnprocessableEntity, "VALIDATION_ERROR", c.field)
	}
}

// manyTags is n distinct tags, comma-separated.
func manyTags(n int) string {
	tags := make([]string, n)
	for i := range tags {
		tags[i] = "tag" + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	return strings.Join(tags, ",")
}

// An unknown query parameter is 422 naming it on every route, rather than
// ignored: a filter a route does not take would otherwise answer every record.
func TestUnknownQueryParameter(t *testing.T) {
	e := resttest.New(t)
	lead := createLead(t, e, e.Key, map[string]any{"businessName": "Acme"})
	for _, path := range []string{"/v1/leads?stage=new", "/v1/leads/" + lead + "?expand=stage", "/v1/lenders?isactive=true",
		"/v1/funded-deals?from=2026-01-01", "/v1/analytics/funding?tz=UTC", "/v1/app-webhooks?page=1&colour=red",
		"/v1/leads?" + strings.Repeat("x", 300) + "=1", "/v1/webhooks/catalog?format=yaml"} {
		r := e.Get(path, e.Key)
		_, field := r.Error()
		if r.Status != http.StatusUnprocessableEntity || field == "" || len(field) > 100 || !strings.Contains(path, field[:min(len(field), 90)]) {
			t.Errorf("%s: %d naming %q, want 422 naming the parameter", path, r.Status, field)
		}
	}
	// Every documented parameter is still taken.
	for _, path := range []string{"/v1/leads?page=1&limit=5&search=acme", "/v1/funded-deals?fundedFrom=2026-01-01&page=1",
		"/v1/analytics/funding?from=2026-01-01&timezone=UTC&interval=month"} {
		if r := e.Get(path, e.Key); r.Status != http.StatusOK {
			t.Errorf("%s: %d %s", path, r.Status, r.Raw)
		}
	}
}
