package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

type dialerFixture struct {
	e      *resttest.Env
	agent  string
	leadID string
	dialer string // a key with only dialer:write
}

func newDialerFixture(t *testing.T) dialerFixture {
	e := resttest.New(t)
	agent := e.NewUser(e.Org.ID, "Dee", "Dialer", "agent", "Floor A")
	lead := createLead(t, e, e.Key, map[string]any{"businessName": "Acme Trucking", "phone": "+15550100"})
	return dialerFixture{e: e, agent: agent.ID.String(), leadID: lead, dialer: e.NewKey(e.Org.ID, viewer.ScopeDialerWrite)}
}

func (f dialerFixture) event(extra map[string]any) map[string]any {
	body := map[string]any{
		"externalCallId": "call-1", "userId": f.agent, "leadId": f.leadID,
		"eventType": "call_started", "direction": "outbound", "occurredAt": "2026-11-22T10:00:00Z",
	}
	for k, v := range extra {
		if v == nil {
			delete(body, k)
		} else {
			body[k] = v
		}
	}
	return body
}

func TestDialerEvents(t *testing.T) {
	f := newDialerFixture(t)
	e := f.e
	t.Run("OK", func(t *testing.T) {
		r := e.Post("/v1/dialer/events", f.dialer, f.event(map[string]any{"durationSeconds": 42, "metadata": map[string]any{"queue": "a"}}))
		mustStatus(t, r, http.StatusCreated)
		if r.Data()["type"] != "call_event" || !strings.HasPrefix(r.Data()["id"].(string), "evt_") {
			t.Errorf("resource = %v", r.Data())
		}
		for k, want := range map[string]any{
			"externalCallId": "call-1", "userId": f.agent, "leadId": f.leadID, "eventType": "call_started",
			"direction": "outbound", "durationSeconds": 42.0, "occurredAt": "2026-11-22T10:00:00.000Z",
		} {
			if got := r.Attr(k); got != want {
				t.Errorf("%s = %v, want %v", k, got, want)
			}
		}
		if got := e.Get("/v1/leads/"+f.leadID, e.Key).Attr("lastContactedAt"); got != "2026-11-22T10:00:00.000Z" {
			t.Errorf("lead lastContactedAt = %v", got)
		}
	})
	t.Run("Aliases", func(t *testing.T) {
		r := e.Post("/v1/dialer/events", f.dialer, map[string]any{
			"call_id": "call-2", "agent_id": f.agent, "lead_id": f.leadID, "event_type": "call_ended",
			"duration": 90, "timestamp": "2026-11-22T10:05:00+01:00",
		})
		mustStatus(t, r, http.StatusCreated)
		if r.Attr("externalCallId") != "call-2" || r.Attr("durationSeconds") != 90.0 || r.Attr("occurredAt") != "2026-11-22T09:05:00.000Z" {
			t.Errorf("got %s", r.Raw)
		}
		r = e.Post("/v1/dialer/events", f.dialer, map[string]any{
			"external_call_id": "call-3", "user_id": f.agent, "event_type": "hold",
			"duration_seconds": 5, "occurred_at": "2026-11-22T10:06:00Z",
		})
		mustStatus(t, r, http.StatusCreated)
	})
	t.Run("AliasConflict", func(t *testing.T) {
		r := e.Post("/v1/dialer/events", f.dialer, f.event(map[string]any{"call_id": "other"}))
		mustError(t, r, http.StatusUnprocessableEntity, "VALIDATION_ERROR", "externalCallId")
		// The same value under two names is fine.
		mustStatus(t, e.Post("/v1/dialer/events", f.dialer, f.event(map[string]any{"call_id": "call-1"})), http.StatusCreated)
	})
	cases := map[string]struct {
		change map[string]any
		field  string
	}{
		"MissingCallID":    {map[string]any{"externalCallId": nil}, "externalCallId"},
		"MissingUser":      {map[string]any{"userId": nil}, "userId"},
		"MissingType":      {map[string]any{"eventType": nil}, "eventType"},
		"MissingTime":      {map[string]any{"occurredAt": nil}, "occurredAt"},
		"BadType":          {map[string]any{"eventType": "ringing"}, "eventType"},
		"BadDirection":     {map[string]any{"direction": "sideways"}, "direction"},
		"NegativeDuration": {map[string]any{"durationSeconds": -1}, "durationSeconds"},
		"DurationNotInt":   {map[string]any{"durationSeconds": "long"}, "durationSeconds"},
		"BadTime":          {map[string]any{"occurredAt": "yesterday"}, "occurredAt"},
		"UserNotUUID":      {map[string]any{"userId": "dee"}, "userId"},
		"UnknownUser":      {map[string]any{"userId": uuid.NewString()}, "userId"},
		"UnknownLead":      {map[string]any{"leadId": uuid.NewString()}, "leadId"},
		"MetadataNotObj":   {map[string]any{"metadata": "x"}, "metadata"},
		"UnknownField":     {map[string]any{"colour": "red"}, "colour"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			mustError(t, e.Post("/v1/dialer/events", f.dialer, f.event(c.change)), http.StatusUnprocessableEntity, "VALIDATION_ERROR", c.field)
		})
	}
	t.Run("NotAnObject", func(t *testing.T) {
		mustError(t, e.Post("/v1/dialer/events", f.dialer, `[1,2]`), http.StatusBadRequest, "BAD_REQUEST", "")
		mustError(t, e.Post("/v1/dialer/events", f.dialer, `{"call_id":`), http.StatusBadRequest, "BAD_REQUEST", "")
	})
	t.Run("NeedsDialerScope", func(t *testing.T) {
		ro := e.NewKey(e.Org.ID, viewer.ScopeLeadsRead, viewer.ScopeLeadsWrite)
		mustError(t, e.Post("/v1/dialer/events", ro, f.event(nil)), http.StatusForbidden, "FORBIDDEN", "")
		mustError(t, e.Post("/v1/dialer/events", "", f.event(nil)), http.StatusUnauthorized, "UNAUTHORIZED", "")
	})
	t.Run("OtherOrgAgentAndLead", func(t *testing.T) {
		other, otherKey := e.NewOrg("Other", viewer.AllScopes...)
		otherAgent := e.NewUser(other.ID, "Oz", "Other", "agent", "")
		mustError(t, e.Post("/v1/dialer/events", f.dialer, f.event(map[string]any{"userId": otherAgent.ID})),
			http.StatusUnprocessableEntity, "VALIDATION_ERROR", "userId")
		mustError(t, e.Post("/v1/dialer/events", otherKey, f.event(map[string]any{"userId": otherAgent.ID})),
			http.StatusUnprocessableEntity, "VALIDATION_ERROR", "leadId")
	})
	t.Run("Idempotent", func(t *testing.T) {
		post := func() *resttest.Response {
			return e.Do(resttest.Request{Method: "POST", Path: "/v1/dialer/events", Key: f.dialer,
				Body: f.event(map[string]any{"externalCallId": "idem"}), Header: map[string]string{"Idempotency-Key": "ev-1"}})
		}
		first, again := post(), post()
		mustStatus(t, first, http.StatusCreated)
		if again.Header.Get("Idempotent-Replayed") != "true" || again.Data()["id"] != first.Data()["id"] {
			t.Errorf("replay = %s", again.Raw)
		}
	})
}

