// Package enum lists the values of every enumerated attribute. The ent
// schemas declare their fields from these lists and the OpenAPI document
// publishes them, so the two cannot disagree; the *Docs maps say what each
// value means, and the GraphQL schema shows them as the values'
// descriptions. It is a leaf: it imports nothing.
package enum

// Lead sources and priorities (SPEC 4.1).
var (
	LeadSources    = []string{"manual", "csv_import", "api", "web_form", "referral", "dialer"}
	LeadPriorities = []string{"low", "normal", "high", "urgent"}

	LeadSourceDocs = map[string]string{
		"manual":     "Entered by a person in the dashboard (the default).",
		"csv_import": "Loaded from a CSV import.",
		"api":        "Created through the API by an integration, or by an automation's create_lead.",
		"web_form":   "Submitted through a web form.",
		"referral":   "Referred by a partner or a customer.",
		"dialer":     "Created by the power dialer.",
	}
	LeadPriorityDocs = map[string]string{
		"low":    "Work when time allows.",
		"normal": "The default.",
		"high":   "Work before normal leads.",
		"urgent": "Work first.",
	}
)

// Call event types and directions (SPEC 4.2).
var (
	CallEventTypes = []string{"call_started", "call_answered", "call_ended", "disposition", "transfer", "hold", "resume"}
	CallDirections = []string{"inbound", "outbound"}

	CallEventTypeDocs = map[string]string{
		"call_started":  "The call was placed or began ringing.",
		"call_answered": "The other side answered.",
		"call_ended":    "The call ended; durationSeconds gives its length when the dialer reports it.",
		"disposition":   "The agent recorded the call's outcome (disposition, notes).",
		"transfer":      "The call was transferred.",
		"hold":          "The call was put on hold.",
		"resume":        "The call came back from hold.",
	}
	CallDirectionDocs = map[string]string{
		"inbound":  "The lead called in.",
		"outbound": "The agent called out.",
	}
)

// SemanticSlots are the meanings a pipeline stage can carry.
var SemanticSlots = []string{"new", "working", "qualified", "application", "approved", "won", "lost"}

// SemanticSlotDocs says what a stage in each slot means.
var SemanticSlotDocs = map[string]string{
	"new":         "Not worked yet.",
	"working":     "Being worked: contacted, not yet qualified.",
	"qualified":   "Qualified for financing.",
	"application": "An application is with a lender.",
	"approved":    "A lender approved the application.",
	"won":         "Funded.",
	"lost":        "Will not fund.",
}

// PresenceStatuses are an agent's dialer states (SPEC 3.2).
var PresenceStatuses = []string{"online", "on_call", "break", "offline"}

// PresenceStatusDocs says what each presence status means.
var PresenceStatusDocs = map[string]string{
	"online":  "Available for calls.",
	"on_call": "On a call: the current call's id, lead and start time are set.",
	"break":   "On a break.",
	"offline": "Not working; also the status of an agent who never reported one.",
}

// UserRoles are what a user of an organization does, with what each means.
var (
	UserRoles    = []string{"advisor", "agent", "admin"}
	UserRoleDocs = map[string]string{
		"advisor": "Owns and works leads (the default).",
		"agent":   "Makes calls from the dialer; listed on the agents board.",
		"admin":   "Manages the organization.",
	}
)

// States of a webhook delivery, an automation run and an inbound request.
var (
	DeliveryStatuses       = []string{"pending", "succeeded", "dead"}
	RunStatuses            = []string{"queued", "succeeded", "skipped", "failed"}
	InboundRequestStatuses = []string{"received", "processed", "failed"}
)

// DecimalPattern is a non-negative decimal with up to 15 integer digits and
// 4 fraction digits: amounts kept as strings so no precision is lost.
const DecimalPattern = `^[0-9]{1,15}(\.[0-9]{1,4})?$`

