// Package history names what a lead's stored history (its activity)
// holds: the kinds of entry, the kinds of actor, and one change of an
// attribute. The schema stores these, the activity package writes and
// reads them, and the API surfaces render them.
//
// It is a leaf: it imports nothing of the service.
package history

// The kinds of activity entry (PRODUCT 10.3).
const (
	LeadCreated          = "lead.created"
	LeadUpdated          = "lead.updated"
	LeadStageChanged     = "lead.stage_changed"
	Call                 = "call"
	NoteAdded            = "note.added"
	TaskCreated          = "task.created"
	TaskCompleted        = "task.completed"
	DocumentUploaded     = "document.uploaded"
	ApplicationSubmitted = "application.submitted"
	ApplicationApproved  = "application.approved"
	ApplicationDeclined  = "application.declined"
	ApplicationWithdrawn = "application.withdrawn"
	DealFunded           = "deal.funded"
	CommissionPaid       = "commission.paid"
	CommissionClawedBack = "commission.clawed_back"
	StipulationReceived  = "stipulation.received"
	StipulationWaived    = "stipulation.waived"
	StipulationReopened  = "stipulation.reopened"
)

// Kinds lists every kind, in the order PRODUCT names them.
var Kinds = []string{LeadCreated, LeadUpdated, LeadStageChanged, Call, NoteAdded, TaskCreated,
	TaskCompleted, DocumentUploaded, ApplicationSubmitted, ApplicationApproved, ApplicationDeclined,
	ApplicationWithdrawn, DealFunded, CommissionPaid, CommissionClawedBack, StipulationReceived,
	StipulationWaived, StipulationReopened}

// The kinds of actor: who made a change.
const (
	ActorUser      = "user"
	ActorAPIKey    = "api_key"
	ActorApp       = "app"
	ActorConnector = "connector"
	ActorSystem    = "system"
)

// ActorTypes lists every kind of actor.
var ActorTypes = []string{ActorUser, ActorAPIKey, ActorApp, ActorConnector, ActorSystem}

// ActorTypeDocs says what each kind of actor is, for the API's documents.
var ActorTypeDocs = map[string]string{
	ActorUser:      "a person, signed in or through an API key bound to them; id is the user's.",
	ActorAPIKey:    "an API key bound to no one; id is the key's.",
	ActorApp:       "an installed app's token; id is the installation's, name the app's.",
	ActorConnector: "the dialer's connector; id is null.",
	ActorSystem:    "the service itself (id null), or an automation (id automation:<id>, name the automation's).",
}

// Change is one attribute an entry changed: its API name and its values
// before and after, as the API renders them (null when unset).
type Change struct {
	Field string `json:"field"`
	From  any    `json:"from"`
	To    any    `json:"to"`
}