func TestDialerDisposition(t *testing.T) {
	f := newDialerFixture(t)
	e := f.e
	body := map[string]any{"external_call_id": "call-9", "agent_id": f.agent, "lead_id": f.leadID,
		"disposition": "interested", "notes": "call back Tuesday", "occurred_at": "2026-11-22T11:00:00Z"}
	r := e.Post("/v1/dialer/disposition", f.dialer, body)
	mustStatus(t, r, http.StatusCreated)
	if r.Attr("eventType") != "disposition" || r.Attr("disposition") != "interested" || r.Attr("notes") != "call back Tuesday" {
		t.Errorf("got %s", r.Raw)
	}
	mustError(t, e.Post("/v1/dialer/disposition", f.dialer, map[string]any{"externalCallId": "x", "userId": f.agent, "occurredAt": "2026-11-22T11:00:00Z"}),
		http.StatusUnprocessableEntity, "VALIDATION_ERROR", "disposition")
	mustError(t, e.Post("/v1/dialer/disposition", f.dialer, map[string]any{"externalCallId": "x", "userId": f.agent, "disposition": "x", "occurredAt": "2026-11-22T11:00:00Z", "eventType": "hold"}),
		http.StatusUnprocessableEntity, "VALIDATION_ERROR", "eventType")
	t.Run("DoNotCall", func(t *testing.T) {
		r := e.Post("/v1/dialer/disposition", f.dialer, map[string]any{"externalCallId": "call-10", "userId": f.agent,
			"leadId": f.leadID, "disposition": "dnc", "notes": "asked to be removed", "occurredAt": "2026-11-22T12:00:00Z"})
		mustStatus(t, r, http.StatusCreated)
		l := e.Get("/v1/leads/"+f.leadID, e.Key)
		if l.Attr("isDoNotCall") != true || l.Attr("dncReason") != "asked to be removed" || l.Attr("dncAt") != "2026-11-22T12:00:00.000Z" {
			t.Errorf("lead = %s", l.Raw)
		}
		if l.Attr("lastContactedAt") != "2026-11-22T12:00:00.000Z" {
			t.Errorf("lastContactedAt = %v", l.Attr("lastContactedAt"))
		}
	})
}

