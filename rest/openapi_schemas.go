package rest

import (
	"maps"
	"slices"

	"github.com/lendingpipe/svc/dialer"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/webhooks"
)

// Limits and names the document states, from where the code keeps them.
const (
	maxPage         = graph.MaxPage
	maxLimit        = graph.MaxLimit
	defaultLimit    = graph.DefaultLimit
	maxSearch       = graph.MaxSearch
	headerTimestamp = webhooks.HeaderTimestamp
	headerWebhookID = webhooks.HeaderID
	headerSignature = webhooks.HeaderSignature
)

func sRef(name string) m         { return m{"$ref": "#/components/schemas/" + name} }
func envelopeRef(name string) m  { return sRef(name + "Envelope") }
func listRef(name string) m      { return sRef(name + "List") }
func totalListRef(name string) m { return sRef(name + "TotalList") }
func str() m                     { return m{"type": "string"} }
func uuidS() m                   { return m{"type": "string", "format": "uuid"} }
func boolS() m                   { return m{"type": "boolean"} }
func count() m                   { return m{"type": "integer", "minimum": 0} }
func arr(items m) m              { return m{"type": "array", "items": items} }
func freeObject() m              { return m{"type": "object", "additionalProperties": true} }
func enumS(values ...string) m   { return m{"type": "string", "enum": values} }
func hexColor() m                { return m{"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"} }

// described is s with a description.
func described(s m, desc string) m {
	out := maps.Clone(s)
	out["description"] = desc
	return out
}

// amountS is an amount as the API writes it (PRODUCT 1.1): exactly two
// decimals, a string so no client reads it as binary floating point.
func amountS() m {
	return m{"type": "string", "pattern": `^[0-9]+\.[0-9]{2}$`, "example": "25000.00",
		"description": "An amount: a decimal string with exactly two decimals."}
}

// rateS is a rate as the API writes it (PRODUCT 1.1): 0 to 10, at most 6
// decimals, without trailing zeros.
func rateS() m {
	return m{"type": "string", "pattern": `^[0-9]{1,2}(\.[0-9]{0,5}[1-9])?$`, "example": "1.35",
		"description": "A rate from 0 to 10: a decimal string with up to 6 decimals and no trailing zeros (\"1.35\", \"0.089\", \"0\")."}
}

// dateTime is a timestamp as every surface writes it (internal/apitime).
func dateTime() m {
	return m{"type": "string", "format": "date-time", "example": apitime.Example,
		"description": "RFC 3339 in UTC with exactly three fractional digits (milliseconds); input may carry any precision."}
}

// null returns s that also accepts null (OpenAPI 3.0 spelling).
func null(s m) m {
	out := maps.Clone(s)
	out["nullable"] = true
	if e, ok := out["enum"].([]string); ok {
		// An enum lists null itself for a nullable value to be valid.
		vals := []any{}
		for _, v := range e {
			vals = append(vals, v)
		}
		out["enum"] = append(vals, nil)
	}
	return out
}

// object is an object with the given required members.
func object(props m, required ...string) m {
	o := m{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

// record is an object whose members are all always present (responses
// render absent values as null).
func record(props m) m { return object(props, sortedKeys(props)...) }

// schemas are the document's components: the envelopes and the request
// bodies here, the views' and the enumerations' below.
func schemas() m {
	g := generator()
	out := m{
		"Meta":               record(m{"requestId": uuidS()}),
		"PageMeta":           record(m{"total": count(), "page": m{"type": "integer", "minimum": 1}, "limit": m{"type": "integer", "minimum": 1}, "hasMore": boolS(), "requestId": uuidS()}),
		"TotalMeta":          record(m{"total": count(), "requestId": uuidS()}),
		"ErrorEnvelope":      record(m{"errors": m{"type": "array", "minItems": 1, "items": sRef("Error")}, "meta": sRef("Meta")}),
		"ReceivedEnvelope":   record(m{"data": g.schema(received{}), "meta": sRef("Meta")}),
		"CallEventInput":     dialerInput("CallEvent", dialer.EventFields, "externalCallId", "userId", "eventType", "occurredAt"),
		"CallEventAliases":   dialerAliases(dialer.EventFields, "externalCallId", "userId", "eventType", "occurredAt"),
		"DispositionInput":   dialerInput("Disposition", dialer.DispositionFields, "externalCallId", "userId", "disposition", "occurredAt"),
		"DispositionAliases": dialerAliases(dialer.DispositionFields, "externalCallId", "userId", "disposition", "occurredAt"),
		"PresenceInput":      dialerInput("Presence", dialer.PresenceFields, "userId", "status"),
		"PresenceAliases":    dialerAliases(dialer.PresenceFields, "userId", "status"),
		"CallEventBody":      dialerBody("CallEvent"),
		"DispositionBody":    dialerBody("Disposition"),
		"PresenceBody":       dialerBody("Presence"),
		"ConnectorEvent":     connectorEvent(),
		"Session":            g.schema(sessionView{}),
	}
	for _, b := range requestBodies {
		out[b.name] = b.schema(g)
	}
	for name, v := range nestedViews {
		out[name] = g.schema(v)
	}
	for name, v := range analyticsViews {
		out[name] = g.schema(v)
	}
	for name, s := range enumSchemas() {
		out[name] = s
	}
	for _, r := range append(resources(), reportResources()...) {
		r.addTo(out, g)
	}
	for _, e := range event.Catalog {
		out[eventSchemaName(e.Name)] = eventEnvelope(e)
	}
	return out
}

func errorCodes() []string { return slices.Sorted(maps.Keys(statusOf)) }
