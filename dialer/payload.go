// Package dialer holds the dialer domain logic: the field names and aliases
// dialers send, decoding JSON and form payloads into the canonical inputs,
// the presence rules, the agents-board enrichment, and the flows that
// write call events and presence (RecordCall, AttachRecording,
// UpdatePresence), each with its steps: the write, the dialer report's
// rollups, the agents board's rows.
//
// It sits beside the operations and imports ent, the store, the rollups
// (analytics/rollup), the board's bus (dialer/board) and the packages
// under internal.
package dialer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/apperr"
)

// Aliases maps each canonical (camelCase) request field to the other names
// dialers use for it (SPEC 4.2: "camelCase names and snake_case aliases").
var Aliases = map[string][]string{
	"externalCallId":  {"external_call_id", "call_id"},
	"userId":          {"user_id", "agent_id"},
	"leadId":          {"lead_id"},
	"eventType":       {"event_type"},
	"direction":       {"call_direction"},
	"durationSeconds": {"duration_seconds", "duration"},
	"disposition":     {"disposition_code"},
	"notes":           {"note", "agent_notes"},
	"metadata":        {"meta"},
	"occurredAt":      {"occurred_at", "timestamp"},
	"status":          {"agent_status"},
	"currentCallId":   {"current_call_id"},
	"currentLeadId":   {"current_lead_id"},
	"campaignName":    {"campaign_name", "campaign"},
	"recordingUrl":    {"recording_url"},
	"reason":          {"dnc_reason"},
	"phone":           {"phone_number"},
	"type":            {"event"},
}

// Payload is one request body, its members under their canonical names.
// Form values arrive as strings, so Payload converts numbers from strings
// where a field needs one.
type Payload struct {
	fields map[string]json.RawMessage
	form   bool
}

// ParseForm reads an application/x-www-form-urlencoded body; each value
// becomes a JSON string. A field sent twice is 422: which one is meant?
func ParseForm(body []byte) (map[string]json.RawMessage, error) {
	vals, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, apperr.New(apperr.BadRequest, "the request body is not valid form encoding")
	}
	obj := make(map[string]json.RawMessage, len(vals))
	for k, v := range vals {
		if len(v) > 1 {
			return nil, apperr.Invalid(k, "sent more than once")
		}
		raw, _ := json.Marshal(v[0])
		obj[k] = raw
	}
	return obj, nil
}

// Normalize renames aliases to their canonical names. Two names of one field
// with different values is 422 naming the canonical field. With strict,
// members that are not among allowed (canonical names) are 422; without, they
// are returned as extra, for the connector to keep in metadata.
func Normalize(obj map[string]json.RawMessage, allowed []string, strict, form bool) (*Payload, map[string]any, error) {
	canonical := map[string]string{}
	for name, aliases := range Aliases {
		canonical[name] = name
		for _, a := range aliases {
			canonical[a] = name
		}
	}
	p := &Payload{fields: map[string]json.RawMessage{}, form: form}
	extra := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		name, known := canonical[k]
		if !known || !slices.Contains(allowed, name) {
			if strict {
				return nil, nil, apperr.Invalid(k, "unknown field")
			}
			var v any
			_ = json.Unmarshal(obj[k], &v)
			extra[k] = v
			continue
		}
		if prev, dup := p.fields[name]; dup && !sameJSON(prev, obj[k]) {
			return nil, nil, apperr.Invalid(name, "sent under two names with different values")
		}
		p.fields[name] = obj[k]
	}
	return p, extra, nil
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return fmt.Sprint(x) == fmt.Sprint(y)
}

// Has reports whether name was sent (null counts as not sent).
func (p *Payload) Has(name string) bool {
	raw, ok := p.fields[name]
	return ok && string(bytes.TrimSpace(raw)) != "null"
}

// String returns a string field; required fields that are absent are 422.
func (p *Payload) String(name string, required bool) (*string, error) {
	if !p.Has(name) {
		return nil, missing(name, required)
	}
	var s string
	if err := json.Unmarshal(p.fields[name], &s); err != nil {
		return nil, apperr.Invalid(name, "must be a string")
	}
	if required && strings.TrimSpace(s) == "" {
		return nil, apperr.Invalid(name, "is required")
	}
	return &s, nil
}

// UUID returns a UUID field.
func (p *Payload) UUID(name string, required bool) (*uuid.UUID, error) {
	s, err := p.String(name, required)
	if s == nil || err != nil {
		return nil, err
	}
	id, err := uuid.Parse(*s)
	if err != nil || len(*s) != 36 {
		return nil, apperr.Invalid(name, "must be a UUID")
	}
	return &id, nil
}

// Int returns an integer field; form payloads may send it as a string.
func (p *Payload) Int(name string) (*int, error) {
	if !p.Has(name) {
		return nil, nil
	}
	raw := p.fields[name]
	var n int
	if err := json.Unmarshal(raw, &n); err == nil {
		return &n, nil
	}
	var s string
	if p.form && json.Unmarshal(raw, &s) == nil {
		if v, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			return &v, nil
		}
	}
	return nil, apperr.Invalid(name, "must be an integer")
}

// Time returns an ISO 8601 (RFC 3339) timestamp field. Unix seconds are
// accepted too: several dialers send them.
func (p *Payload) Time(name string, required bool) (*time.Time, error) {
	if !p.Has(name) {
		return nil, missing(name, required)
	}
	raw := p.fields[name]
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		var secs int64
		if json.Unmarshal(raw, &secs) != nil {
			return nil, apperr.Invalid(name, "must be an ISO 8601 timestamp")
		}
		s = strconv.FormatInt(secs, 10)
	}
	t, err := ParseTime(s)
	if err != nil {
		return nil, apperr.Invalid(name, "must be an ISO 8601 timestamp such as 2026-11-22T14:03:00Z")
	}
	return &t, nil
}

// ParseTime reads RFC 3339 (with or without fractional seconds) or Unix seconds.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if secs, err := strconv.ParseInt(s, 10, 64); err == nil && secs > 0 && secs < 1e11 {
		return time.Unix(secs, 0).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, err
	}
	return t.UTC(), nil
}

// Object returns a JSON object field (form payloads send it as JSON text).
func (p *Payload) Object(name string) (map[string]any, error) {
	if !p.Has(name) {
		return nil, nil
	}
	raw := p.fields[name]
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err == nil {
		return m, nil
	}
	var s string
	if p.form && json.Unmarshal(raw, &s) == nil && json.Unmarshal([]byte(s), &m) == nil {
		return m, nil
	}
	return nil, apperr.Invalid(name, "must be an object")
}

func missing(name string, required bool) error {
	if required {
		return apperr.Invalid(name, "is required")
	}
	return nil
}
