package rest_test

import (
	"net/http"
	"testing"

	"github.com/lendingpipe/svc/dialer"
)

// Every alias of every field reaches the same attribute as its camelCase
// name, over real HTTP, on the endpoint that takes the field.
func TestEveryAlias(t *testing.T) {
	f := newConnectorFixture(t)
	e := f.e
	cases := []struct {
		field, path string
		base        map[string]any // a valid body without the field
		value       any
		attr        string // attribute to check, "" to check only acceptance
		want        any
	}{
		{"externalCallId", "/v1/dialer/events", f.event(map[string]any{"externalCallId": nil}), "c-alias", "externalCallId", "c-alias"},
		{"userId", "/v1/dialer/events", f.event(map[string]any{"userId": nil}), f.agent, "userId", f.agent},
		{"leadId", "/v1/dialer/events", f.event(map[string]any{"leadId": nil}), f.leadID, "leadId", f.leadID},
		{"eventType", "/v1/dialer/events", f.event(map[string]any{"eventType": nil}), "transfer", "eventType", "transfer"},
		{"direction", "/v1/dialer/events", f.event(map[string]any{"direction": nil}), "inbound", "direction", "inbound"},
		{"durationSeconds", "/v1/dialer/events", f.event(nil), 33, "durationSeconds", 33.0},
		{"disposition", "/v1/dialer/events", f.event(nil), "voicemail", "disposition", "voicemail"},
		{"metadata", "/v1/dialer/events", f.event(nil), map[string]any{"k": "v"}, "", nil},
		{"occurredAt", "/v1/dialer/events", f.event(map[string]any{"occurredAt": nil}), "2026-11-20T08:00:00Z", "occurredAt", "2026-11-20T08:00:00.000Z"},
		{"notes", "/v1/dialer/disposition", map[string]any{"externalCallId": "d", "userId": f.agent, "disposition": "x", "occurredAt": "2026-11-22T10:00:00Z"}, "note text", "notes", "note text"},
		{"status", "/v1/dialer/presence", map[string]any{"userId": f.agent}, "break", "status", "break"},
		{"currentCallId", "/v1/dialer/presence", map[string]any{"userId": f.agent, "status": "on_call"}, "cc-1", "currentCallId", "cc-1"},
		{"currentLeadId", "/v1/dialer/presence", map[string]any{"userId": f.agent, "status": "on_call"}, f.leadID, "currentLeadId", f.leadID},
		{"campaignName", "/v1/dialer/presence", map[string]any{"userId": f.agent, "status": "online"}, "Winter", "campaignName", "Winter"},
		{"recordingUrl", f.path, map[string]any{"type": "recording", "externalCallId": "call-1"}, "https://rec.example/a.mp3", "", nil},
		{"reason", f.path, map[string]any{"type": "dnc", "leadId": f.leadID}, "asked", "", nil},
		{"phone", f.path, map[string]any{"type": "dnc"}, "+15550100", "", nil},
	}
	// The connector's recording needs a call to attach to.
	mustStatus(t, e.Post("/v1/dialer/events", f.dialer, f.event(nil)), http.StatusCreated)
	covered := map[string]bool{"type": true} // type: exercised by the connector tests ("event")
	for _, c := range cases {
		names := append([]string{c.field}, dialer.Aliases[c.field]...)
		for _, name := range names {
			covered[c.field] = true
			t.Run(c.field+"/"+name, func(t *testing.T) {
				body := map[string]any{}
				for k, v := range c.base {
					body[k] = v
				}
				body[name] = c.value
				key := f.dialer
				if c.path == f.path {
					key = ""
				}
				r := e.Post(c.path, key, body)
				if r.Status >= 300 {
					t.Fatalf("status %d: %s", r.Status, r.Raw)
				}
				if c.attr != "" && r.Attr(c.attr) != c.want {
					t.Errorf("%s = %v, want %v", c.attr, r.Attr(c.attr), c.want)
				}
			})
		}
	}
	for field := range dialer.Aliases {
		if !covered[field] {
			t.Errorf("no case covers %s and its aliases", field)
		}
	}
}
