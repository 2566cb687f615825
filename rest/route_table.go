package rest

import (
	"net/http"

	"github.com/lendingpipe/svc/internal/viewer"
)

// The route table: each operation of the service once, with its handler
// (V1 mounts it) and what the OpenAPI document says of it (operation.go
// renders it).

// operations are the route table as the document reads it: the handlers
// are left zero, for it describes them without calling them. A test
// compares the document with the router both ways.
func operations() []operation { return routeTable(handlers{}) }

// routeTable is every operation of the service, each with the handler that
// serves it.
func routeTable(h handlers) []operation {
	var ops []operation
	ops = append(ops, metaOperations()...)
	ops = append(ops, authOperations(h.auth, h.oidc)...)
	ops = append(ops, leadOperations(h)...)
	ops = append(ops, directoryOperations(h)...)
	ops = append(ops, lendingOperations(h)...)
	ops = append(ops, analyticsOperations(h.reports)...)
	ops = append(ops, dialerOperations(h)...)
	ops = append(ops, webhookOperations(h)...)
	ops = append(ops, inboundOperations(h)...)
	ops = append(ops, appOperations(h)...)
	ops = append(ops, documentOperations(h)...)
	ops = append(ops, taskOperations(h)...)
	ops = append(ops, renewalOperations(h)...)
	ops = append(ops, exportOperations(h)...)
	return append(ops, automationOperations(h)...)
}

// appOperations are the apps' one REST read (PRODUCT 3); registering,
// installing and uninstalling are GraphQL mutations.
func appOperations(h handlers) []operation {
	return []operation{
		{method: "GET", path: "/v1/apps/installations", id: "listAppInstallations", serve: h.apps.installations, tag: "apps", summary: "List app installations",
			desc: "The apps installed by the organization, newest first; uninstalled ones only with includeUninstalled=true. " +
				"A malformed filter is 422 naming it.",
			scope: viewer.ScopeAdmin, params: paged(docQuery("includeUninstalled", "true to list uninstalled apps too.", boolS())),
			status: 200, result: listRef("AppInstallation"), resultDesc: "A page of installations.", example: examplePage(installationExample())},
	}
}

// taskOperations are the tasks' one REST read (PRODUCT 10.2); creating,
// changing, completing and reopening them are GraphQL mutations.
func taskOperations(h handlers) []operation {
	return []operation{
		{method: "GET", path: "/v1/tasks", id: "listTasks", serve: h.tasks.list, tag: "tasks", summary: "List tasks",
			desc: "The organization's tasks (follow-ups on leads) by dueAt, then id: the filters of GraphQL's tasks(where:). " +
				"Every filter given must hold; a malformed filter is 422 naming it.",
			scope: viewer.ScopeLeadsRead, params: paged(
				docQuery("assigneeId", "Only the tasks of this user.", uuidS()),
				docQuery("status", "Only the tasks in this status.", enumRef(enumTaskStatus)),
				docQuery("leadId", "Only the tasks of this lead.", uuidS()),
				docQuery("dueBefore", "Only the tasks due before this: "+rangeBound+" A date includes its whole day.", str())),
			status: 200, result: listRef("Task"), resultDesc: "A page of tasks.", example: examplePage(taskExample())},
	}
}

// renewalOperations are the renewal queue's REST read (PRODUCT 12.2);
// starting a renewal is submitApplication with renewalOfDealId.
func renewalOperations(h handlers) []operation {
	return []operation{
		{method: "GET", path: "/v1/renewals", id: "listRenewals", serve: h.renewals.list, tag: "renewals", summary: "List the renewal queue",
			desc: "Funded deals whose renewal is due by dueBefore (now by default), of leads with no application submitted, in underwriting " +
				"or approved and no deal funded after it, earliest renewalEligibleAt first, then by deal id: the filters of GraphQL's " +
				"renewalQueue(where:). Each entry's id is the deal's. A malformed filter is 422 naming it.",
			scope: viewer.ScopeLendingRead, params: paged(
				docQuery("advisorId", "Only the deals credited to this advisor.", uuidS()),
				docQuery("dueBefore", "Only the deals eligible at or before this (default now): "+rangeBound+" A date includes its whole day.", str())),
			status: 200, result: listRef("Renewal"), resultDesc: "A page of the renewal queue.", example: examplePage(renewalExample())},
	}
}

