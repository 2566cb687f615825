package rest

import (
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/lendingpipe/svc/dialer"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/autodef"
	"github.com/lendingpipe/svc/internal/bounds"
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

// resource is one resource type: its attributes, and which envelopes of it
// the operations use.
type resource struct {
	name, typ     string
	id            m
	view          any // the attributes as the handler encodes them
	single, paged bool
	totalOnly     bool // a collection whose meta has only total
}

// nestedViews are the shapes inside the resources that have a component
// of their own.
var nestedViews = map[string]any{
	"Stage":               stageView{},
	"CommissionPayment":   paymentView{},
	"DeliveryAttempt":     webhooks.AttemptRecord{},
	"AutomationTrigger":   triggerView{},
	"AutomationCondition": autodef.Condition{},
	"AutomationAction":    autodef.Action{},
	"Error":               ErrorBody{},
}

// views are every view's component name and Go shape.
func views() map[string]any {
	out := maps.Clone(nestedViews)
	maps.Copy(out, analyticsViews)
	for _, r := range append(resources(), reportResources()...) {
		out[r.name] = r.view
	}
	return out
}

// generator generates the views' components, each referring to the others.
func generator() viewGenerator {
	g := viewGenerator{components: map[reflect.Type]string{}}
	for name, v := range views() {
		g.components[reflect.TypeOf(v)] = name
	}
	return g
}

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

func (r resource) addTo(out m, g viewGenerator) {
	out[r.name] = g.schema(r.view)
	out[r.name+"Resource"] = record(m{"id": r.id, "type": enumS(r.typ), "attributes": sRef(r.name)})
	if r.single {
		out[r.name+"Envelope"] = record(m{"data": sRef(r.name + "Resource"), "meta": sRef("Meta")})
	}
	if r.paged {
		out[r.name+"List"] = record(m{"data": arr(sRef(r.name + "Resource")), "meta": sRef("PageMeta")})
	}
	if r.totalOnly {
		out[r.name+"TotalList"] = record(m{"data": arr(sRef(r.name + "Resource")), "meta": sRef("TotalMeta")})
	}
}

func prefixed(prefix string) m {
	return m{"type": "string", "pattern": "^" + prefix + "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"}
}

// resources are the resource types with a view, and the form of their ids.
func resources() []resource {
	return []resource{
		{name: "Lead", typ: "lead", id: uuidS(), view: leadAttributes{}, single: true, paged: true},
		{name: "PipelineStage", typ: "stage", id: uuidS(), view: stageAttributes{}, paged: true},
		{name: "User", typ: "user", id: uuidS(), view: userAttributes{}, paged: true},
		{name: "Team", typ: "team", id: uuidS(), view: teamAttributes{}, paged: true},
		{name: "CallEvent", typ: "call_event", id: prefixed(callEventPrefix), view: callEventAttributes{}, single: true},
		{name: "AgentPresence", typ: "agent_presence", id: prefixed(presencePrefix), view: presenceAttributes{}, single: true, paged: true},
		{name: "DoNotCall", typ: "do_not_call", id: str(), view: dncAttributes{}, single: true},
		{name: "WebhookSubscription", typ: "webhook_subscription", id: prefixed(subscriptionPrefix), view: subscriptionAttributes{}, single: true, totalOnly: true},
		{name: "WebhookDelivery", typ: "webhook_delivery", id: prefixed(webhooks.DeliveryIDPrefix), view: webhooks.DeliveryRecord{}, single: true, paged: true},
		{name: "WebhookReplay", typ: "webhook_replay", id: enumS("replay"), view: replayAttributes{}, single: true},
		{name: "WebhookEventType", typ: "webhook_event_type", id: str(), view: event.Type{}, totalOnly: true},
		{name: "InboundEndpoint", typ: "inbound_endpoint", id: uuidS(), view: inboundAttributes{}, single: true, totalOnly: true},
		{name: "InboundRequest", typ: "inbound_request", id: uuidS(), view: inboundRequestAttributes{}, paged: true},
		{name: "Automation", typ: "automation", id: uuidS(), view: automationAttributes{}, single: true, paged: true},
		{name: "AutomationRun", typ: "automation_run", id: uuidS(), view: runAttributes{}, single: true, paged: true},
		{name: "Lender", typ: "lender", id: uuidS(), view: lenderAttributes{}, single: true, paged: true},
		{name: "Application", typ: "application", id: uuidS(), view: applicationAttributes{}, single: true, paged: true},
		{name: "FundedDeal", typ: "funded_deal", id: uuidS(), view: fundedDealAttributes{}, single: true, paged: true},
		{name: "Commission", typ: "commission", id: uuidS(), view: commissionAttributes{}, single: true, paged: true},
		{name: "AppInstallation", typ: "app_installation", id: uuidS(), view: installationAttributes{}, paged: true},
		{name: "Status", typ: "status", id: enumS("status"), view: statusAttributes{}, single: true},
	}
}

func errorCodes() []string { return slices.Sorted(maps.Keys(statusOf)) }

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
		return m{"type": "integer", "minimum": 0, "maximum": bounds.MaxDurationSeconds}
	case "externalCallId", "currentCallId":
		return m{"type": "string", "minLength": 1, "maxLength": bounds.MaxCallID}
	case "disposition":
		return m{"type": "string", "minLength": 1, "maxLength": bounds.MaxDisposition}
	case "notes":
		return m{"type": "string", "maxLength": bounds.MaxNotes}
	case "campaignName":
		return m{"type": "string", "maxLength": bounds.MaxCampaign}
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

// subscriptionEventNames are the names a subscription may list: every
// catalog event type, or "*" for all.
func subscriptionEventNames() []string {
	names := []string{event.All}
	for _, e := range event.Catalog {
		names = append(names, e.Name)
	}
	return names
}

func inboundMapping() m {
	return m{"type": "object", "additionalProperties": m{"type": "string"},
		"description": "Target field → JSONPath into the received body, e.g. {\"businessName\": \"$.company.name\"}."}
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