func TestDialerPresenceAndBoard(t *testing.T) {
	f := newDialerFixture(t)
	e := f.e
	presence := func(body map[string]any) *resttest.Response {
		t.Helper()
		return e.Post("/v1/dialer/presence", f.dialer, body)
	}
	t.Run("OnCall", func(t *testing.T) {
		r := presence(map[string]any{"userId": f.agent, "status": "on_call", "currentCallId": "call-1", "currentLeadId": f.leadID, "campaignName": "Q4"})
		mustStatus(t, r, http.StatusOK)
		if r.Data()["type"] != "agent_presence" || r.Data()["id"] != "pres_"+f.agent {
			t.Errorf("resource = %v", r.Data())
		}
		for k, want := range map[string]any{"userId": f.agent, "firstName": "Dee", "lastName": "Dialer", "email": "dee.dialer@example.com",
			"status": "on_call", "currentCallId": "call-1", "currentLeadId": f.leadID, "currentLeadName": "Acme Trucking", "campaignName": "Q4"} {
			if got := r.Attr(k); got != want {
				t.Errorf("%s = %v, want %v", k, got, want)
			}
		}
		if r.Attr("callStartedAt") == nil || r.Attr("statusChangedAt") == nil || r.Attr("statusTimeSec") != 0.0 {
			t.Errorf("timing = %v %v %v", r.Attr("callStartedAt"), r.Attr("statusChangedAt"), r.Attr("statusTimeSec"))
		}
	})
	t.Run("StatusTimeGrows", func(t *testing.T) {
		e.Clock.Advance(90 * time.Second)
		r := presence(map[string]any{"user_id": f.agent, "status": "on_call"})
		mustStatus(t, r, http.StatusOK)
		if r.Attr("statusTimeSec") != 90.0 || r.Attr("currentCallId") != "call-1" || r.Attr("currentLeadId") != f.leadID {
			t.Errorf("same call re-reported: %s", r.Raw)
		}
	})
	t.Run("OfflineClearsCall", func(t *testing.T) {
		r := presence(map[string]any{"userId": f.agent, "status": "offline", "currentCallId": "call-1"})
		mustStatus(t, r, http.StatusOK)
		if r.Attr("currentCallId") != nil || r.Attr("currentLeadId") != nil || r.Attr("callStartedAt") != nil || r.Attr("statusTimeSec") != 0.0 {
			t.Errorf("offline = %s", r.Raw)
		}
	})
	t.Run("Validation", func(t *testing.T) {
		mustError(t, presence(map[string]any{"userId": f.agent, "status": "napping"}), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "status")
		mustError(t, presence(map[string]any{"status": "online"}), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "userId")
		mustError(t, presence(map[string]any{"userId": uuid.NewString(), "status": "online"}), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "userId")
		mustError(t, presence(map[string]any{"userId": f.agent, "status": "on_call", "currentLeadId": uuid.NewString()}), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "currentLeadId")
	})
	t.Run("Board", func(t *testing.T) {
		second := e.NewUser(e.Org.ID, "Al", "Agent", "agent", "Floor B")
		e.NewUser(e.Org.ID, "Ad", "Visor", "advisor", "")
		r := e.Get("/v1/dialer/agents", f.dialer)
		mustStatus(t, r, http.StatusOK)
		items := r.Items()
		if len(items) != 2 || r.Meta()["total"] != 2.0 {
			t.Fatalf("board = %s", r.Raw)
		}
		// Ordered by last name: Agent, Dialer. An agent who never reported is offline.
		first := items[0]["attributes"].(map[string]any)
		if items[0]["id"] != "pres_"+second.ID.String() || first["status"] != "offline" || first["statusChangedAt"] != nil {
			t.Errorf("first row = %v", items[0])
		}
		teamB := second.TeamID.String()
		r = e.Get("/v1/dialer/agents?teamId="+teamB, f.dialer)
		if len(r.Items()) != 1 || r.Meta()["total"] != 1.0 {
			t.Errorf("team filter: %s", r.Raw)
		}
		r = e.Get("/v1/dialer/agents?limit=1&page=2", f.dialer)
		if len(r.Items()) != 1 || r.Meta()["hasMore"] != false || r.Items()[0]["id"] != "pres_"+f.agent {
			t.Errorf("paging: %s", r.Raw)
		}
		mustError(t, e.Get("/v1/dialer/agents?teamId=nope", f.dialer), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "teamId")
		mustError(t, e.Get("/v1/dialer/agents?limit=101", f.dialer), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "limit")
		_, otherKey := e.NewOrg("Other", viewer.AllScopes...)
		if r := e.Get("/v1/dialer/agents", otherKey); len(r.Items()) != 0 {
			t.Errorf("another org sees %s", r.Raw)
		}
	})
}