// metaOperations are the probes and this document; the HTTP root serves
// the probes itself, so they name no handler here.
func metaOperations() []operation {
	plain := func(status string) m {
		return record(m{"status": m{"type": "string", "enum": []string{status}}})
	}
	return []operation{
		{method: "GET", path: "/status", id: "getStatus", tag: "meta", summary: "Service health",
			desc: "Version, API version, database reachability, queue depths and uptime, in the single-resource envelope; 503 (same shape, depths null) when the database is unreachable.",
			auth: authPublic, status: 200, result: envelopeRef("Status"), resultDesc: "The service is healthy.", unavailableAsResult: true},
		{method: "GET", path: "/healthz", id: "getLiveness", tag: "meta", summary: "Liveness probe",
			desc: "200 while the process serves requests; for orchestrators.", auth: authPublic, status: 200, result: plain("ok"), resultDesc: "Alive."},
		{method: "GET", path: "/readyz", id: "getReadiness", tag: "meta", summary: "Readiness probe",
			desc: "200 when the database answers and takes writes (a heartbeat commit, checked at most once a second), else 503 SERVICE_UNAVAILABLE saying why; for orchestrators.", auth: authPublic, status: 200, result: plain("ready"), resultDesc: "Ready for traffic."},
		{method: "GET", path: "/v1/openapi.json", id: "getOpenAPI", serve: openAPIHandler, tag: "meta", summary: "This OpenAPI 3.0 document",
			auth: authPublic, status: 200, result: m{"type": "object"}, resultDesc: "The OpenAPI document."},
	}
}

func leadOperations(h handlers) []operation {
	write, read := viewer.ScopeLeadsWrite, viewer.ScopeLeadsRead
	return []operation{
		{method: "GET", path: "/v1/leads", id: "listLeads", serve: h.leads.list, tag: "leads", summary: "List leads",
			desc:  "Leads of the caller's organization, newest createdAt first (by relevance when searching). " + leadFiltersDesc,
			scope: read, params: paged(leadFilterParams()...),
			status: 200, result: listRef("Lead"), resultDesc: "A page of leads."},
		{method: "POST", path: "/v1/leads", id: "createLead", serve: h.leads.create, tag: "leads", summary: "Create a lead",
			desc:  "Creates a lead (no field is required) in the given stage or the first one, and emits lead.created.",
			scope: write, idem: true, body: sRef("LeadCreate"), status: 201, result: envelopeRef("Lead"), resultDesc: "The created lead."},
		{method: "GET", path: "/v1/leads/{id}", id: "getLead", serve: h.leads.get, tag: "leads", summary: "Get a lead",
			scope: read, params: []m{leadIDParam}, status: 200, result: envelopeRef("Lead"), resultDesc: "The lead."},
		{method: "PATCH", path: "/v1/leads/{id}", id: "updateLead", serve: h.leads.patch, tag: "leads", summary: "Update a lead",
			desc:  "Changes only the fields sent; null clears a field. source, stageId, assignToAdvisorId, contactId and externalIds are refused (422). Emits lead.updated when something changed.",
			scope: write, idem: true, params: []m{leadIDParam}, body: sRef("LeadPatch"), status: 200, result: envelopeRef("Lead"), resultDesc: "The updated lead."},
		{method: "POST", path: "/v1/leads/{id}/stage", id: "moveLeadStage", serve: h.leads.moveStage, tag: "leads", summary: "Move a lead to a stage",
			desc:  "Moves the lead to another stage of its organization's pipeline; emits lead.status_changed and lead.stage_changed.",
			scope: write, params: []m{leadIDParam}, body: inlineBody(stageBody{}), status: 200, result: envelopeRef("Lead"), resultDesc: "The moved lead."},
		{method: "POST", path: "/v1/leads/{id}/assign", id: "assignLead", serve: h.leads.assign, tag: "leads", summary: "Assign a lead to an advisor",
			desc:  "Makes advisorId the lead's primary advisor; emits lead.assigned.",
			scope: write, params: []m{leadIDParam}, body: inlineBody(assignBody{}), status: 200, result: envelopeRef("Lead"), resultDesc: "The assigned lead."},
		{method: "GET", path: "/v1/leads/{id}/activity", id: "listLeadActivity", serve: h.leads.activityPage, tag: "leads", summary: "A lead's history",
			desc: "The lead's stored history (GraphQL's Lead.activity), newest first: each change to the lead or to a record of it, " +
				"written in the transaction of the change, with who made it (a person, an API key, an app, the dialer's connector, " +
				"or the system and its automations). A lead of another organization, or an id that is not a UUID, is 404. " +
				"A lead loaded by svc seed's bulk loader starts with the history the loader seeds: its creation and its lending book, by the system.",
			scope: read, params: paged(leadIDParam), status: 200, result: listRef("Activity"), resultDesc: "A page of the lead's history.",
			example: activityExample()},
	}
}

