package dialer_test

import (
	"encoding/json"
	"testing"

	"github.com/lendingpipe/svc/dialer"
	"github.com/lendingpipe/svc/internal/apperr"
)

// Any JSON object, under any mix of canonical names and aliases: normalising
// and building each endpoint's input never panics, and every refusal is a
// field-naming validation error, never an internal one.
func FuzzDialerAliases(f *testing.F) {
	f.Add([]byte(`{"call_id":"c-1","agent_id":"01a20200-66b0-70ee-a5f9-3bed7d57d6e8","event_type":"call_started","timestamp":"2026-11-22T14:03:00Z"}`))
	f.Add([]byte(`{"externalCallId":"a","external_call_id":"b","duration":"7","occurredAt":1732000000}`))
	f.Add([]byte(`{"userId":null,"status":"on_call","meta":{"a":[1,2]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var obj map[string]json.RawMessage
		if json.Unmarshal(body, &obj) != nil {
			return
		}
		for _, fields := range [][]string{dialer.EventFields, dialer.DispositionFields, dialer.PresenceFields} {
			for _, strict := range []bool{true, false} {
				p, _, err := dialer.Normalize(obj, fields, strict, false)
				mustBeValidation(t, err)
				if err != nil {
					continue
				}
				_, err = p.EventInput()
				mustBeValidation(t, err)
				_, err = p.DispositionInput()
				mustBeValidation(t, err)
				_, err = p.PresenceInput()
				mustBeValidation(t, err)
			}
		}
	})
}

// Any form body, as the connector receives it: parsing and normalising as
// a form never panics and refuses only with validation or 400 errors.
func FuzzConnectorForm(f *testing.F) {
	f.Add([]byte("type=call_event&call_id=c-9&agent_id=x&duration=12&metadata=%7B%22a%22%3A1%7D"))
	f.Add([]byte("a=1&a=2"))
	f.Add([]byte("%zz=%"))
	f.Fuzz(func(t *testing.T, body []byte) {
		obj, err := dialer.ParseForm(body)
		mustBeValidation(t, err)
		if err != nil {
			return
		}
		p, _, err := dialer.Normalize(obj, dialer.EventFields, false, true)
		mustBeValidation(t, err)
		if err == nil {
			_, err = p.EventInput()
			mustBeValidation(t, err)
		}
	})
}

func mustBeValidation(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	e, ok := apperr.As(err)
	if !ok || (e.Code != apperr.Validation && e.Code != apperr.BadRequest) {
		t.Fatalf("refused with %v, want a validation error", err)
	}
}
