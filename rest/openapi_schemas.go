package rest

import (
	"maps"
	"slices"
	"strings"

	"github.com/lendingpipe/svc/dialer"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/enum"
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
	attrs         m
	single, paged bool
	totalOnly     bool // a collection whose meta has only total
	optional      []string
}

func schemas() m {
	out := m{
		"Meta":          record(m{"requestId": uuidS()}),
		"PageMeta":      record(m{"total": count(), "page": m{"type": "integer", "minimum": 1}, "limit": m{"type": "integer", "minimum": 1}, "hasMore": boolS(), "requestId": uuidS()}),
		"TotalMeta":     record(m{"total": count(), "requestId": uuidS()}),
		"Error":         record(m{"code": enumRef(enumErrorCode), "message": str(), "detail": m{"type": "object", "additionalProperties": true, "description": "Machine-readable context; field names the offending field of a validation error."}}),
		"ErrorEnvelope": record(m{"errors": m{"type": "array", "minItems": 1, "items": sRef("Error")}, "meta": sRef("Meta")}),
		"Stage":         record(m{"id": uuidS(), "stageKey": str(), "stageLabel": str(), "color": hexColor(), "semanticSlot": enumRef(enumSemanticSlot)}),
		"DeliveryAttempt": record(m{"attemptedAt": dateTime(), "statusCode": null(m{"type": "integer"}), "latencyMs": count(),
			"error": null(str()), "responseExcerpt": null(str())}),
		"AutomationTrigger": record(m{"type": enumRef(enumTriggerType), "endpointId": null(uuidS()), "event": null(str())}),
		"AutomationCondition": object(m{"path": m{"type": "string", "description": "RFC 9535 JSONPath into the run's input, e.g. $.loan.amount."},
			"op": enumRef(enumConditionOperator), "value": m{"nullable": true, "description": "The operand; a list for in."}}, "path", "op"),
		"AutomationAction":   automationAction(),
		"ReceivedEnvelope":   record(m{"data": record(m{"received": m{"type": "boolean", "enum": []bool{true}}}), "meta": sRef("Meta")}),
		"LeadCreate":         leadInput(true),
		"LeadPatch":          leadInput(false),
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
		"SubscriptionCreate": object(m{"url": subscriptionURL(), "events": subscriptionEvents(),
			"secret": m{"type": "string", "minLength": 16, "maxLength": 256, "description": "Signing secret; generated (whsec_...) when omitted."}}, "url", "events"),
		"SubscriptionPatch": object(m{"url": subscriptionURL(), "events": subscriptionEvents(), "isActive": boolS()}),
		"ReplayRequest": object(m{
			"since": described(dateTime(), "Replays the events that occurred at or after this instead of the dead-letter queue: not before 1970, and in the past when until is omitted."),
			"until": described(dateTime(), "With since: only the events that occurred before this, which must be after since; now when omitted.")}),
		"InboundEndpointCreate": object(m{"name": m{"type": "string", "minLength": 1, "maxLength": bounds.MaxName},
			"mapping": null(inboundMapping())}, "name"),
		"InboundEndpointPatch": object(m{"name": m{"type": "string", "minLength": 1, "maxLength": bounds.MaxName}, "mapping": null(inboundMapping()), "isActive": boolS()}),
		"AutomationCreate":     automationInput("name", "trigger", "actions"),
		"AutomationPatch":      automationInput(),
		"CommissionPayment":    commissionPayment(),
	}
	for name, s := range enumSchemas() {
		out[name] = s
	}
	for name, s := range analyticsSchemas() {
		out[name] = s
	}
	for _, r := range append(resources(), reportResources()...) {
		r.addTo(out)
	}
	for _, e := range event.Catalog {
		out[eventSchemaName(e.Name)] = eventEnvelope(e)
	}
	return out
}