// leadFiltersDesc and leadFilterParams are the search and filters of GET
// /v1/leads, which its export takes too.
const leadFiltersDesc = "The filters are those of GraphQL's leads(where:); every filter given must hold. search and the filters do not combine (422 naming search). Any other query parameter is 422 naming it."

func leadFilterParams() []m {
	return []m{
		docQuery("search", "Full-text search over business name, contact name and email; results are ordered by relevance.",
			m{"type": "string", "maxLength": maxSearch}),
		docQuery("stageId", "Only the leads in this stage.", uuidS()),
		docQuery("primaryAdvisorId", "Only the leads of this primary advisor.", uuidS()),
		docQuery("priority", "Only the leads of this priority.", enumRef(enumLeadPriority)),
		docQuery("source", "Only the leads from this source.", enumRef(enumLeadSource)),
		docQuery("createdFrom", "Only the leads created at or after this: "+rangeBound, str()),
		docQuery("createdTo", "Only the leads created before this: "+rangeBound+" A date includes its whole day; must be after createdFrom.", str()),
		docQuery("tags", "Only the leads carrying every one of these tags, comma-separated (hot,callback).", str()),
	}
}

// directoryOperations are the organization's stages, users and teams: the
// ids the writes take. The ent privacy policy lets any key of the
// organization read them, so they name no scope.
func directoryOperations(h handlers) []operation {
	role := docQuery("role", "Only users with this role.", enumRef(enumUserRole))
	team := docQuery("teamId", "Only the members of this team.", uuidS())
	return []operation{
		{method: "GET", path: "/v1/stages", id: "listStages", serve: h.directory.stages, tag: "organization", summary: "List pipeline stages",
			desc:   "The organization's pipeline stages in pipeline order (position, then id): the ids POST /v1/leads (stageId), POST /v1/leads/{id}/stage and the move_stage automation action take.",
			params: paged(), status: 200, result: listRef("PipelineStage"), resultDesc: "A page of stages.", example: stagesExample()},
		{method: "GET", path: "/v1/users", id: "listUsers", serve: h.directory.users, tag: "organization", summary: "List users",
			desc:   "The organization's users, by last name, first name, then id, each with its team: the ids POST /v1/leads (assignToAdvisorId), POST /v1/leads/{id}/assign (advisorId) and the dialer endpoints (userId) take.",
			params: paged(role, team), status: 200, result: listRef("User"), resultDesc: "A page of users.", example: usersExample()},
		{method: "GET", path: "/v1/teams", id: "listTeams", serve: h.directory.teams, tag: "organization", summary: "List teams",
			desc:   "The organization's teams, by name, then id: the ids GET /v1/users and GET /v1/dialer/agents filter by (teamId).",
			params: paged(), status: 200, result: listRef("Team"), resultDesc: "A page of teams.", example: teamsExample()},
	}
}

