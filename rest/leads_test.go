package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

func mustStatus(t testing.TB, r *resttest.Response, want int) {
	t.Helper()
	if r.Status != want {
		t.Fatalf("status = %d, want %d; body: %s", r.Status, want, r.Raw)
	}
}

func mustError(t *testing.T, r *resttest.Response, status int, code, field string) {
	t.Helper()
	mustStatus(t, r, status)
	gotCode, gotField := r.Error()
	if gotCode != code || gotField != field {
		t.Fatalf("error = %s field %q, want %s field %q; body: %s", gotCode, gotField, code, field, r.Raw)
	}
}

func createLead(t *testing.T, e *resttest.Env, key string, body map[string]any) string {
	t.Helper()
	r := e.Post("/v1/leads", key, body)
	mustStatus(t, r, http.StatusCreated)
	return r.Data()["id"].(string)
}

func TestCreateLead(t *testing.T) {
	e := resttest.New(t)
	t.Run("OK", func(t *testing.T) {
		r := e.Post("/v1/leads", e.Key, map[string]any{
			"businessName": "Acme Trucking LLC", "contactFirstName": "Jane", "contactLastName": "Doe",
			"email": "jane@acme.com", "phone": "+1 555 0100", "industry": "Logistics",
			"monthlyRevenue": "85000.00", "requestedAmount": "250000", "tags": []string{"hot", "trucking"},
			"customFields": map[string]any{"fleetSize": 12},
		})
		mustStatus(t, r, http.StatusCreated)
		d := r.Data()
		if d["type"] != "lead" {
			t.Errorf("type = %v, want lead", d["type"])
		}
		if _, err := uuid.Parse(d["id"].(string)); err != nil {
			t.Errorf("id %v is not a UUID", d["id"])
		}
		for field, want := range map[string]any{
			"businessName": "Acme Trucking LLC", "email": "jane@acme.com", "monthlyRevenue": "85000.00",
			"source": "manual", "priority": "normal", "isDoNotCall": false, "leadScore": nil,
			"primaryAdvisorId": nil, "lastContactedAt": nil, "dncReason": nil, "dncAt": nil,
			"convertedAt": nil, "convertedAccountId": nil, "convertedContactId": nil, "importJobId": nil,
		} {
			if got := r.Attr(field); got != want {
				t.Errorf("%s = %#v, want %#v", field, got, want)
			}
		}
		stage := r.Attr("stage").(map[string]any)
		first := e.Stages(e.Org.ID)[0]
		if stage["id"] != first.ID.String() || stage["stageKey"] != "new" || stage["color"] != first.Color {
			t.Errorf("stage = %v, want the first stage %v", stage, first)
		}
		if r.Meta()["requestId"] != r.Header.Get("X-Request-Id") {
			t.Errorf("meta.requestId %v != X-Request-Id %q", r.Meta()["requestId"], r.Header.Get("X-Request-Id"))
		}
		for _, h := range []string{"SVC-API-Version", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
			if r.Header.Get(h) == "" {
				t.Errorf("missing header %s", h)
			}
		}
	})
	t.Run("StageAdvisorAndSource", func(t *testing.T) {
		stage := e.Stages(e.Org.ID)[2]
		adv := e.NewUser(e.Org.ID, "Ada", "Advisor", "advisor", "")
		r := e.Post("/v1/leads", e.Key, map[string]any{
			"stageId": stage.ID, "assignToAdvisorId": adv.ID, "source": "referral", "priority": "urgent",
		})
		mustStatus(t, r, http.StatusCreated)
		if got := r.Attr("stage").(map[string]any)["id"]; got != stage.ID.String() {
			t.Errorf("stage = %v, want %v", got, stage.ID)
		}
		if r.Attr("primaryAdvisorId") != adv.ID.String() || r.Attr("primaryAdvisorName") != "Ada Advisor" {
			t.Errorf("advisor = %v %v", r.Attr("primaryAdvisorId"), r.Attr("primaryAdvisorName"))
		}
		if r.Attr("source") != "referral" || r.Attr("priority") != "urgent" {
			t.Errorf("source, priority = %v, %v", r.Attr("source"), r.Attr("priority"))
		}
	})
	t.Run("EmptyObject", func(t *testing.T) {
		mustStatus(t, e.Post("/v1/leads", e.Key, map[string]any{}), http.StatusCreated)
	})
}

