package rest

import (
	"fmt"
	"slices"
	"strings"

	"entgo.io/ent/dialect"

	"github.com/lendingpipe/svc/internal/autodef"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/history"
	"github.com/lendingpipe/svc/internal/period"
)

// intervalDocs says where each series interval's buckets start.
var intervalDocs = map[string]string{
	period.Day:   "one bucket per day, from local midnight;",
	period.Week:  "one per ISO week, from Monday;",
	period.Month: "one per calendar month, from the 1st.",
}

// The document's enumerations are named components, and every property or
// parameter of one refers to it. Generators make a type of each inline enum
// named after where it appears, so one enum written inline under two names
// (eventType and its alias event_type) became two types with one name, and
// a client could not be generated; a named enum is one type everywhere.

// Names of the enumeration components.
const (
	enumLeadSource           = "LeadSource"
	enumLeadPriority         = "LeadPriority"
	enumSemanticSlot         = "SemanticSlot"
	enumCallEventType        = "CallEventType"
	enumCallDirection        = "CallDirection"
	enumPresenceStatus       = "PresenceStatus"
	enumUserRole             = "UserRole"
	enumDeliveryStatus       = "DeliveryStatus"
	enumAutomationRunStatus  = "AutomationRunStatus"
	enumInboundRequestStatus = "InboundRequestStatus"
	enumErrorCode            = "ErrorCode"
	enumSubscriptionEvent    = "SubscriptionEventType"
	enumConnectorEventType   = "ConnectorEventType"
	enumAutomationActionType = "AutomationActionType"
	enumConditionOperator    = "ConditionOperator"
	enumTriggerType          = "AutomationTriggerType"
	enumServiceStatus        = "ServiceStatus"
	enumDatabase             = "DatabaseDialect"
	enumLenderProduct        = "LenderProduct"
	enumApplicationStatus    = "ApplicationStatus"
	enumRateType             = "RateType"
	enumPaymentFrequency     = "PaymentFrequency"
	enumDeclineCategory      = "DeclineCategory"
	enumCommissionStatus     = "CommissionStatus"
	enumTaskStatus           = "TaskStatus"
	enumStipulationStatus    = "StipulationStatus"
	enumPaymentKind          = "PaymentKind"
	enumAnalyticsInterval    = "AnalyticsInterval"
	enumActivityKind         = "ActivityKind"
	enumActivityActorType    = "ActivityActorType"
	enumLenderMatchField     = "LenderMatchField"
	enumLenderMatchBasis     = "LenderMatchBasis"
)

// Enumerations that admit null somewhere. One that some properties admit
// null for and others do not has a second component, <name>OrNull; one that
// admits null wherever it appears admits it in its own component.
var (
	nullableEnums   = []string{enumLeadSource, enumLeadPriority, enumLenderProduct, enumRateType, enumDeclineCategory, enumErrorCode}
	alwaysNullEnums = []string{enumCallDirection, enumPaymentFrequency}
)

// enumSchemas are the enumeration components, each from the list the code
// keeps (and, where there is one, what each value means), with null where
// nullableEnums and alwaysNullEnums say.
func enumSchemas() m {
	out := baseEnumSchemas()
	for _, name := range nullableEnums {
		out[name+"OrNull"] = orNull(out[name].(m))
	}
	for _, name := range alwaysNullEnums {
		out[name] = orNull(out[name].(m))
	}
	return out
}

