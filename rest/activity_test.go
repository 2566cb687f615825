package rest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

// TestLeadActivity reads a lead's history over GET /v1/leads/{id}/activity:
// each change once, newest first, with who made it and what it changed,
// paged as every list is.
func TestLeadActivity(t *testing.T) {
	e := resttest.New(t)
	stages := e.Stages(e.Org.ID)
	id := createLead(t, e, e.Key, map[string]any{"businessName": "History Co", "industry": "Retail"})
	e.Clock.Advance(time.Second)
	mustStatus(t, e.Patch("/v1/leads/"+id, e.Key, map[string]any{"businessName": "History Co LLC", "industry": nil}), http.StatusOK)
	e.Clock.Advance(time.Second)
	mustStatus(t, e.Post("/v1/leads/"+id+"/stage", e.Key, map[string]any{"stageId": stages[1].ID}), http.StatusOK)

	t.Run("OK", func(t *testing.T) {
		r := e.Get("/v1/leads/"+id+"/activity", e.Key)
		mustStatus(t, r, http.StatusOK)
		items := r.Items()
		var kinds []string
		for _, it := range items {
			if it["type"] != "activity" {
				t.Errorf("type = %v, want activity", it["type"])
			}
			kinds = append(kinds, it["attributes"].(map[string]any)["kind"].(string))
		}
		want := []string{"lead.stage_changed", "lead.updated", "lead.created"}
		if len(kinds) != len(want) || kinds[0] != want[0] || kinds[1] != want[1] || kinds[2] != want[2] {
			t.Fatalf("kinds = %v, want %v", kinds, want)
		}
		if m := r.Meta(); m["total"] != float64(3) || m["hasMore"] != false {
			t.Errorf("meta = %v, want total 3, hasMore false", m)
		}
		updated := items[1]["attributes"].(map[string]any)
		actor := updated["actor"].(map[string]any)
		if actor["type"] != "api_key" || actor["id"] == nil || actor["name"] != "test" {
			t.Errorf("actor = %v, want the key that made the change", actor)
		}
		if updated["recordId"] != id {
			t.Errorf("recordId = %v, want the lead %s", updated["recordId"], id)
		}
		got := map[string][2]any{}
		for _, c := range updated["changes"].([]any) {
			ch := c.(map[string]any)
			got[ch["field"].(string)] = [2]any{ch["from"], ch["to"]}
		}
		if got["businessName"] != [2]any{"History Co", "History Co LLC"} || got["industry"] != [2]any{"Retail", nil} || len(got) != 2 {
			t.Errorf("changes = %v, want businessName and industry (cleared)", got)
		}
		if ch := items[2]["attributes"].(map[string]any)["changes"].([]any); len(ch) != 0 {
			t.Errorf("lead.created changes = %v, want []", ch)
		}
	})
	t.Run("Paged", func(t *testing.T) {
		r := e.Get("/v1/leads/"+id+"/activity?page=2&limit=1", e.Key)
		mustStatus(t, r, http.StatusOK)
		items := r.Items()
		if len(items) != 1 || items[0]["attributes"].(map[string]any)["kind"] != "lead.updated" {
			t.Fatalf("page 2 of 1 = %v, want lead.updated", items)
		}
		if m := r.Meta(); m["total"] != float64(3) || m["page"] != float64(2) || m["hasMore"] != true {
			t.Errorf("meta = %v, want total 3, page 2, hasMore", m)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, otherKey := e.NewOrg("Other Shop", viewer.AllScopes...)
		for name, r := range map[string]*resttest.Response{
			"unknown":            e.Get("/v1/leads/"+uuid.NewString()+"/activity", e.Key),
			"not a UUID":         e.Get("/v1/leads/not-a-lead/activity", e.Key),
			"other organization": e.Get("/v1/leads/"+id+"/activity", otherKey),
		} {
			t.Run(name, func(t *testing.T) { mustError(t, r, http.StatusNotFound, "NOT_FOUND", "") })
		}
	})
	t.Run("ErrValidation", func(t *testing.T) {
		mustError(t, e.Get("/v1/leads/"+id+"/activity?limit=0", e.Key), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "limit")
		mustError(t, e.Get("/v1/leads/"+id+"/activity?page=x", e.Key), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "page")
		mustError(t, e.Get("/v1/leads/"+id+"/activity?kind=call", e.Key), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "kind")
	})
	t.Run("ErrForbidden", func(t *testing.T) {
		key := e.NewKey(e.Org.ID, viewer.ScopeLendingRead)
		mustError(t, e.Get("/v1/leads/"+id+"/activity", key), http.StatusForbidden, "FORBIDDEN", "")
	})
}
