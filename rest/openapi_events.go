package rest

import (
	"slices"
	"strings"

	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/webhooks"
)

// The outbound deliveries in the document: one component per catalog event
// type, and the callback of POST /v1/app-webhooks that delivers them.

// subscriptionEventNames are the names a subscription may list: every
// catalog event type, or "*" for all.
func subscriptionEventNames() []string {
	names := []string{event.All}
	for _, e := range event.Catalog {
		names = append(names, e.Name)
	}
	return names
}

// eventSchemaName is the component name of an event type's delivery body:
// lead.status_changed → LeadStatusChangedEvent.
func eventSchemaName(event string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(event, func(r rune) bool { return r == '.' || r == '_' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String() + "Event"
}

func eventSchemaNames() []string {
	var out []string
	for _, e := range event.Catalog {
		out = append(out, eventSchemaName(e.Name))
	}
	return out
}

// eventEnvelope is a delivery's body (SPEC 6.1) with the catalog's payload,
// converted from JSON Schema's type lists to OpenAPI 3.0's nullable.
func eventEnvelope(e event.Type) m {
	return m{"type": "object", "description": e.Description, "required": []string{"id", "event", "timestamp", "data"},
		"properties": m{"id": prefixed(webhooks.EventIDPrefix), "event": enumS(e.Name), "timestamp": dateTime(), "data": toOpenAPI30(e.Schema)}}
}

func toOpenAPI30(s map[string]any) m {
	out := m{}
	for k, v := range s {
		switch k {
		case "type":
			if types, ok := v.([]string); ok {
				out["type"] = types[0]
				out["nullable"] = slices.Contains(types, "null")
				continue
			}
			out[k] = v
		case "properties":
			props := m{}
			for name, p := range v.(map[string]any) {
				props[name] = toOpenAPI30(p.(map[string]any))
			}
			out[k] = props
		case "items":
			out[k] = toOpenAPI30(v.(map[string]any))
		default:
			out[k] = v
		}
	}
	return out
}

// deliveryCallback documents an outbound delivery (SPEC 5.6, 6).
func deliveryCallback() m {
	var events []m
	for _, name := range eventSchemaNames() {
		events = append(events, sRef(name))
	}
	h := func(name, desc string) m {
		return m{"name": name, "in": "header", "required": true, "description": desc, "schema": str()}
	}
	return m{
		"operationId": "deliverEvent",
		"summary":     "An event delivered to the subscription's url",
		"description": "Signed with the subscription's secret: X-Webhook-Signature = sha256=<hex HMAC-SHA256 of \"<X-Webhook-Timestamp>.<raw body>\">. Reject timestamps more than 300 seconds from now and deduplicate by X-Webhook-Id. A non-2xx answer or none within 10 seconds is retried after 1, 5, 30 and 60 minutes; after 5 failed attempts the delivery is dead-lettered, and after 50 consecutive failures the subscription is paused.",
		"parameters": []m{
			h(headerWebhookID, "Unique delivery id (msg_<uuid>); the same on every attempt, for deduplication."),
			h(headerTimestamp, "Unix seconds of sending."),
			h(headerSignature, "sha256=<hex>."),
		},
		"requestBody": m{"required": true, "content": m{"application/json": m{"schema": m{"oneOf": events}}}},
		"responses":   m{"2XX": m{"description": "Received; any other answer is a failed attempt."}},
	}
}
