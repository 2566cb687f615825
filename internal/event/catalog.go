// Package event is the catalog of event types (SPEC 6.2): their names, what
// each means and the JSON Schema of its payload. It is a leaf: the schema
// hooks that emit events, the worker that delivers them and both API surfaces
// read it, and it imports nothing of this service but internal/apitime.
package event

import (
	"slices"

	"github.com/lendingpipe/svc/internal/apitime"
)

// Event types (SPEC 6.2).
const (
	LeadCreated          = "lead.created"
	LeadStatusChanged    = "lead.status_changed"
	LeadUpdated          = "lead.updated"
	LeadStageChanged     = "lead.stage_changed"
	LeadAssigned         = "lead.assigned"
	ApplicationSubmitted = "application.submitted"
	ApplicationApproved  = "application.approved"
	ApplicationDeclined  = "application.declined"
	ApplicationReady     = "application.ready_to_fund"
	DealFunded           = "deal.funded"
	DealCommissionPaid   = "deal.commission_paid"
	DealRenewalEligible  = "deal.renewal_eligible"
	ContactCreated       = "contact.created"
	ContactUpdated       = "contact.updated"
	DocumentUploaded     = "document.uploaded"
	AppInstalled         = "app.installed"
	AppUninstalled       = "app.uninstalled"
	AppWebhookPaused     = "app.webhook_paused"
	All                  = "*" // a subscription to every event
)

// Type is one entry of the catalog.
type Type struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Emitted     bool           `json:"emitted"` // false: reserved for features this service does not have yet
	Schema      map[string]any `json:"schema" openapi:"object" description:"JSON Schema of the delivery's data."`
}

func object(required []string, props map[string]any) map[string]any {
	return map[string]any{"type": "object", "required": required, "properties": props, "additionalProperties": false}
}

func prop(kind string) map[string]any {
	switch kind {
	case "uuid":
		return map[string]any{"type": "string", "format": "uuid"}
	case "uuid?":
		return map[string]any{"type": []string{"string", "null"}, "format": "uuid"}
	case "string?":
		return map[string]any{"type": []string{"string", "null"}}
	case "decimal":
		return map[string]any{"type": "string", "pattern": `^[0-9]+(\.[0-9]+)?$`}
	case "amount":
		return map[string]any{"type": "string", "pattern": `^-?[0-9]+\.[0-9]{2}$`, "example": "25000.00"}
	case "rate":
		return map[string]any{"type": "string", "pattern": `^[0-9]+(\.[0-9]{1,6})?$`, "example": "1.35"}
	case "int":
		return map[string]any{"type": "integer"}
	case "time":
		return map[string]any{"type": "string", "format": "date-time", "example": apitime.Example}
	case "strings":
		return map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
	}
	return map[string]any{"type": "string"}
}

func schemaOf(fields ...string) map[string]any {
	props := map[string]any{}
	var required []string
	for i := 0; i+1 < len(fields); i += 2 {
		props[fields[i]] = prop(fields[i+1])
		required = append(required, fields[i])
	}
	return object(required, props)
}

var (
	statusChanged = schemaOf("leadId", "uuid", "orgId", "uuid", "previousStageId", "uuid?", "previousStageLabel", "string?",
		"newStageId", "uuid", "newStageLabel", "string", "changedBy", "string?")
	contactPayload = schemaOf("contactId", "uuid", "orgId", "uuid", "firstName", "string?", "lastName", "string?", "email", "string?", "phone", "string?")
)

