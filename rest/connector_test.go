package rest_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

type connectorFixture struct {
	dialerFixture
	path string
}

func newConnectorFixture(t *testing.T) connectorFixture {
	e := resttest.New(t)
	org, token, err := store.CreateOrganization(context.Background(), e.DB.Client, "Connector Shop")
	if err != nil {
		t.Fatal(err)
	}
	key := e.NewKey(org.ID, viewer.AllScopes...)
	agent := e.NewUser(org.ID, "Cora", "Connector", "agent", "")
	lead := createLead(t, e, key, map[string]any{"businessName": "Phone Co", "phone": "+15550199"})
	e.Key = key
	return connectorFixture{
		dialerFixture: dialerFixture{e: e, agent: agent.ID.String(), leadID: lead, dialer: key},
		path:          "/v1/dialer/connect/" + token,
	}
}

func (f connectorFixture) postForm(vals url.Values) *resttest.Response {
	return f.e.Do(resttest.Request{Method: "POST", Path: f.path, Body: vals.Encode(),
		Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}})
}

func TestConnector(t *testing.T) {
	f := newConnectorFixture(t)
	e := f.e
	t.Run("CallEventJSON", func(t *testing.T) {
		r := e.Post(f.path, "", map[string]any{"type": "call_event", "call_id": "c1", "agent_id": f.agent,
			"lead_id": f.leadID, "event_type": "call_started", "timestamp": "2026-11-22T09:00:00Z", "vendor_queue": "q7"})
		mustStatus(t, r, http.StatusOK)
		meta := r.Attr("metadata").(map[string]any)
		if r.Attr("externalCallId") != "c1" || meta["connector"].(map[string]any)["vendor_queue"] != "q7" {
			t.Errorf("got %s", r.Raw)
		}
	})
	t.Run("CallEventForm", func(t *testing.T) {
		r := f.postForm(url.Values{"event": {"call_event"}, "call_id": {"c1"}, "agent_id": {f.agent},
			"event_type": {"call_ended"}, "duration": {"125"}, "timestamp": {"1795341600"}})
		mustStatus(t, r, http.StatusOK)
		if r.Attr("durationSeconds") != 125.0 || r.Attr("occurredAt") != "2026-11-22T10:00:00.000Z" {
			t.Errorf("got %s", r.Raw)
		}
	})
	t.Run("DispositionJSONAndForm", func(t *testing.T) {
		r := e.Post(f.path, "", map[string]any{"type": "disposition", "externalCallId": "c1", "userId": f.agent,
			"leadId": f.leadID, "disposition": "callback", "occurredAt": "2026-11-22T09:05:00Z"})
		mustStatus(t, r, http.StatusOK)
		if r.Attr("eventType") != "disposition" || r.Attr("disposition") != "callback" {
			t.Errorf("got %s", r.Raw)
		}
		r = f.postForm(url.Values{"type": {"disposition"}, "call_id": {"c1"}, "user_id": {f.agent},
			"disposition": {"not_interested"}, "notes": {"price"}, "occurred_at": {"2026-11-22T09:06:00Z"}})
		mustStatus(t, r, http.StatusOK)
		if r.Attr("notes") != "price" {
			t.Errorf("got %s", r.Raw)
		}
	})
	t.Run("RecordingJSONAndForm", func(t *testing.T) {
		r := e.Post(f.path, "", map[string]any{"type": "recording", "call_id": "c1", "recording_url": "https://rec.example/c1.mp3"})
		mustStatus(t, r, http.StatusOK)
		if r.Attr("metadata").(map[string]any)["recordingUrl"] != "https://rec.example/c1.mp3" {
			t.Errorf("got %s", r.Raw)
		}
		r = f.postForm(url.Values{"type": {"recording"}, "externalCallId": {"c1"}, "recordingUrl": {"https://rec.example/c1b.mp3"}})
		mustStatus(t, r, http.StatusOK)
		mustError(t, e.Post(f.path, "", map[string]any{"type": "recording", "call_id": "nope", "recording_url": "https://x.example/a"}),
			http.StatusUnprocessableEntity, "VALIDATION_ERROR", "externalCallId")
		mustError(t, e.Post(f.path, "", map[string]any{"type": "recording", "call_id": "c1", "recording_url": "ftp://x"}),
			http.StatusUnprocessableEntity, "VALIDATION_ERROR", "recordingUrl")
	})
	t.Run("LeadUpdateJSONAndForm", func(t *testing.T) {
		r := e.Post(f.path, "", map[string]any{"type": "lead_update", "lead_id": f.leadID, "industry": "Telecom", "contact_first_name": "Pat"})
		mustStatus(t, r, http.StatusOK)
		if r.Data()["type"] != "lead" || r.Attr("industry") != "Telecom" || r.Attr("contactFirstName") != "Pat" {
			t.Errorf("got %s", r.Raw)
		}
		r = f.postForm(url.Values{"type": {"lead_update"}, "leadId": {f.leadID}, "business_name": {"Phone Co Holdings"}})
		mustStatus(t, r, http.StatusOK)
		if r.Attr("businessName") != "Phone Co Holdings" {
			t.Errorf("got %s", r.Raw)
		}
		mustError(t, e.Post(f.path, "", map[string]any{"type": "lead_update", "lead_id": f.leadID, "email": "bad"}),
			http.StatusUnprocessableEntity, "VALIDATION_ERROR", "email")
		mustError(t, e.Post(f.path, "", map[string]any{"type": "lead_update", "lead_id": f.leadID, "stage_id": f.leadID}),
			http.StatusUnprocessableEntity, "VALIDATION_ERROR", "stageId")
	})
	t.Run("DNCByLeadJSONAndByPhoneForm", func(t *testing.T) {
		other := createLead(t, e, e.Key, map[string]any{"businessName": "Same Phone", "phone": "+15550123"})
		r := e.Post(f.path, "", map[string]any{"type": "dnc", "lead_id": f.leadID, "reason": "litigator"})
		mustStatus(t, r, http.StatusOK)
		if r.Data()["type"] != "do_not_call" || len(r.Attr("leadIds").([]any)) != 1 {
			t.Errorf("got %s", r.Raw)
		}
		l := e.Get("/v1/leads/"+f.leadID, e.Key)
		if l.Attr("isDoNotCall") != true || l.Attr("dncReason") != "litigator" {
			t.Errorf("lead = %s", l.Raw)
		}
		r = f.postForm(url.Values{"type": {"dnc"}, "phone": {"+15550123"}})
		mustStatus(t, r, http.StatusOK)
		if ids := r.Attr("leadIds").([]any); len(ids) != 1 || ids[0] != other {
			t.Errorf("got %s", r.Raw)
		}
		mustError(t, e.Post(f.path, "", map[string]any{"type": "dnc"}), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "leadId")
	})
	t.Run("Errors", func(t *testing.T) {
		mustError(t, e.Post(f.path, "", map[string]any{"type": "fax"}), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "type")
		mustError(t, e.Post(f.path, "", map[string]any{"call_id": "x"}), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "type")
		mustError(t, e.Post(f.path, "", `not json`), http.StatusBadRequest, "BAD_REQUEST", "")
		mustError(t, e.Post("/v1/dialer/connect/conn_wrongtoken", "", map[string]any{"type": "dnc"}), http.StatusNotFound, "NOT_FOUND", "")
		mustError(t, f.postForm(url.Values{"type": {"call_event"}, "call_id": {"a", "b"}}), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "call_id")
	})
	t.Run("OtherOrgsAgent", func(t *testing.T) {
		// e.Org is the environment's first organization, not the connector's.
		foreign := e.NewUser(e.Org.ID, "Fay", "Foreign", "agent", "")
		mustError(t, e.Post(f.path, "", map[string]any{"type": "call_event", "call_id": "z", "agent_id": foreign.ID,
			"event_type": "hold", "timestamp": "2026-11-22T09:00:00Z"}), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "userId")
	})
}
