package rest

import (
	"maps"
	"slices"
	"strings"

	"github.com/lendingpipe/svc/dialer"
	"github.com/lendingpipe/svc/internal/bounds"
)

// A dialer body may name each field by its camelCase name or by any of its
// aliases (dialer.Aliases), mixing them freely. One object schema listing
// every name would give generators two properties with one name in their
// language (eventType and event_type are both EventType in Go), so each body
// is documented as two schemas: <Body>Input, its canonical names alone (what
// a generated client sends), and <Body>Aliases, for bodies that use at least
// one alias, which types the aliases and leaves the canonical names to the
// first schema's rules (dialerBody accepts either).

// dialerInput is the body of dialerBody(name) under its canonical names.
func dialerInput(name string, fields []string, required ...string) m {
	props := m{}
	for _, f := range fields {
		s := dialerField(f, slices.Contains(required, f))
		if al := dialer.Aliases[f]; len(al) > 0 {
			s = describeAlso(s, "Also accepted as "+strings.Join(al, ", ")+" ("+name+"Aliases).")
		}
		props[f] = s
	}
	o := object(props, required...)
	o["additionalProperties"] = false
	return o
}

// dialerAliases is a dialer body that names at least one field by an alias:
// the aliases are typed here; a required field may come under any of its
// names; canonical names sent beside aliases follow dialerInput's types.
func dialerAliases(fields []string, required ...string) m {
	props := m{}
	var usesAlias []m
	for _, f := range fields {
		for _, a := range dialer.Aliases[f] {
			props[a] = describeAlso(dialerField(f, slices.Contains(required, f)), "Alias of "+f+".")
			usesAlias = append(usesAlias, m{"required": []string{a}})
		}
	}
	all := []m{{"anyOf": usesAlias}}
	for _, f := range required {
		var names []m
		for _, name := range append([]string{f}, dialer.Aliases[f]...) {
			names = append(names, m{"required": []string{name}})
		}
		all = append(all, m{"anyOf": names})
	}
	return m{"type": "object", "properties": props, "additionalProperties": true, "allOf": all,
		"description": "The body with at least one field under an alias; each required field under one of its names."}
}

// dialerBody is a dialer endpoint's body: canonical names, or aliases.
func dialerBody(name string) m {
	return m{"anyOf": []m{sRef(name + "Input"), sRef(name + "Aliases")},
		"description": "The body under its canonical names (" + name + "Input), or with aliases (" + name + "Aliases)."}
}

// describeAlso returns s with more appended to its description. A
// reference moves into allOf first: OpenAPI 3.0 ignores siblings of $ref.
func describeAlso(s m, more string) m {
	if _, isRef := s["$ref"]; isRef {
		return m{"allOf": []m{s}, "description": more}
	}
	out := maps.Clone(s)
	if d, _ := s["description"].(string); d != "" {
		more = d + " " + more
	}
	out["description"] = more
	return out
}

// dialerField is a dialer field's schema; an optional one may be null,
// which is the same as absent.
func dialerField(name string, required bool) m {
	if name == "direction" {
		return nullEnumRef(enumCallDirection) // optional wherever it is taken
	}
	s := dialerFieldType(name)
	if required {
		return s
	}
	return null(s)
}

func dialerFieldType(name string) m {
	switch name {
	case "userId", "leadId", "currentLeadId":
		return uuidS()
	case "eventType":
		return enumRef(enumCallEventType)
	case "status":
		return enumRef(enumPresenceStatus)
	case "durationSeconds":
		return bounded(m{"type": "integer"}, "durationSeconds")
	case "externalCallId", "currentCallId":
		return bounded(str(), "externalCallId")
	case "disposition", "notes", "campaignName":
		return bounded(str(), name)
	case "metadata":
		return freeObject()
	case "occurredAt":
		return m{"description": "RFC 3339 timestamp, or Unix seconds (as a number or a string).",
			"oneOf": []m{{"type": "string"}, {"type": "integer", "minimum": 1}}}
	}
	return str()
}

func connectorEvent() m {
	return m{"type": "object", "additionalProperties": true,
		"description": "The members of the event type, in camelCase or snake_case: call_event as POST /v1/dialer/events, disposition as POST /v1/dialer/disposition, recording {externalCallId, recordingUrl}, lead_update {leadId and PATCH /v1/leads/{id} fields}, dnc {leadId or phone, reason}. Form-encoded objects (metadata) are JSON text.",
		"properties":  m{"type": enumRef(enumConnectorEventType), "event": m{"allOf": []m{enumRef(enumConnectorEventType)}, "description": "Alias of type."}},
		"anyOf":       []m{{"required": []string{"type"}}, {"required": []string{"event"}}}}
}

// bounded is s with the bounds of the entry name of bounds.Fields.
func bounded(s m, name string) m {
	b, ok := bounds.Fields[name]
	if !ok {
		panic("no bounds.Fields entry " + name)
	}
	out := maps.Clone(s)
	if b.Length.Min > 0 {
		out["minLength"] = b.Length.Min
	}
	if b.Length.Max > 0 {
		out["maxLength"] = b.Length.Max
	}
	if b.Range != nil {
		out["minimum"], out["maximum"] = b.Range.Min, b.Range.Max
	}
	return out
}