// lendingOperations are the lending half's reads (PRODUCT 1.6); its
// writes are GraphQL mutations.
func lendingOperations(h handlers) []operation {
	read := viewer.ScopeLendingRead
	id := func(what string) []m { return []m{pathParam("id", "The "+what+"'s id.", uuidS())} }
	filters := " A malformed filter is 422 naming it."
	return []operation{
		{method: "GET", path: "/v1/lenders", id: "listLenders", serve: h.lending.lenders, tag: "lending", summary: "List lenders",
			desc:  "The organization's lender panel, newest first." + filters,
			scope: read, params: paged(docQuery("isActive", "Only active (true) or inactive (false) lenders.", boolS())),
			status: 200, result: listRef("Lender"), resultDesc: "A page of lenders.", example: examplePage(lenderExample())},
		{method: "GET", path: "/v1/lenders/{id}", id: "getLender", serve: h.lending.lender, tag: "lending", summary: "Get a lender",
			scope: read, params: id("lender"), status: 200, result: envelopeRef("Lender"), resultDesc: "The lender.", example: exampleSingle(lenderExample())},
		{method: "GET", path: "/v1/applications", id: "listApplications", serve: h.lending.applications, tag: "lending", summary: "List applications",
			desc:  "The organization's applications (a lead submitted to a lender, and the lender's answer), newest first." + filters,
			scope: read, params: paged(applicationFilterParams()...),
			status: 200, result: listRef("Application"), resultDesc: "A page of applications.", example: examplePage(applicationExample())},
		{method: "GET", path: "/v1/applications/{id}", id: "getApplication", serve: h.lending.application, tag: "lending", summary: "Get an application",
			scope: read, params: id("application"), status: 200, result: envelopeRef("Application"), resultDesc: "The application.", example: exampleSingle(applicationExample())},
		{method: "GET", path: "/v1/leads/{id}/offers", id: "listLeadOffers", serve: h.lending.offers, tag: "lending", summary: "A lead's offers side by side",
			desc: "The lead's applications now approved (GraphQL's Lead.offers), each with what it costs the merchant: paybackAmount, payments, " +
				"paymentAmount and costOfCapital, half-even to the cent (an APR's payback is a simple-interest estimate). Cheapest first: by " +
				"costOfCapital, then lenderName. Not paged: a lead has one open application per lender. A lead of another organization, or an id " +
				"that is not a UUID, is 404.",
			scope: read, params: []m{leadIDParam}, status: 200, result: totalListRef("Offer"), resultDesc: "The lead's offers, cheapest first.",
			example: offersExample()},
		{method: "GET", path: "/v1/leads/{id}/lender-matches", id: "listLeadLenderMatches", serve: h.lending.lenderMatches, tag: "lending",
			summary: "Where to send a lead's deal",
			desc: "The organization's active lenders ranked for the lead (GraphQL's lenderMatches): each lender's box checked as a submission " +
				"checks it (misses; the facts the lead lacks in unknown; an open application with the lender is a miss), and a score from " +
				"the organization's record with the lender over the applications submitted at or after now - 180 × 24 h: those in the " +
				"lead's amount band and industry when there are 5 or more (basis similar), else all of them (all), else none (none: score " +
				"and components null). Eligible first, then by score (null last), then lenderName. Not paged: a panel is a few dozen " +
				"lenders. A lead of another organization, or an id that is not a UUID, is 404; a malformed amount or product is 422 naming it.",
			scope: read, params: []m{leadIDParam,
				docQuery("product", "The product to check the lenders' boxes for; not checked when omitted.", enumRef(enumLenderProduct)),
				docQuery("amount", "The amount to ask for, more than 0 and at most 1e12; the lead's requestedAmount when omitted.",
					m{"type": "string", "pattern": `^[0-9]+(\.[0-9]{1,2})?$`, "example": "45000"})},
			status: 200, result: totalListRef("LenderMatch"), resultDesc: "The lenders, best first.",
			example: lenderMatchesExample()},
		{method: "GET", path: "/v1/stipulations", id: "listStipulations", serve: h.lending.stipulations, tag: "lending", summary: "List stipulations",
			desc: "The organization's stipulations (what approved applications still wait for), oldest first: the filters of GraphQL's " +
				"stipulations(where:). Every filter given must hold; a malformed filter is 422 naming it.",
			scope: read, params: paged(
				docQuery("applicationId", "Only the stipulations of this application.", uuidS()),
				docQuery("leadId", "Only the stipulations of this lead's applications.", uuidS()),
				docQuery("status", "Only the stipulations in this status.", enumRef(enumStipulationStatus))),
			status: 200, result: listRef("Stipulation"), resultDesc: "A page of stipulations.", example: examplePage(stipulationExample())},
		{method: "GET", path: "/v1/funded-deals", id: "listFundedDeals", serve: h.lending.fundedDeals, tag: "lending", summary: "List funded deals",
			desc:  "The organization's funded deals, newest fundedAt first." + filters,
			scope: read, params: paged(fundedDealFilterParams()...),
			status: 200, result: listRef("FundedDeal"), resultDesc: "A page of funded deals.", example: examplePage(fundedDealExample())},
		{method: "GET", path: "/v1/funded-deals/{id}", id: "getFundedDeal", serve: h.lending.fundedDeal, tag: "lending", summary: "Get a funded deal",
			scope: read, params: id("funded deal"), status: 200, result: envelopeRef("FundedDeal"), resultDesc: "The funded deal.", example: exampleSingle(fundedDealExample())},
		{method: "GET", path: "/v1/commissions", id: "listCommissions", serve: h.lending.commissions, tag: "lending", summary: "List commissions",
			desc:  "The organization's commissions (one per funded deal), newest first, each with its payments and clawbacks." + filters,
			scope: read, params: paged(commissionFilterParams()...),
			status: 200, result: listRef("Commission"), resultDesc: "A page of commissions.", example: examplePage(commissionExample())},
		{method: "GET", path: "/v1/commissions/{id}", id: "getCommission", serve: h.lending.commission, tag: "lending", summary: "Get a commission",
			scope: read, params: id("commission"), status: 200, result: envelopeRef("Commission"), resultDesc: "The commission with its payments.", example: exampleSingle(commissionExample())},
	}
}