// callsToday and dispositionCount count the organization's calendar day.
func TestBoardCountsToday(t *testing.T) {
	f := newDialerFixture(t)
	e := f.e
	now := e.Clock.Now().UTC()
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) string { return midnight.Add(d).Format(time.RFC3339) }
	post := func(path string, body map[string]any) {
		t.Helper()
		mustStatus(t, e.Post(path, f.dialer, body), http.StatusCreated)
	}
	// Yesterday, just before midnight: not counted.
	post("/v1/dialer/events", map[string]any{"externalCallId": "y1", "userId": f.agent, "eventType": "call_started", "occurredAt": at(-time.Second)})
	post("/v1/dialer/disposition", map[string]any{"externalCallId": "y1", "userId": f.agent, "disposition": "no_answer", "occurredAt": at(-time.Second)})
	// Today: two calls (one with two events), one disposition.
	post("/v1/dialer/events", map[string]any{"externalCallId": "t1", "userId": f.agent, "eventType": "call_started", "occurredAt": at(0)})
	post("/v1/dialer/events", map[string]any{"externalCallId": "t1", "userId": f.agent, "eventType": "call_ended", "occurredAt": at(time.Minute)})
	post("/v1/dialer/events", map[string]any{"externalCallId": "t2", "userId": f.agent, "eventType": "call_started", "occurredAt": at(2 * time.Minute)})
	post("/v1/dialer/disposition", map[string]any{"externalCallId": "t2", "userId": f.agent, "disposition": "interested", "occurredAt": at(3 * time.Minute)})
	r := e.Get("/v1/dialer/agents", f.dialer)
	mustStatus(t, r, http.StatusOK)
	a := r.Items()[0]["attributes"].(map[string]any)
	if a["callsToday"] != 2.0 || a["dispositionCount"] != 1.0 {
		t.Errorf("callsToday = %v, dispositionCount = %v; want 2 and 1", a["callsToday"], a["dispositionCount"])
	}
}