func TestCreateLeadValidation(t *testing.T) {
	e := resttest.New(t)
	other, _ := e.NewOrg("Other Org", viewer.AllScopes...)
	otherStage := e.Stages(other.ID)[0]
	otherUser := e.NewUser(other.ID, "Otto", "Other", "advisor", "")
	long := func(n int) string { return strings.Repeat("é", n) } // characters, not bytes
	cases := []struct {
		name  string
		field string
		value any
	}{
		{"BusinessNameEmpty", "businessName", ""},
		{"BusinessNameTooLong", "businessName", long(256)},
		{"BusinessNameHTML", "businessName", "<script>alert(1)</script>"},
		{"BusinessNameEntity", "businessName", "Acme &amp; Sons"},
		{"BusinessNameNotString", "businessName", 12},
		{"ContactFirstNameTooLong", "contactFirstName", long(101)},
		{"ContactLastNameTooLong", "contactLastName", long(101)},
		{"EmailInvalid", "email", "jane-at-acme"},
		{"EmailDisplayName", "email", "Jane <jane@acme.com>"},
		{"PhoneTooLong", "phone", strings.Repeat("1", 21)},
		{"IndustryTooLong", "industry", long(101)},
		{"MonthlyRevenueNotNumeric", "monthlyRevenue", "lots"},
		{"MonthlyRevenueNumber", "monthlyRevenue", 85000},
		{"RequestedAmountExponent", "requestedAmount", "1e6"},
		{"RequestedAmountNegative", "requestedAmount", "-5"},
		{"SourceUnknown", "source", "carrier_pigeon"},
		{"PriorityUnknown", "priority", "whenever"},
		{"StageIDNotUUID", "stageId", "first"},
		{"StageIDUnknown", "stageId", uuid.NewString()},
		{"StageIDOtherOrg", "stageId", otherStage.ID},
		{"AdvisorUnknown", "assignToAdvisorId", uuid.NewString()},
		{"AdvisorOtherOrg", "assignToAdvisorId", otherUser.ID},
		{"ContactUnknown", "contactId", uuid.NewString()},
		{"TagsNotArray", "tags", "hot"},
		{"TagsTooMany", "tags", make([]string, 51)},
		{"TagEmpty", "tags", []string{""}},
		{"CustomFieldsNotObject", "customFields", []int{1}},
		{"UnknownField", "favouriteColour", "blue"},
		{"ReadOnlyField", "isDoNotCall", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Post("/v1/leads", e.Key, map[string]any{c.field: c.value})
			mustError(t, r, http.StatusUnprocessableEntity, "VALIDATION_ERROR", c.field)
		})
	}
	t.Run("NothingStoredOnFailure", func(t *testing.T) {
		list := e.Get("/v1/leads", e.Key)
		if total := list.Meta()["total"]; total != 0.0 {
			t.Fatalf("total = %v after only failed creates, want 0", total)
		}
	})
	t.Run("Boundaries", func(t *testing.T) {
		r := e.Post("/v1/leads", e.Key, map[string]any{
			"businessName": long(255), "contactFirstName": long(100), "contactLastName": long(100),
			"industry": long(100), "phone": strings.Repeat("1", 20), "monthlyRevenue": "0",
			"requestedAmount": "123456789012345.1234", "tags": make([]string, 0),
		})
		mustStatus(t, r, http.StatusCreated)
	})
}