// The lending lists' filters, which their exports take too.
func applicationFilterParams() []m {
	return []m{lendingLeadParam(), lendingLenderParam(),
		docQuery("status", "Only the applications in this status.", enumRef(enumApplicationStatus))}
}

func fundedDealFilterParams() []m {
	return []m{lendingLeadParam(), lendingLenderParam(), lendingAdvisorParam(),
		docQuery("fundedFrom", "Only the deals funded at or after this: "+rangeBound, str()),
		docQuery("fundedTo", "Only the deals funded before this: "+rangeBound+" A date includes its whole day; must be after fundedFrom.", str())}
}

func commissionFilterParams() []m {
	return []m{docQuery("dealId", "Only the commission of this funded deal.", uuidS()), lendingLenderParam(), lendingAdvisorParam(),
		docQuery("status", "Only the commissions in this status.", enumRef(enumCommissionStatus))}
}

func lendingLeadParam() m   { return docQuery("leadId", "Only the records of this lead.", uuidS()) }
func lendingLenderParam() m { return docQuery("lenderId", "Only the records of this lender.", uuidS()) }
func lendingAdvisorParam() m {
	return docQuery("advisorId", "Only the records credited to this advisor.", uuidS())
}

func dialerOperations(h handlers) []operation {
	write := viewer.ScopeDialerWrite
	aliases := " Fields may also be sent under their snake_case and vendor aliases (listed in each property's description)."
	return []operation{
		{method: "POST", path: "/v1/dialer/events", id: "recordCallEvent", serve: h.dialer.event, tag: "dialer", summary: "Record a call event",
			desc: "Records a call event and updates the agent's board." + aliases, scope: write, idem: true,
			body: sRef("CallEventBody"), status: 201, result: envelopeRef("CallEvent"), resultDesc: "The recorded call event."},
		{method: "POST", path: "/v1/dialer/disposition", id: "recordDisposition", serve: h.dialer.disposition, tag: "dialer", summary: "Record a disposition",
			desc: "Records a call's disposition as a call event of type disposition." + aliases, scope: write, idem: true,
			body: sRef("DispositionBody"), status: 201, result: envelopeRef("CallEvent"), resultDesc: "The created call event."},
		{method: "POST", path: "/v1/dialer/presence", id: "updatePresence", serve: h.dialer.presence, tag: "dialer", summary: "Set an agent's status",
			desc: "Sets an agent's presence and returns the enriched board entry." + aliases, scope: write,
			body: sRef("PresenceBody"), status: 200, result: envelopeRef("AgentPresence"), resultDesc: "The agent's presence, enriched."},
		{method: "GET", path: "/v1/dialer/agents", id: "listAgents", serve: h.dialer.agents, tag: "dialer", summary: "The agents board",
			desc:   "Every dialer agent of the organization with presence and today's call statistics.",
			params: paged(docQuery("teamId", "Only agents of this team.", uuidS())), status: 200, result: listRef("AgentPresence"), resultDesc: "A page of agents."},
		{method: "POST", path: "/v1/dialer/connect/{orgToken}", id: "receiveConnectorEvent", serve: connectorHandlers{h.dialer}.receive, tag: "connector", summary: "Dialer connector receiver",
			desc: "Events the dialer vendor pushes, as JSON or form fields. Authenticated by the organization's connector token in the path (not Bearer): an unknown token is 404. The type field (or event) selects the event; members the service does not model are kept in the call event's metadata.connector.",
			auth: authPathToken, params: []m{pathParam("orgToken", "The organization's connector token; it is the credential.", str())},
			body: sRef("ConnectorEvent"), form: true, status: 200,
			result:     m{"oneOf": []m{envelopeRef("CallEvent"), envelopeRef("Lead"), envelopeRef("DoNotCall")}},
			resultDesc: "call_event, disposition and recording answer with the call event; lead_update with the lead; dnc with the leads marked."},
	}
}