// "Today" is the organization's calendar day, not UTC's.
func TestBoardCountsInOrgTimezone(t *testing.T) {
	f := newDialerFixture(t)
	e := f.e
	sys := rule.SystemContext(context.Background())
	if err := e.DB.Client.Organization.UpdateOneID(e.Org.ID).SetTimezone("America/New_York").Exec(sys); err != nil {
		t.Fatal(err)
	}
	ny, _ := time.LoadLocation("America/New_York")
	local := e.Clock.Now().In(ny)
	midnight := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, ny)
	for i, at := range []time.Time{midnight.Add(-time.Minute), midnight.Add(time.Minute)} {
		mustStatus(t, e.Post("/v1/dialer/events", f.dialer, map[string]any{"externalCallId": fmt.Sprintf("tz%d", i),
			"userId": f.agent, "eventType": "call_started", "occurredAt": at.Format(time.RFC3339)}), http.StatusCreated)
	}
	a := e.Get("/v1/dialer/agents", f.dialer).Items()[0]["attributes"].(map[string]any)
	if a["callsToday"] != 1.0 {
		t.Errorf("callsToday = %v, want 1 (only the call after New York's midnight)", a["callsToday"])
	}
}

// A dialer that reports on_call without naming the call: the board takes
// the call (id and lead) from the agent's latest call event since the call
// started, ignores an older call, and shows no call once an event ends it.
func TestBoardCallFromEvents(t *testing.T) {
	f := newDialerFixture(t)
	e := f.e
	now := e.Clock.Now().UTC()
	event := func(call, kind string, at time.Time, lead bool) {
		t.Helper()
		body := map[string]any{"externalCallId": call, "userId": f.agent, "eventType": kind, "occurredAt": at.Format(time.RFC3339)}
		if lead {
			body["leadId"] = f.leadID
		}
		mustStatus(t, e.Post("/v1/dialer/events", f.dialer, body), http.StatusCreated)
	}
	row := func() map[string]any {
		t.Helper()
		r := e.Get("/v1/dialer/agents", f.dialer)
		mustStatus(t, r, http.StatusOK)
		return r.Items()[0]["attributes"].(map[string]any)
	}
	event("old", "call_started", now.Add(-10*time.Minute), false)
	mustStatus(t, e.Post("/v1/dialer/presence", f.dialer, map[string]any{"userId": f.agent, "status": "on_call"}), http.StatusOK)
	if a := row(); a["currentCallId"] != nil {
		t.Errorf("an older call counts as the current one: %v", a)
	}
	// Sent a moment before the status report, as dialers do.
	event("c9", "call_started", now.Add(-20*time.Second), true)
	if a := row(); a["currentCallId"] != "c9" || a["currentLeadId"] != f.leadID || a["currentLeadName"] != "Acme Trucking" {
		t.Errorf("the call in progress reads %v", a)
	}
	event("c9", "call_ended", now.Add(time.Second), false)
	if a := row(); a["currentCallId"] != nil || a["currentLeadId"] != nil {
		t.Errorf("an ended call is still current: %v", a)
	}
}