func TestMalformedBodies(t *testing.T) {
	e := resttest.New(t)
	id := createLead(t, e, e.Key, map[string]any{"businessName": "Acme"})
	for name, body := range map[string]string{
		"Syntax":   `{"businessName": "Acme"`,
		"Array":    `[{"businessName": "Acme"}]`,
		"Null":     `null`,
		"Empty":    ``,
		"Trailing": `{"businessName": "Acme"} {}`,
		"String":   `"Acme"`,
	} {
		t.Run("Create"+name, func(t *testing.T) {
			mustError(t, e.Post("/v1/leads", e.Key, body), http.StatusBadRequest, "BAD_REQUEST", "")
		})
		t.Run("Patch"+name, func(t *testing.T) {
			mustError(t, e.Patch("/v1/leads/"+id, e.Key, body), http.StatusBadRequest, "BAD_REQUEST", "")
		})
	}
	t.Run("TooLarge", func(t *testing.T) {
		big := `{"businessName": "` + strings.Repeat("a", 1<<20) + `"}`
		mustError(t, e.Post("/v1/leads", e.Key, big), http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", "")
	})
}

func TestGetLead(t *testing.T) {
	e := resttest.New(t)
	id := createLead(t, e, e.Key, map[string]any{"businessName": "Acme"})
	t.Run("OK", func(t *testing.T) {
		r := e.Get("/v1/leads/"+id, e.Key)
		mustStatus(t, r, http.StatusOK)
		if r.Data()["id"] != id || r.Attr("businessName") != "Acme" {
			t.Fatalf("got %s", r.Raw)
		}
	})
	t.Run("Unknown", func(t *testing.T) {
		mustError(t, e.Get("/v1/leads/"+uuid.NewString(), e.Key), http.StatusNotFound, "NOT_FOUND", "")
	})
	t.Run("NotUUID", func(t *testing.T) {
		mustError(t, e.Get("/v1/leads/not-a-uuid", e.Key), http.StatusNotFound, "NOT_FOUND", "")
	})
	t.Run("OtherOrg", func(t *testing.T) {
		_, otherKey := e.NewOrg("Other", viewer.AllScopes...)
		mustError(t, e.Get("/v1/leads/"+id, otherKey), http.StatusNotFound, "NOT_FOUND", "")
	})
}

func TestPatchLead(t *testing.T) {
	e := resttest.New(t)
	id := createLead(t, e, e.Key, map[string]any{
		"businessName": "Acme", "email": "jane@acme.com", "tags": []string{"a"}, "priority": "high",
	})
	t.Run("OK", func(t *testing.T) {
		r := e.Patch("/v1/leads/"+id, e.Key, map[string]any{
			"businessName": "Acme Holdings", "tags": []string{"b", "c"}, "customFields": map[string]any{"k": "v"},
		})
		mustStatus(t, r, http.StatusOK)
		if r.Attr("businessName") != "Acme Holdings" || r.Attr("email") != "jane@acme.com" {
			t.Errorf("got %s", r.Raw)
		}
		if fmt.Sprint(r.Attr("tags")) != "[b c]" || r.Attr("priority") != "high" {
			t.Errorf("tags, priority = %v, %v", r.Attr("tags"), r.Attr("priority"))
		}
		if r.Attr("updatedAt") == r.Attr("createdAt") {
			t.Errorf("updatedAt did not move")
		}
	})
	t.Run("NullClears", func(t *testing.T) {
		r := e.Patch("/v1/leads/"+id, e.Key, map[string]any{"email": nil, "tags": nil})
		mustStatus(t, r, http.StatusOK)
		if r.Attr("email") != nil || fmt.Sprint(r.Attr("tags")) != "[]" {
			t.Errorf("email, tags = %v, %v", r.Attr("email"), r.Attr("tags"))
		}
	})
	for _, field := range []string{"source", "stageId", "assignToAdvisorId", "contactId", "unknownThing"} {
		t.Run("Refuses_"+field, func(t *testing.T) {
			r := e.Patch("/v1/leads/"+id, e.Key, map[string]any{field: "manual"})
			mustError(t, r, http.StatusUnprocessableEntity, "VALIDATION_ERROR", field)
		})
	}
	t.Run("Validation", func(t *testing.T) {
		mustError(t, e.Patch("/v1/leads/"+id, e.Key, map[string]any{"email": "nope"}),
			http.StatusUnprocessableEntity, "VALIDATION_ERROR", "email")
		mustError(t, e.Patch("/v1/leads/"+id, e.Key, map[string]any{"businessName": ""}),
			http.StatusUnprocessableEntity, "VALIDATION_ERROR", "businessName")
	})
	t.Run("Unknown", func(t *testing.T) {
		mustError(t, e.Patch("/v1/leads/"+uuid.NewString(), e.Key, map[string]any{"industry": "x"}),
			http.StatusNotFound, "NOT_FOUND", "")
	})
	t.Run("OtherOrg", func(t *testing.T) {
		_, otherKey := e.NewOrg("Other", viewer.AllScopes...)
		mustError(t, e.Patch("/v1/leads/"+id, otherKey, map[string]any{"industry": "x"}),
			http.StatusNotFound, "NOT_FOUND", "")
		if got := e.Get("/v1/leads/"+id, e.Key).Attr("industry"); got != nil {
			t.Fatalf("industry = %v: another org changed the lead", got)
		}
	})
	t.Run("ReadOnlyKey", func(t *testing.T) {
		ro := e.NewKey(e.Org.ID, viewer.ScopeLeadsRead)
		mustError(t, e.Patch("/v1/leads/"+id, ro, map[string]any{"industry": "x"}),
			http.StatusForbidden, "FORBIDDEN", "")
	})
}

func TestListLeads(t *testing.T) {
	e := resttest.New(t)
	var ids []string
	for i := range 25 {
		ids = append(ids, createLead(t, e, e.Key, map[string]any{"businessName": fmt.Sprintf("Lead %02d", i)}))
	}
	t.Run("DefaultPage", func(t *testing.T) {
		r := e.Get("/v1/leads", e.Key)
		mustStatus(t, r, http.StatusOK)
		items := r.Items()
		if len(items) != 20 {
			t.Fatalf("items = %d, want the default 20", len(items))
		}
		if items[0]["id"] != ids[24] || items[19]["id"] != ids[5] {
			t.Errorf("not newest first: first %v last %v", items[0]["id"], items[19]["id"])
		}
		m := r.Meta()
		if m["total"] != 25.0 || m["page"] != 1.0 || m["limit"] != 20.0 || m["hasMore"] != true {
			t.Errorf("meta = %v", m)
		}
		if m["requestId"] != r.Header.Get("X-Request-Id") {
			t.Errorf("meta.requestId %v != X-Request-Id", m["requestId"])
		}
	})
	t.Run("LastPage", func(t *testing.T) {
		r := e.Get("/v1/leads?page=3&limit=10", e.Key)
		mustStatus(t, r, http.StatusOK)
		m := r.Meta()
		if len(r.Items()) != 5 || m["hasMore"] != false || m["page"] != 3.0 || m["limit"] != 10.0 {
			t.Errorf("items %d meta %v", len(r.Items()), m)
		}
		if r.Items()[4]["id"] != ids[0] {
			t.Errorf("last item = %v, want the oldest lead", r.Items()[4]["id"])
		}
	})
	t.Run("PastTheEnd", func(t *testing.T) {
		r := e.Get("/v1/leads?page=9&limit=10", e.Key)
		mustStatus(t, r, http.StatusOK)
		if len(r.Items()) != 0 || r.Meta()["total"] != 25.0 || r.Meta()["hasMore"] != false {
			t.Errorf("got %s", r.Raw)
		}
	})
	t.Run("MaxLimit", func(t *testing.T) {
		mustStatus(t, e.Get("/v1/leads?limit=100", e.Key), http.StatusOK)
	})
	for name, tc := range map[string]struct{ query, field string }{
		"LimitTooHigh": {"limit=101", "limit"},
		"LimitZero":    {"limit=0", "limit"},
		"LimitNotInt":  {"limit=ten", "limit"},
		"PageZero":     {"page=0", "page"},
		"PageNegative": {"page=-1", "page"},
		"PageNotInt":   {"page=1.5", "page"},
	} {
		t.Run(name, func(t *testing.T) {
			mustError(t, e.Get("/v1/leads?"+tc.query, e.Key), http.StatusUnprocessableEntity, "VALIDATION_ERROR", tc.field)
		})
	}
	t.Run("OtherOrgSeesNone", func(t *testing.T) {
		_, otherKey := e.NewOrg("Other", viewer.AllScopes...)
		r := e.Get("/v1/leads", otherKey)
		mustStatus(t, r, http.StatusOK)
		if len(r.Items()) != 0 || r.Meta()["total"] != 0.0 {
			t.Errorf("other org sees %s", r.Raw)
		}
	})
}

func TestSearchLeads(t *testing.T) {
	e := resttest.New(t)
	acme := createLead(t, e, e.Key, map[string]any{"businessName": "Acme Trucking", "email": "ops@acme-freight.com"})
	emailOnly := createLead(t, e, e.Key, map[string]any{"businessName": "Bolt Logistics", "email": "ap@acme.io"})
	person := createLead(t, e, e.Key, map[string]any{"businessName": "Cedar Cafe", "contactFirstName": "Marisol", "contactLastName": "Quintero"})
	createLead(t, e, e.Key, map[string]any{"businessName": "Delta Dental", "email": "hello@delta.com"})
	_, otherKey := e.NewOrg("Other", viewer.AllScopes...)
	createLead(t, e, otherKey, map[string]any{"businessName": "Acme Other Org"})

	search := func(t *testing.T, q string) []string {
		t.Helper()
		r := e.Get("/v1/leads?search="+q, e.Key)
		mustStatus(t, r, http.StatusOK)
		var ids []string
		for _, it := range r.Items() {
			ids = append(ids, it["id"].(string))
		}
		if r.Meta()["total"] != float64(len(ids)) {
			t.Errorf("total = %v, want %d", r.Meta()["total"], len(ids))
		}
		return ids
	}
	t.Run("PrefixAndRelevance", func(t *testing.T) {
		got := search(t, "acm")
		if len(got) != 2 || got[0] != acme || got[1] != emailOnly {
			t.Fatalf("search acm = %v, want [acme %s, email-only %s]", got, acme, emailOnly)
		}
	})
	t.Run("ContactName", func(t *testing.T) {
		if got := search(t, "quint"); len(got) != 1 || got[0] != person {
			t.Fatalf("search quint = %v, want [%s]", got, person)
		}
	})
	t.Run("EmailDomain", func(t *testing.T) {
		if got := search(t, "delta.com"); len(got) != 1 {
			t.Fatalf("search delta.com = %v", got)
		}
	})
	t.Run("AllWordsMustMatch", func(t *testing.T) {
		if got := search(t, "acme+truck"); len(got) != 1 || got[0] != acme {
			t.Fatalf("search 'acme truck' = %v", got)
		}
	})
	t.Run("NoMatch", func(t *testing.T) {
		if got := search(t, "zzzz"); len(got) != 0 {
			t.Fatalf("got %v", got)
		}
	})
	t.Run("QuerySyntaxIsInert", func(t *testing.T) {
		for _, q := range []string{`%22acme%22+OR+*`, `NEAR(acme)`, `acme%3A*`, `'%3B+DROP+TABLE+leads`} {
			r := e.Get("/v1/leads?search="+q, e.Key)
			mustStatus(t, r, http.StatusOK)
		}
	})
	t.Run("TooLong", func(t *testing.T) {
		mustError(t, e.Get("/v1/leads?search="+strings.Repeat("a", 201), e.Key), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "search")
	})
	t.Run("NoWords", func(t *testing.T) {
		if got := search(t, "%40%40%40"); len(got) != 0 {
			t.Fatalf("search @@@ = %v", got)
		}
	})
	t.Run("Paging", func(t *testing.T) {
		r := e.Get("/v1/leads?search=acme&limit=1&page=2", e.Key)
		mustStatus(t, r, http.StatusOK)
		if len(r.Items()) != 1 || r.Items()[0]["id"] != emailOnly || r.Meta()["total"] != 2.0 || r.Meta()["hasMore"] != false {
			t.Fatalf("got %s", r.Raw)
		}
	})
	t.Run("FollowsUpdates", func(t *testing.T) {
		mustStatus(t, e.Patch("/v1/leads/"+person, e.Key, map[string]any{"businessName": "Zephyr Bakery"}), http.StatusOK)
		if got := search(t, "zephyr"); len(got) != 1 || got[0] != person {
			t.Fatalf("search zephyr = %v", got)
		}
		if got := search(t, "cedar"); len(got) != 0 {
			t.Fatalf("search cedar after rename = %v", got)
		}
	})
	t.Run("SurvivesReindex", func(t *testing.T) {
		if err := e.DB.Reindex(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := search(t, "acm"); len(got) != 2 || got[0] != acme {
			t.Fatalf("search acm after reindex = %v", got)
		}
	})
}

func TestMoveAndAssign(t *testing.T) {
	e := resttest.New(t)
	id := createLead(t, e, e.Key, map[string]any{"businessName": "Acme"})
	stages := e.Stages(e.Org.ID)
	created := e.Get("/v1/leads/"+id, e.Key)
	t.Run("MoveStage", func(t *testing.T) {
		r := e.Post("/v1/leads/"+id+"/stage", e.Key, map[string]any{"stageId": stages[3].ID})
		mustStatus(t, r, http.StatusOK)
		if r.Attr("stage").(map[string]any)["stageKey"] != stages[3].StageKey {
			t.Errorf("stage = %v", r.Attr("stage"))
		}
		if r.Attr("stageChangedAt") == created.Attr("stageChangedAt") {
			t.Errorf("stageChangedAt did not move")
		}
	})
	t.Run("MoveToCurrentStageChangesNothing", func(t *testing.T) {
		before := e.Get("/v1/leads/"+id, e.Key)
		r := e.Post("/v1/leads/"+id+"/stage", e.Key, map[string]any{"stageId": stages[3].ID})
		mustStatus(t, r, http.StatusOK)
		if r.Attr("stageChangedAt") != before.Attr("stageChangedAt") || r.Attr("updatedAt") != before.Attr("updatedAt") {
			t.Errorf("a move to the current stage changed the lead")
		}
	})
	t.Run("MoveStageErrors", func(t *testing.T) {
		other, _ := e.NewOrg("Other", viewer.AllScopes...)
		mustError(t, e.Post("/v1/leads/"+id+"/stage", e.Key, map[string]any{"stageId": e.Stages(other.ID)[1].ID}),
			http.StatusUnprocessableEntity, "VALIDATION_ERROR", "stageId")
		mustError(t, e.Post("/v1/leads/"+id+"/stage", e.Key, map[string]any{}),
			http.StatusUnprocessableEntity, "VALIDATION_ERROR", "stageId")
		mustError(t, e.Post("/v1/leads/"+id+"/stage", e.Key, map[string]any{"stageId": "first"}),
			http.StatusUnprocessableEntity, "VALIDATION_ERROR", "stageId")
		mustError(t, e.Post("/v1/leads/"+id+"/stage", e.Key, map[string]any{"stageId": stages[1].ID, "note": "x"}),
			http.StatusUnprocessableEntity, "VALIDATION_ERROR", "note")
		mustError(t, e.Post("/v1/leads/"+uuid.NewString()+"/stage", e.Key, map[string]any{"stageId": stages[1].ID}),
			http.StatusNotFound, "NOT_FOUND", "")
	})
	t.Run("Assign", func(t *testing.T) {
		adv := e.NewUser(e.Org.ID, "Grace", "Hopper", "advisor", "Closers")
		r := e.Post("/v1/leads/"+id+"/assign", e.Key, map[string]any{"advisorId": adv.ID})
		mustStatus(t, r, http.StatusOK)
		if r.Attr("primaryAdvisorId") != adv.ID.String() || r.Attr("primaryAdvisorName") != "Grace Hopper" {
			t.Errorf("got %s", r.Raw)
		}
		mustError(t, e.Post("/v1/leads/"+id+"/assign", e.Key, map[string]any{"advisorId": uuid.New()}),
			http.StatusUnprocessableEntity, "VALIDATION_ERROR", "advisorId")
	})
	t.Run("ReadOnlyKey", func(t *testing.T) {
		ro := e.NewKey(e.Org.ID, viewer.ScopeLeadsRead)
		mustError(t, e.Post("/v1/leads/"+id+"/stage", ro, map[string]any{"stageId": stages[1].ID}),
			http.StatusForbidden, "FORBIDDEN", "")
	})
}