func webhookOperations(h handlers) []operation {
	manage := viewer.ScopeWebhooksManage
	deliveryStatus := docQuery("status", "Only deliveries in this state.", enumRef(enumDeliveryStatus))
	return []operation{
		{method: "GET", path: "/v1/webhooks/catalog", id: "listEventTypes", serve: serveCatalog, tag: "webhooks", summary: "The event catalog",
			desc: "Every event type a subscription may name, with its payload's JSON Schema; emitted false marks types reserved for features this service does not have yet.",
			auth: authPublic, status: 200, result: totalListRef("WebhookEventType"), resultDesc: "The catalog."},
		{method: "POST", path: "/v1/app-webhooks", id: "createSubscription", serve: h.hooks.create, tag: "webhooks", summary: "Subscribe to events",
			desc: "Creates a subscription; its signing secret is returned only here. events lists only types the credential may read (403 naming one it may not); \"*\" stands for those.", scope: manage,
			body: sRef("SubscriptionCreate"), status: 201, result: envelopeRef("WebhookSubscription"), resultDesc: "The subscription with its secret.",
			callbacks: m{"delivery": m{"{$request.body#/url}": m{"post": deliveryCallback()}}}},
		{method: "GET", path: "/v1/app-webhooks", id: "listSubscriptions", serve: h.hooks.list, tag: "webhooks", summary: "List subscriptions",
			scope: manage, status: 200, result: totalListRef("WebhookSubscription"), resultDesc: "Every subscription, without secrets."},
		{method: "PATCH", path: "/v1/app-webhooks/{id}", id: "updateSubscription", serve: h.hooks.patch, tag: "webhooks", summary: "Update a subscription",
			desc: "Changes url, events or isActive; isActive true resumes a paused subscription and resets its failure count. events lists only types the credential may read (403 naming one it may not).", scope: manage,
			params: []m{subIDParam}, body: sRef("SubscriptionPatch"), status: 200, result: envelopeRef("WebhookSubscription"), resultDesc: "The updated subscription."},
		{method: "DELETE", path: "/v1/app-webhooks/{id}", id: "deleteSubscription", serve: h.hooks.delete, tag: "webhooks", summary: "Delete a subscription",
			scope: manage, params: []m{subIDParam}, status: 204, resultDesc: "Deleted."},
		{method: "GET", path: "/v1/app-webhooks/{id}/deliveries", id: "listDeliveries", serve: h.hooks.deliveries, tag: "webhooks", summary: "A subscription's deliveries",
			desc: "Deliveries newest first, each with its attempts; status dead is the dead-letter queue.", scope: manage,
			params: paged(subIDParam, deliveryStatus), status: 200, result: listRef("WebhookDelivery"), resultDesc: "A page of deliveries."},
		{method: "POST", path: "/v1/app-webhooks/{id}/deliveries/{deliveryId}/replay", id: "replayDelivery", serve: h.hooks.replayOne, tag: "webhooks", summary: "Redeliver one delivery",
			desc: "Queues the delivery again for an immediate attempt (with a fresh attempt budget).", scope: manage,
			params: []m{subIDParam, pathParam("deliveryId", "The delivery's id (msg_<uuid>).", str())},
			status: 202, result: envelopeRef("WebhookDelivery"), resultDesc: "The delivery, queued.", errs: []int{http.StatusConflict}},
		{method: "POST", path: "/v1/app-webhooks/{id}/replay", id: "replayDeliveries", serve: h.hooks.replayMany, tag: "webhooks", summary: "Redeliver dead deliveries",
			desc: "Queues every dead delivery of the subscription created in [since, until) again.", scope: manage,
			params: []m{subIDParam}, body: sRef("ReplayRequest"), status: 202, result: envelopeRef("WebhookReplay"), resultDesc: "How many deliveries were queued.",
			errs: []int{http.StatusConflict}},
	}
}