// The lending half: lender products, application states and offers,
// commission states and payment kinds.
var (
	LenderProducts    = []string{"mca", "term_loan", "line_of_credit", "equipment", "sba", "invoice_factoring"}
	LenderProductDocs = map[string]string{
		"mca":               "Merchant cash advance: a purchase of future receivables, repaid at a factor rate.",
		"term_loan":         "A loan repaid in fixed instalments over a term.",
		"line_of_credit":    "A revolving credit line.",
		"equipment":         "Equipment financing, secured by the equipment.",
		"sba":               "A loan guaranteed by the U.S. Small Business Administration.",
		"invoice_factoring": "An advance against unpaid invoices.",
	}

	ApplicationStatuses   = []string{"submitted", "underwriting", "approved", "declined", "withdrawn", "funded"}
	ApplicationStatusDocs = map[string]string{
		"submitted":    "Sent to the lender; no answer yet.",
		"underwriting": "The lender is underwriting the file.",
		"approved":     "The lender approved it with an offer.",
		"declined":     "The lender declined it, with a reason.",
		"withdrawn":    "The broker withdrew it (funded_elsewhere when another application of the lead was funded).",
		"funded":       "The lender funded it: a funded deal exists.",
	}
	DeclineCategories   = []string{"credit", "revenue", "time_in_business", "industry", "existing_positions", "incomplete_file", "other"}
	DeclineCategoryDocs = map[string]string{
		"credit":             "The owner's or the business's credit.",
		"revenue":            "Revenue too low or too irregular.",
		"time_in_business":   "The business is too young.",
		"industry":           "The lender does not fund the industry.",
		"existing_positions": "Too many advances or loans already outstanding.",
		"incomplete_file":    "Documents or information are missing.",
		"other":              "Any other reason; see declineReason.",
	}
	RateTypes    = []string{"factor", "apr"}
	RateTypeDocs = map[string]string{
		"factor": "A factor rate (merchant cash advance): payback = amount × rate.",
		"apr":    "An annual percentage rate as a fraction: 0.189 is 18.9 %.",
	}
	PaymentFrequencies   = []string{"daily", "weekly", "monthly"}
	PaymentFrequencyDocs = map[string]string{
		"daily":   "A payment every business day.",
		"weekly":  "A payment every week.",
		"monthly": "A payment every month.",
	}

	CommissionStatuses   = []string{"pending", "partially_paid", "paid", "clawed_back"}
	CommissionStatusDocs = map[string]string{
		"pending":        "Nothing paid yet.",
		"partially_paid": "Part of the expected commission is paid.",
		"paid":           "The paid amount has reached the expected amount.",
		"clawed_back":    "The lender clawed back some or all of it (set once any clawback is recorded).",
	}
	PaymentKinds    = []string{"payment", "clawback"}
	PaymentKindDocs = map[string]string{
		"payment":  "The lender paid commission.",
		"clawback": "The lender took commission back, usually after an early default.",
	}
)

// Task statuses (PRODUCT 10.2).
var (
	TaskStatuses   = []string{"open", "done"}
	TaskStatusDocs = map[string]string{
		"open": "To be done (completeTask makes it done).",
		"done": "Completed (reopenTask makes it open again).",
	}
)

// A stipulation's statuses (PRODUCT 11).
var (
	StipulationStatuses   = []string{"outstanding", "received", "waived"}
	StipulationStatusDocs = map[string]string{
		"outstanding": "Still owed: the deal waits for it (satisfyStipulation makes it received, waiveStipulation waived).",
		"received":    "Satisfied by the documents it names (reopenStipulation makes it outstanding again).",
		"waived":      "Waived, with the reason given (reopenStipulation makes it outstanding again).",
	}
)

// The screens a saved view holds the filters of (PRODUCT 10.5).
var (
	SavedViewScreens    = []string{"BOARD", "APPLICATIONS", "TASKS", "RENEWALS"}
	SavedViewScreenDocs = map[string]string{
		"BOARD":        "The pipeline board: filters {where: LeadWhereInput, search}.",
		"APPLICATIONS": "The applications list: filters {leadId, lenderId, status}.",
		"TASKS":        "The tasks list: filters {assigneeId, status, leadId, dueBefore}.",
		"RENEWALS":     "The renewal queue: filters {advisorId, dueBefore}.",
	}
)