func (r resource) addTo(out m) {
	attrs := record(r.attrs)
	if len(r.optional) > 0 {
		var req []string
		for _, k := range sortedKeys(r.attrs) {
			if !slices.Contains(r.optional, k) {
				req = append(req, k)
			}
		}
		attrs["required"] = req
	}
	out[r.name] = attrs
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

func resources() []resource {
	nstr, nuuid, ntime := null(str()), null(uuidS()), null(dateTime())
	decimal := null(m{"type": "string", "pattern": enum.DecimalPattern, "description": "A non-negative decimal kept as a string so no precision is lost."})
	return []resource{
		{name: "Lead", typ: "lead", id: uuidS(), single: true, paged: true, attrs: m{
			"businessName": nstr, "contactFirstName": nstr, "contactLastName": nstr, "email": nstr, "phone": nstr, "industry": nstr,
			"monthlyRevenue": decimal, "requestedAmount": decimal, "source": enumRef(enumLeadSource), "priority": enumRef(enumLeadPriority),
			"isDoNotCall": boolS(), "tags": arr(str()), "customFields": freeObject(), "externalIds": freeObject(),
			"leadScore": null(m{"type": "integer", "minimum": 0, "maximum": 100}), "stage": sRef("Stage"),
			"primaryAdvisorId": nuuid, "primaryAdvisorName": nstr, "contactId": nuuid, "lastContactedAt": ntime,
			"stageChangedAt": dateTime(), "createdAt": dateTime(), "updatedAt": dateTime(), "dncReason": nstr, "dncAt": ntime,
			"convertedAt": ntime, "convertedAccountId": nuuid, "convertedContactId": nuuid, "importJobId": nuuid,
			"createdBy": null(m{"type": "string", "description": "The API key id, or automation:<id>, that created the lead."}),
		}},
		{name: "PipelineStage", typ: "stage", id: uuidS(), paged: true, attrs: m{
			"stageKey": str(), "stageLabel": str(), "color": hexColor(), "semanticSlot": enumRef(enumSemanticSlot),
			"position":  m{"type": "integer", "minimum": 0, "description": "The stage's place in the pipeline: lowest first."},
			"createdAt": dateTime(), "updatedAt": dateTime(),
		}},
		{name: "User", typ: "user", id: uuidS(), paged: true, attrs: m{
			"firstName": str(), "lastName": str(), "email": str(), "role": enumRef(enumUserRole),
			"teamId": nuuid, "teamName": nstr, "createdAt": dateTime(), "updatedAt": dateTime(),
		}},
		{name: "Team", typ: "team", id: uuidS(), paged: true, attrs: m{"name": str(), "createdAt": dateTime(), "updatedAt": dateTime()}},
		{name: "CallEvent", typ: "call_event", id: prefixed(callEventPrefix), single: true, attrs: m{
			"externalCallId": str(), "userId": uuidS(), "leadId": nuuid, "eventType": enumRef(enumCallEventType), "direction": nullEnumRef(enumCallDirection),
			"durationSeconds": null(count()), "disposition": nstr, "notes": nstr, "metadata": freeObject(),
			"occurredAt": dateTime(), "createdAt": dateTime(), "updatedAt": dateTime(),
		}},
		{name: "AgentPresence", typ: "agent_presence", id: prefixed(presencePrefix), single: true, paged: true, attrs: m{
			"userId": uuidS(), "firstName": str(), "lastName": str(), "email": str(), "status": enumRef(enumPresenceStatus),
			"currentCallId": nstr, "currentLeadId": nuuid, "currentLeadName": nstr, "callStartedAt": ntime, "statusChangedAt": ntime,
			"callsToday": count(), "dispositionCount": count(), "campaignName": nstr, "statusTimeSec": count(),
		}},
		{name: "DoNotCall", typ: "do_not_call", id: str(), single: true, attrs: m{"phone": nstr, "reason": nstr, "leadIds": arr(uuidS())}},
		{name: "WebhookSubscription", typ: "webhook_subscription", id: prefixed(subscriptionPrefix), single: true, totalOnly: true,
			optional: []string{"secret"}, attrs: m{
				"url": str(), "events": arr(str()), "secret": m{"type": "string", "description": "Only in the create response."},
				"isActive": boolS(), "pausedReason": nstr, "pausedAt": ntime, "consecutiveFailures": count(), "createdAt": dateTime(),
			}},
		{name: "WebhookDelivery", typ: "webhook_delivery", id: prefixed(webhooks.DeliveryIDPrefix), single: true, paged: true, attrs: m{
			"webhookId": prefixed(webhooks.DeliveryIDPrefix), "eventId": prefixed(webhooks.EventIDPrefix), "eventType": str(),
			"status": enumRef(enumDeliveryStatus), "attempts": count(), "nextAttemptAt": ntime, "lastStatusCode": null(m{"type": "integer"}),
			"lastError": nstr, "deliveredAt": ntime, "deadAt": ntime, "createdAt": dateTime(), "attemptLog": arr(sRef("DeliveryAttempt")),
		}},
		{name: "WebhookReplay", typ: "webhook_replay", id: enumS("replay"), single: true, attrs: m{"queued": count()}},
		{name: "WebhookEventType", typ: "webhook_event_type", id: str(), totalOnly: true, attrs: m{
			"name": str(), "description": str(), "emitted": boolS(), "schema": m{"type": "object", "description": "JSON Schema of the delivery's data."},
		}},
		{name: "InboundEndpoint", typ: "inbound_endpoint", id: uuidS(), single: true, totalOnly: true, optional: []string{"secret"}, attrs: m{
			"name": str(), "endpointKey": str(), "path": str(), "secret": m{"type": "string", "description": "Only in the create response."},
			"mapping": m{"type": "object", "additionalProperties": str()}, "isActive": boolS(), "createdAt": dateTime(),
		}},
		{name: "InboundRequest", typ: "inbound_request", id: uuidS(), paged: true, attrs: m{
			"receivedAt": dateTime(), "webhookId": nstr, "signatureValid": boolS(), "timestampSigned": boolS(),
			"payload": freeObject(), "mapped": freeObject(), "status": enumRef(enumInboundRequestStatus), "error": nstr,
			"errorCode": nullEnumRef(enumErrorCode),
		}},
		{name: "Automation", typ: "automation", id: uuidS(), single: true, paged: true, attrs: m{
			"name": str(), "isActive": boolS(), "trigger": sRef("AutomationTrigger"), "conditions": arr(sRef("AutomationCondition")),
			"actions": arr(sRef("AutomationAction")), "requiredFields": arr(str()), "createdAt": dateTime(), "updatedAt": dateTime(),
		}},
		{name: "AutomationRun", typ: "automation_run", id: uuidS(), single: true, paged: true, attrs: m{
			"automationId": uuidS(), "status": enumRef(enumAutomationRunStatus), "attempts": count(), "nextAttemptAt": ntime,
			"inboundRequestId": nuuid, "eventId": null(prefixed(webhooks.EventIDPrefix)), "input": freeObject(),
			"applied": arr(freeObject()), "leadId": nuuid, "error": nstr, "createdAt": dateTime(), "finishedAt": ntime,
			"errorCode": nullEnumRef(enumErrorCode),
		}},
		lenderSchema(nstr), applicationSchema(nstr, nuuid, ntime), fundedDealSchema(nuuid), commissionSchema(nuuid),
		{name: "Status", typ: "status", id: enumS("status"), single: true, attrs: m{
			"status": enumRef(enumServiceStatus), "version": str(), "apiVersion": str(), "database": enumRef(enumDatabase),
			"databaseReachable": boolS(), "uptimeSeconds": count(),
			"outboxDepth": null(count()), "deadLetterDepth": null(count()), "automationQueueDepth": null(count()),
		}},
	}
}

// The lending records (PRODUCT 1.2-1.5).

func lenderSchema(nstr m) resource {
	return resource{name: "Lender", typ: "lender", id: uuidS(), single: true, paged: true, attrs: m{
		"name":                described(m{"type": "string", "minLength": 1, "maxLength": 200}, "Unique within the organization, ignoring case."),
		"isActive":            described(boolS(), "false for a lender that takes no new applications."),
		"products":            arr(enumRef(enumLenderProduct)),
		"minAmount":           described(null(amountS()), "The smallest amount the lender funds; null when it sets none."),
		"maxAmount":           described(null(amountS()), "The largest amount the lender funds; null when it sets none."),
		"minMonthlyRevenue":   described(null(amountS()), "The least monthly revenue the lender takes; null when it sets none."),
		"minMonthsInBusiness": described(null(m{"type": "integer", "minimum": 0, "maximum": 1200}), "The fewest months in business the lender takes; null when it sets none."),
		"excludedIndustries":  described(arr(str()), "Industries the lender does not fund, matched against the lead's industry ignoring case."),
		"commissionRate":      described(rateS(), "The default commission as a fraction of the funded amount (\"0.03\" is 3 %)."),
		"contactEmail":        nstr,
		"createdAt":           dateTime(), "updatedAt": dateTime(),
	}}
}

func applicationSchema(nstr, nuuid, ntime m) resource {
	return resource{name: "Application", typ: "application", id: uuidS(), single: true, paged: true, attrs: m{
		"leadId": uuidS(), "lenderId": uuidS(),
		"lenderName":       described(str(), "The lender's name at submission."),
		"status":           enumRef(enumApplicationStatus),
		"product":          nullEnumRef(enumLenderProduct),
		"requestedAmount":  amountS(),
		"submittedAt":      dateTime(),
		"submittedBy":      described(str(), "Who submitted it: the API key's id, automation:<id>, or system (as changedBy in lead.status_changed)."),
		"externalRef":      described(null(m{"type": "string", "minLength": 1, "maxLength": 100}), "The lender's own reference, unique per lender; null when not given."),
		"notes":            described(null(m{"type": "string", "maxLength": 5000}), "The broker's notes on the submission; null when none."),
		"decidedAt":        ntime,
		"approvedAmount":   described(null(amountS()), "The offer's amount; null unless approved."),
		"interestRate":     described(null(rateS()), "The offer's rate, read as rateType says; null unless approved."),
		"rateType":         nullEnumRef(enumRateType),
		"termMonths":       described(null(m{"type": "integer", "minimum": 1, "maximum": 600}), "The offer's term in months; null unless approved."),
		"paymentFrequency": nullEnumRef(enumPaymentFrequency),
		"conditions":       described(arr(str()), "Stipulations the lender asks for before funding."),
		"declineReason":    described(null(m{"type": "string", "minLength": 1, "maxLength": 500}), "Why the lender declined; null unless declined."),
		"declineCategory":  nullEnumRef(enumDeclineCategory),
		"withdrawnReason":  described(nstr, "Why it was withdrawn: funded_elsewhere when another application of the lead was funded; null unless withdrawn."),
		"warnings":         described(arr(str()), "The criteria of the lender's box the submission missed, one sentence each; empty when none."),
		"fundedDealId":     described(nuuid, "The deal the application became; null unless funded."),
		"createdAt":        dateTime(), "updatedAt": dateTime(),
	}}
}

func fundedDealSchema(nuuid m) resource {
	return resource{name: "FundedDeal", typ: "funded_deal", id: uuidS(), single: true, paged: true, attrs: m{
		"applicationId": uuidS(), "leadId": uuidS(), "lenderId": uuidS(),
		"lenderName":       described(str(), "The lender's name at submission."),
		"advisorId":        described(nuuid, "The advisor credited: the lead's primary advisor at funding unless given; null when none."),
		"fundedAmount":     amountS(),
		"interestRate":     described(rateS(), "The offer's rate, read as rateType says."),
		"rateType":         enumRef(enumRateType),
		"termMonths":       m{"type": "integer", "minimum": 1, "maximum": 600},
		"paymentFrequency": nullEnumRef(enumPaymentFrequency),
		"paybackAmount":    described(null(amountS()), "fundedAmount × interestRate, half-even to the cent, for a factor rate; null for an APR."),
		"commission":       described(amountS(), "The commission expected: fundedAmount × the lender's commissionRate (half-even to the cent) unless given at funding. GraphQL names it FundedDeal.expectedCommission."),
		"commissionId":     described(uuidS(), "The deal's commission record (GET /v1/commissions/{id})."),
		"fundedAt":         dateTime(), "createdAt": dateTime(),
	}}
}

func commissionSchema(nuuid m) resource {
	return resource{name: "Commission", typ: "commission", id: uuidS(), single: true, paged: true, attrs: m{
		"dealId": uuidS(), "leadId": uuidS(), "lenderId": uuidS(),
		"advisorId":      described(nuuid, "The deal's advisor; null when none."),
		"expectedAmount": described(amountS(), "The deal's commission."),
		"paidAmount":     described(amountS(), "The sum of the payments minus the sum of the clawbacks."),
		"status":         enumRef(enumCommissionStatus),
		"payments":       described(arr(sRef("CommissionPayment")), "The payments and clawbacks, oldest paidAt first."),
		"createdAt":      dateTime(), "updatedAt": dateTime(),
	}}
}

// commissionPayment is one payment or clawback of a commission.
func commissionPayment() m {
	return record(m{
		"amount": described(amountS(), "The amount paid or clawed back: more than 0."), "kind": enumRef(enumPaymentKind),
		"paidAt": dateTime(), "reference": described(null(str()), "The lender's reference (a remittance or transfer id); null when none."),
	})
}

func errorCodes() []string { return slices.Sorted(maps.Keys(statusOf)) }

// leadInput is POST /v1/leads's body (create) or PATCH's. Null is accepted
// for every member: on create it is the same as absent, on PATCH it clears.
func leadInput(create bool) m {
	text := func(lo, hi int) m { return null(m{"type": "string", "minLength": lo, "maxLength": hi}) }
	props := m{
		"businessName":     null(m{"type": "string", "minLength": 1, "maxLength": 255, "description": "No HTML: markup and character references are refused."}),
		"contactFirstName": text(0, 100), "contactLastName": text(0, 100), "industry": text(0, 100), "phone": text(0, 20),
		"email":           null(m{"type": "string", "format": "email", "maxLength": 254}),
		"monthlyRevenue":  null(m{"type": "string", "pattern": enum.DecimalPattern, "example": "12500.00"}),
		"requestedAmount": null(m{"type": "string", "pattern": enum.DecimalPattern, "example": "50000"}),
		"priority":        nullEnumRef(enumLeadPriority),
		"tags": null(m{"type": "array", "maxItems": bounds.MaxTags,
			"items": m{"type": "string", "minLength": 1, "maxLength": bounds.MaxTagLen}}),
		"customFields": null(m{"type": "object", "maxProperties": bounds.MaxCustomFields, "additionalProperties": true}),
	}
	if create {
		props["source"] = nullEnumRef(enumLeadSource)
		props["stageId"] = null(m{"type": "string", "format": "uuid", "description": "Defaults to the organization's first stage."})
		props["assignToAdvisorId"] = null(uuidS())
		props["contactId"] = null(uuidS())
		props["externalIds"] = null(m{"type": "object", "maxProperties": bounds.MaxExternalIDs, "description": "Other systems' ids: strings or numbers.",
			"additionalProperties": m{"oneOf": []m{{"type": "string", "minLength": 1, "maxLength": 255}, {"type": "number"}}}})
	}
	return m{"type": "object", "properties": props, "additionalProperties": false}
}

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

func subscriptionURL() m {
	return m{"type": "string", "format": "uri", "maxLength": 2048, "description": "HTTPS address that receives the deliveries."}
}

func subscriptionEvents() m {
	return m{"type": "array", "minItems": 1, "items": enumRef(enumSubscriptionEvent), "description": "Event types, or \"*\" for all."}
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

func automationAction() m {
	return object(m{
		"type":       enumRef(enumAutomationActionType),
		"matchBy":    m{"type": "string", "description": "update_lead: id, email, phone or externalIds.<key>."},
		"matchField": m{"type": "string", "description": "update_lead: the input field holding the match value."},
		"tags":       arr(str()),
		"stageId":    uuidS(), "advisorId": uuidS(), "teamId": m{"type": "string", "format": "uuid", "description": "assign_advisor: round-robin over this team's advisors."},
		"reason": str(),
	}, "type")
}

func automationInput(required ...string) m {
	o := object(m{
		"name": m{"type": "string", "minLength": 1, "maxLength": bounds.MaxName}, "isActive": boolS(),
		"trigger": m{"type": "object", "description": "Exactly one of endpointId (an inbound endpoint) and event (a catalog event type).",
			"properties": m{"endpointId": uuidS(), "event": str()}, "additionalProperties": false},
		"conditions":     null(arr(sRef("AutomationCondition"))),
		"actions":        m{"type": "array", "minItems": 1, "items": sRef("AutomationAction")},
		"requiredFields": null(arr(str())),
	}, required...)
	o["additionalProperties"] = false
	return o
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