func inboundOperations(h handlers) []operation {
	admin := viewer.ScopeAdmin
	return []operation{
		{method: "POST", path: "/v1/webhooks/inbound/{endpointKey}", id: "receiveInboundWebhook", serve: h.inbound.receive, tag: "inbound", summary: "Inbound webhook receiver",
			desc: "Accepts a signed JSON body for an inbound endpoint, maps it with the endpoint's JSONPath mapping and queues its automations. 200 only once the request is stored. A repeated X-Webhook-Id within 24 hours is answered 200 and not stored again. So is a repeated signature within 24 hours, whatever X-Webhook-Id it comes with: the same signature means the same signed bytes, a replay (without X-Webhook-Timestamp the signature covers the body alone, so send a timestamp, or vary the body, for two deliveries of the same content to run twice). A bad or missing signature is 401; an unknown or inactive key 404; a body that is not JSON, or has an object with a duplicate member name, 400.",
			auth: authSignature,
			params: []m{pathParam("endpointKey", "The endpoint's routing key (ibk_...).", str()),
				headerParam(headerTimestamp, "Unix seconds; when sent, the signature covers \"<timestamp>.<raw body>\" and must be within 300 seconds of now.", str()),
				headerParam(headerWebhookID, "The sender's delivery id; repeats within 24 hours are acknowledged and ignored.", str())},
			body: m{"description": "Any JSON value; the mapping reads it with JSONPath."}, status: 200, result: sRef("ReceivedEnvelope"),
			resultDesc: "Stored.", errs: []int{http.StatusUnauthorized}},
		{method: "POST", path: "/v1/inbound-endpoints", id: "createInboundEndpoint", serve: h.inbound.create, tag: "inbound", summary: "Create an inbound endpoint",
			desc: "Creates an endpoint with a random key and signing secret; the secret is returned only here.", scope: admin,
			body: sRef("InboundEndpointCreate"), status: 201, result: envelopeRef("InboundEndpoint"), resultDesc: "The endpoint with its secret."},
		{method: "GET", path: "/v1/inbound-endpoints", id: "listInboundEndpoints", serve: h.inbound.list, tag: "inbound", summary: "List inbound endpoints",
			scope: admin, status: 200, result: totalListRef("InboundEndpoint"), resultDesc: "Every endpoint, without secrets."},
		{method: "PATCH", path: "/v1/inbound-endpoints/{id}", id: "updateInboundEndpoint", serve: h.inbound.patch, tag: "inbound", summary: "Update an inbound endpoint",
			scope: admin, params: []m{inboundIDParam}, body: sRef("InboundEndpointPatch"), status: 200, result: envelopeRef("InboundEndpoint"), resultDesc: "The updated endpoint."},
		{method: "DELETE", path: "/v1/inbound-endpoints/{id}", id: "deleteInboundEndpoint", serve: h.inbound.delete, tag: "inbound", summary: "Delete an inbound endpoint",
			desc: "Deletes the endpoint; 409 while automations are triggered by it.", scope: admin,
			params: []m{inboundIDParam}, status: 204, resultDesc: "Deleted.", errs: []int{http.StatusConflict}},
		{method: "GET", path: "/v1/inbound-endpoints/{id}/requests", id: "listInboundRequests", serve: h.inbound.requests, tag: "inbound", summary: "An endpoint's request log",
			desc: "Requests received, newest first, with payload, mapped data and processing status.", scope: admin,
			params: paged(inboundIDParam), status: 200, result: listRef("InboundRequest"), resultDesc: "A page of requests."},
	}
}

func automationOperations(h handlers) []operation {
	admin := viewer.ScopeAdmin
	runStatus := docQuery("status", "Only runs in this state.", enumRef(enumAutomationRunStatus))
	return []operation{
		{method: "GET", path: "/v1/automations", id: "listAutomations", serve: h.autos.list, tag: "automations", summary: "List automations",
			scope: admin, params: paged(), status: 200, result: listRef("Automation"), resultDesc: "A page of automations."},
		{method: "POST", path: "/v1/automations", id: "createAutomation", serve: h.autos.create, tag: "automations", summary: "Create an automation",
			desc:  "An automation runs its actions, in order and all or nothing, for each input from its trigger that meets its conditions.",
			scope: admin, body: sRef("AutomationCreate"), status: 201, result: envelopeRef("Automation"), resultDesc: "The created automation."},
		{method: "GET", path: "/v1/automations/{id}", id: "getAutomation", serve: h.autos.get, tag: "automations", summary: "Get an automation",
			scope: admin, params: []m{automationIDParam}, status: 200, result: envelopeRef("Automation"), resultDesc: "The automation."},
		{method: "PATCH", path: "/v1/automations/{id}", id: "updateAutomation", serve: h.autos.patch, tag: "automations", summary: "Update an automation",
			scope: admin, params: []m{automationIDParam}, body: sRef("AutomationPatch"), status: 200, result: envelopeRef("Automation"), resultDesc: "The updated automation."},
		{method: "DELETE", path: "/v1/automations/{id}", id: "deleteAutomation", serve: h.autos.delete, tag: "automations", summary: "Delete an automation",
			scope: admin, params: []m{automationIDParam}, status: 204, resultDesc: "Deleted."},
		{method: "GET", path: "/v1/automations/{id}/runs", id: "listAutomationRuns", serve: h.autos.runs, tag: "automations", summary: "An automation's runs",
			desc: "Runs newest first, with input, per-action results, attempts and errors.", scope: admin,
			params: paged(automationIDParam, runStatus), status: 200, result: listRef("AutomationRun"), resultDesc: "A page of runs."},
		{method: "POST", path: "/v1/automations/{id}/runs/{runId}/retry", id: "retryAutomationRun", serve: h.autos.retry, tag: "automations", summary: "Retry a failed run",
			desc: "Queues a failed or skipped run again; 409 for a run that succeeded or is queued.", scope: admin,
			params: []m{automationIDParam, pathParam("runId", "The run's id.", uuidS())},
			status: 200, result: envelopeRef("AutomationRun"), resultDesc: "The run, queued.", errs: []int{http.StatusConflict}},
	}
}

