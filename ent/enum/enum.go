// Package enum lists the values of every enumerated attribute. The ent
// schemas declare their fields from these lists and the OpenAPI document
// publishes them, so the two cannot disagree. It is a leaf: it imports
// nothing.
package enum

// Lead sources and priorities (SPEC 4.1).
var (
	LeadSources    = []string{"manual", "csv_import", "api", "web_form", "referral", "dialer"}
	LeadPriorities = []string{"low", "normal", "high", "urgent"}
)

// Call event types and directions (SPEC 4.2).
var (
	CallEventTypes = []string{"call_started", "call_answered", "call_ended", "disposition", "transfer", "hold", "resume"}
	CallDirections = []string{"inbound", "outbound"}
)

// SemanticSlots are the meanings a pipeline stage can carry.
var SemanticSlots = []string{"new", "working", "qualified", "application", "approved", "won", "lost"}

// PresenceStatuses are an agent's dialer states (SPEC 3.2).
var PresenceStatuses = []string{"online", "on_call", "break", "offline"}

// States of a webhook delivery, an automation run and an inbound request.
var (
	DeliveryStatuses       = []string{"pending", "succeeded", "dead"}
	RunStatuses            = []string{"queued", "succeeded", "skipped", "failed"}
	InboundRequestStatuses = []string{"received", "processed", "failed"}
)

// DecimalPattern is a non-negative decimal with up to 15 integer digits and
// 4 fraction digits: amounts kept as strings so no precision is lost.
const DecimalPattern = `^[0-9]{1,15}(\.[0-9]{1,4})?$`