// Catalog lists every event type of SPEC 6.2 with its payload. Payloads
// the spec leaves open are this service's choice (docs/api.md).
var Catalog = []Type{
	{LeadCreated, "A lead was created by any channel (UI, API, web form, CSV import, dialer).", true,
		schemaOf("leadId", "uuid", "orgId", "uuid", "businessName", "string?", "contactFirstName", "string?", "contactLastName", "string?",
			"email", "string?", "source", "string", "priority", "string", "stageId", "uuid", "advisorId", "uuid?")},
	{LeadStatusChanged, "A lead moved to another pipeline stage.", true, statusChanged},
	{LeadUpdated, "Lead details changed (not its stage or advisor, which have their own events).", true,
		schemaOf("leadId", "uuid", "orgId", "uuid", "changedFields", "strings", "updatedBy", "string?")},
	{LeadStageChanged, "A lead moved to another pipeline stage; sent with lead.status_changed, same payload.", true, statusChanged},
	{LeadAssigned, "A lead was assigned to an advisor.", true,
		schemaOf("leadId", "uuid", "orgId", "uuid", "advisorId", "uuid?", "previousAdvisorId", "uuid?", "assignedBy", "string?")},
	{ApplicationSubmitted, "An application was sent to a lender (submitApplication).", true,
		schemaOf("applicationId", "uuid", "orgId", "uuid", "lenderId", "uuid", "lenderName", "string", "requestedAmount", "amount", "submittedBy", "string")},
	{ApplicationApproved, "A lender approved an application (decideApplication with APPROVED).", true,
		schemaOf("applicationId", "uuid", "orgId", "uuid", "lenderId", "uuid", "approvedAmount", "amount", "interestRate", "rate", "termMonths", "int")},
	{ApplicationDeclined, "A lender declined an application (decideApplication with DECLINED).", true,
		schemaOf("applicationId", "uuid", "orgId", "uuid", "lenderId", "uuid", "reason", "string")},
	{ApplicationReady, "An approved application has no stipulation outstanding: at approval when it has no conditions, " +
		"and each time its last outstanding stipulation is received or waived.", true,
		schemaOf("applicationId", "uuid", "orgId", "uuid", "leadId", "uuid", "lenderId", "uuid", "readyAt", "time")},
	{DealFunded, "An approved application was funded (fundDeal).", true,
		schemaOf("dealId", "uuid", "orgId", "uuid", "applicationId", "uuid", "lenderId", "uuid", "fundedAmount", "amount", "commission", "amount", "advisorId", "uuid?")},
	{DealCommissionPaid, "A commission payment was recorded for a deal (recordCommissionPayment); clawbacks send no event.", true,
		schemaOf("commissionId", "uuid", "dealId", "uuid", "orgId", "uuid", "lenderId", "uuid", "advisorId", "uuid?", "amount", "amount",
			"paidAt", "time", "paidAmount", "amount", "expectedAmount", "amount", "status", "string")},
	{DealRenewalEligible, "A funded deal became eligible for renewal (renewalEligibleAt passed): sent once per deal, within " +
		"SVC_RENEWAL_SWEEP of that time, whether or not its lead has moved on since.", true,
		schemaOf("dealId", "uuid", "orgId", "uuid", "leadId", "uuid", "lenderId", "uuid", "advisorId", "uuid?", "renewalEligibleAt", "time")},
	{ContactCreated, "A contact was created.", true, contactPayload},
	{ContactUpdated, "A contact was changed.", true, contactPayload},
	{DocumentUploaded, "A document was uploaded to a record (uploadDocument). fileName repeats filename, as this catalog first named it.", true,
		schemaOf("documentId", "uuid", "orgId", "uuid", "recordType", "string", "recordId", "uuid", "filename", "string", "fileName", "string",
			"contentType", "string", "size", "int", "sha256", "string", "category", "string", "uploadedBy", "string")},
	{AppInstalled, "An app was installed by the organization (installApp); scopes are the ones granted.", true,
		schemaOf("appId", "uuid", "orgId", "uuid", "installationId", "uuid", "appName", "string", "scopes", "strings", "installedBy", "string")},
	{AppUninstalled, "An app was removed by the organization (uninstallApp): its tokens are revoked, and its subscriptions deleted " +
		"once this event and their other pending deliveries are sent or dead-lettered.", true,
		schemaOf("appId", "uuid", "orgId", "uuid", "installationId", "uuid", "appName", "string", "uninstalledBy", "string")},
	{AppWebhookPaused, "A subscription was paused automatically after consecutive delivery failures; sent to the organization's other " +
		"active endpoints, or, for a subscription an app created, to the same app installation's other active endpoints.", true,
		schemaOf("subscriptionId", "string", "orgId", "uuid", "url", "string", "reason", "string", "consecutiveFailures", "int", "pausedAt", "time")},
}

// Known reports whether name is in the catalog.
func Known(name string) bool {
	return slices.ContainsFunc(Catalog, func(e Type) bool { return e.Name == name })
}

// Wants reports whether a subscription to events receives eventType.
func Wants(events []string, eventType string) bool {
	return slices.Contains(events, All) || slices.Contains(events, eventType)
}