// serveCatalog answers GET /v1/webhooks/catalog.
func serveCatalog(w http.ResponseWriter, r *http.Request) error {
	catalog(w, r)
	return nil
}

// authOperations are people signing in (PRODUCT 9.2): the session cookie
// the console uses, beside the API keys integrators send.
func authOperations(h authHandlers, sso oidcHandlers) []operation {
	session := sRef("Session")
	notConfigured := []int{http.StatusNotFound}
	return []operation{
		{method: "POST", path: "/auth/sign-in", id: "signIn", serve: h.signIn, tag: "sign-in", summary: "Sign in",
			desc: "Signs a person in with email and password. Sets the svc_session cookie (HttpOnly, SameSite=Lax, Secure, Path=/), " +
				"a new token at every sign-in, and answers the session with its CSRF token. A wrong email and a wrong password get the " +
				"same 401, \"email or password is wrong\". After 5 failures for one email within 15 minutes that email is refused for " +
				"15 minutes (429 with Retry-After); each client address may try 20 times a minute. A request from another origin is 403.",
			auth: authPublic, body: sRef("SignIn"), status: 200, result: session, resultDesc: "Signed in; the cookie is set.",
			errs: []int{http.StatusUnauthorized, http.StatusForbidden}},
		{method: "GET", path: "/auth/session", id: "getSession", serve: h.session, tag: "sign-in", summary: "The session",
			desc: "Who is signed in, the session's CSRF token and when it ends if unused; 401 when the cookie names no live session.",
			auth: authSession, status: 200, result: session, resultDesc: "The live session."},
		{method: "POST", path: "/auth/sign-out", id: "signOut", serve: h.signOut, tag: "sign-in", summary: "Sign out",
			desc: "Ends the session on every replica, its open websockets included, and clears the cookie. Needs the session's " +
				"X-CSRF-Token; without a live session it only clears the cookie.",
			auth: authSession, status: 204, resultDesc: "Signed out."},
		{method: "GET", path: "/auth/oidc/start", id: "startSingleSignOn", serve: sso.start, tag: "sign-in", summary: "Sign in with single sign-on",
			desc: "Where the console's \"Sign in with SSO\" goes: redirects the browser to the OpenID provider (SVC_OIDC_ISSUER) with the " +
				"authorization code flow, PKCE (S256), a random state and a random nonce, scopes openid and email. The flow is kept on " +
				"the server for 10 minutes, finished once, and bound to this browser by the svc_oidc cookie (HttpOnly, SameSite=Lax, " +
				"Path=/auth/oidc) holding the state. 404 when single sign-on is not configured; when the provider cannot be reached, " +
				"redirects to the console's sign-in page with the error.",
			auth: authPublic, status: 302, resultDesc: "To the provider.",
			location: "The provider's authorization endpoint with the flow's parameters, or /console/#/sign-in?error=<why> when the provider cannot be reached.",
			errs:     notConfigured},
		{method: "GET", path: "/auth/oidc/callback", id: "finishSingleSignOn", serve: sso.callback, tag: "sign-in", summary: "Finish single sign-on",
			desc: "The redirect URL to register with the provider: <SVC_PUBLIC_URL>/auth/oidc/callback. The state must equal the svc_oidc " +
				"cookie's and name a flow in progress, which it finishes (a replay is refused); the code is exchanged with the flow's " +
				"PKCE verifier; the ID token must be signed by the provider, issued to this client, unexpired, carry the flow's nonce and " +
				"email_verified true. The person invited with that email (not deactivated) is signed in: the svc_session cookie is set " +
				"as by POST /auth/sign-in, and the browser goes to the console. Any refusal redirects to the console's sign-in page " +
				"with the reason in error, never an error status; the parameters the provider adds besides these are ignored. " +
				"404 when single sign-on is not configured.",
			auth: authPublic, openQuery: true, status: 302, resultDesc: "Signed in, or refused.",
			params: []m{
				docQuery("code", "The authorization code the provider issued.", str()),
				docQuery("state", "The flow's state, as the provider received it.", str()),
				docQuery("error", "The provider's error code, when it refused (access_denied).", str()),
				docQuery("error_description", "The provider's reason, when it refused.", str()),
			},
			location: "/console/ signed in (the svc_session cookie is set), or /console/#/sign-in?error=<why> refused.",
			errs:     notConfigured},
	}
}