func baseEnumSchemas() m {
	return m{
		enumLeadSource:           documentedEnum("Where a lead came from.", enum.LeadSources, enum.LeadSourceDocs),
		enumLeadPriority:         documentedEnum("How soon a lead should be worked.", enum.LeadPriorities, enum.LeadPriorityDocs),
		enumSemanticSlot:         documentedEnum("What a stage means across pipelines.", enum.SemanticSlots, enum.SemanticSlotDocs),
		enumCallEventType:        documentedEnum("What happened to a call.", enum.CallEventTypes, enum.CallEventTypeDocs),
		enumCallDirection:        documentedEnum("Who called whom.", enum.CallDirections, enum.CallDirectionDocs),
		enumPresenceStatus:       documentedEnum("An agent's dialer status.", enum.PresenceStatuses, enum.PresenceStatusDocs),
		enumUserRole:             documentedEnum("What a user does in the organization.", enum.UserRoles, enum.UserRoleDocs),
		enumDeliveryStatus:       documentedEnum("A webhook delivery's state; dead is the dead-letter queue.", enum.DeliveryStatuses, nil),
		enumAutomationRunStatus:  documentedEnum("An automation run's state.", enum.RunStatuses, nil),
		enumInboundRequestStatus: documentedEnum("An inbound request's processing state.", enum.InboundRequestStatuses, nil),
		enumErrorCode:            documentedEnum("An error's machine-readable code.", errorCodes(), nil),
		enumSubscriptionEvent:    documentedEnum("An event type a subscription names, or \"*\" for all.", subscriptionEventNames(), nil),
		enumConnectorEventType:   documentedEnum("An event type the dialer connector receives.", connectorTypes, nil),
		enumAutomationActionType: documentedEnum("What an automation action does.", autodef.ActionTypes, autodef.ActionTypeDocs),
		enumConditionOperator:    documentedEnum("How an automation condition compares.", autodef.Ops, nil),
		enumTriggerType:          documentedEnum("What starts an automation: a request to an inbound endpoint, or an event.", triggerTypes, nil),
		enumServiceStatus:        documentedEnum("Whether the service can serve: unavailable while the database is unreachable.", []string{"ok", "unavailable"}, nil),
		enumDatabase:             documentedEnum("The database the service runs on.", []string{dialect.SQLite, dialect.Postgres}, nil),
		enumLenderProduct:        documentedEnum("A lending product.", enum.LenderProducts, enum.LenderProductDocs),
		enumApplicationStatus:    documentedEnum("Where an application stands; it moves only as the transition table allows.", enum.ApplicationStatuses, enum.ApplicationStatusDocs),
		enumRateType:             documentedEnum("How an offer's interestRate reads.", enum.RateTypes, enum.RateTypeDocs),
		enumPaymentFrequency:     documentedEnum("How often the merchant pays.", enum.PaymentFrequencies, enum.PaymentFrequencyDocs),
		enumDeclineCategory:      documentedEnum("The kind of reason a lender declined for.", enum.DeclineCategories, enum.DeclineCategoryDocs),
		enumCommissionStatus:     documentedEnum("Where a commission stands.", enum.CommissionStatuses, enum.CommissionStatusDocs),
		enumStipulationStatus: documentedEnum("Where a stipulation stands: outstanding -> received (satisfyStipulation) or waived (waiveStipulation), "+
			"and received or waived -> outstanding (reopenStipulation) only.", enum.StipulationStatuses, enum.StipulationStatusDocs),
		enumTaskStatus:        documentedEnum("Where a task stands: open -> done (completeTask) and done -> open (reopenTask) only.", enum.TaskStatuses, enum.TaskStatusDocs),
		enumPaymentKind:       documentedEnum("A commission payment or a clawback.", enum.PaymentKinds, enum.PaymentKindDocs),
		enumAnalyticsInterval: documentedEnum("How a report's series are cut, in the report's time zone.", period.Intervals, intervalDocs),
		enumActivityKind:      documentedEnum("What happened, in a lead's history.", history.Kinds, nil),
		enumActivityActorType: documentedEnum("Who made a change in a lead's history.", history.ActorTypes, history.ActorTypeDocs),
		enumLenderMatchField:  documentedEnum("A criterion of a lender's box a lender match checks.", lenderMatchFields, nil),
		enumLenderMatchBasis: documentedEnum("Which applications a lender's record is of.", []string{"similar", "all", "none"}, map[string]string{
			"similar": "the lender's applications of the last 180 days in the lead's amount band and of leads of its industry, 5 or more of them.",
			"all":     "all the lender's applications of the last 180 days: fewer than 5 were similar.",
			"none":    "no application of the last 180 days: no score."}),
	}
}

// documentedEnum is a string enumeration whose description lists what each
// value means, when docs says.
func documentedEnum(desc string, values []string, docs map[string]string) m {
	var b strings.Builder
	b.WriteString(desc)
	for _, v := range values {
		if d := docs[v]; d != "" {
			fmt.Fprintf(&b, " %s: %s", v, d)
		}
	}
	return m{"type": "string", "enum": values, "description": b.String()}
}

// orNull is an enumeration that admits null as well. OpenAPI 3.0.3 lets
// nullable add null only beside the type it qualifies, and an enum lists
// null itself for null to be valid; nullable beside a reference (in allOf)
// adds nothing, and strict validators refuse null there.
func orNull(e m) m {
	values := []any{}
	for _, v := range e["enum"].([]string) {
		values = append(values, v)
	}
	return m{"type": "string", "nullable": true, "enum": append(values, nil),
		"description": e["description"].(string) + " Null: not given, or not known."}
}

// enumRef refers to an enumeration component, for a value that is never
// null.
func enumRef(name string) m {
	if slices.Contains(alwaysNullEnums, name) {
		panic("the enumeration " + name + " admits null; refer to it with nullEnumRef")
	}
	return sRef(name)
}

// nullEnumRef refers to an enumeration's component that admits null.
func nullEnumRef(name string) m {
	switch {
	case slices.Contains(alwaysNullEnums, name):
		return sRef(name)
	case slices.Contains(nullableEnums, name):
		return sRef(name + "OrNull")
	}
	panic("the enumeration " + name + " admits no null")
}
