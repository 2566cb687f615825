// Package autodef defines the parts of an automation as its JSON columns
// store them (conditions and ordered actions), checks them when an
// automation is saved, and evaluates conditions against a run's input. The
// runner that applies actions lives in webhooks/autorun.
//
// A leaf: it imports only internal/apperr and internal/bounds.
package autodef

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/theory/jsonpath"

	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/bounds"
)

// Action types, applied in order. The lead actions work on the run's lead;
// the lending actions (PRODUCT 1.9) read a lender's decision, funding or
// commission payment from the run's input and find the application or deal
// it names.
const (
	CreateLead              = "create_lead"
	UpdateLead              = "update_lead"
	AddTags                 = "add_tags"
	MoveStage               = "move_stage"
	AssignAdvisor           = "assign_advisor"
	MarkDoNotCall           = "mark_do_not_call"
	DecideApplication       = "decide_application"
	FundDeal                = "fund_deal"
	RecordCommissionPayment = "record_commission_payment"
	maxActions              = 10
	maxConditions           = 20
	maxRequired             = 50
	externalPrefix          = "externalIds."
)

// ActionTypes lists every action type, in the order the docs present them.
var ActionTypes = []string{CreateLead, UpdateLead, AddTags, MoveStage, AssignAdvisor, MarkDoNotCall,
	DecideApplication, FundDeal, RecordCommissionPayment}

// ActionTypeDocs says what each action type does and, for the lending
// actions, which input fields it reads (the names the endpoint's mapping
// targets).
var ActionTypeDocs = map[string]string{
	CreateLead:    "Creates a lead from the mapped fields, as POST /v1/leads does.",
	UpdateLead:    "Finds a lead by matchBy and applies the mapped lead fields to it, as PATCH /v1/leads/{id} does.",
	AddTags:       "Adds tags to the run's lead.",
	MoveStage:     "Moves the run's lead to stageId.",
	AssignAdvisor: "Assigns the run's lead to advisorId, or round-robin over teamId's advisors.",
	MarkDoNotCall: "Marks the run's lead do-not-call.",
	DecideApplication: "Records a lender's decision (decideApplication) on the application the input names by applicationId, " +
		"or by lenderId and externalRef; reads decision (approved or declined, any case), approvedAmount, interestRate, " +
		"rateType, termMonths, paymentFrequency, conditions, reason and declineCategory.",
	FundDeal: "Funds the approved application the input names by applicationId, or by lenderId and externalRef (fundDeal); " +
		"reads fundedAmount, fundedAt and commission.",
	RecordCommissionPayment: "Records a commission payment (recordCommissionPayment) on the deal the input names by dealId, " +
		"or by its application's applicationId, or lenderId and externalRef; reads amount, paidAt and reference.",
}

// Action is one step of an automation. Which fields apply depends on Type.
type Action struct {
	Type string `json:"type" enum:"AutomationActionType"`
	// update_lead: the lead attribute to match on — "id", "email", "phone"
	// or "externalIds.<key>" — and the input field holding the value
	// (defaults: id → leadId, otherwise the attribute's own name).
	MatchBy    string `json:"matchBy,omitempty" description:"update_lead: id, email, phone or externalIds.<key>."`
	MatchField string `json:"matchField,omitempty" description:"update_lead: the input field holding the match value."`
	// add_tags.
	Tags []string `json:"tags,omitempty"`
	// move_stage.
	StageID *uuid.UUID `json:"stageId,omitempty"`
	// assign_advisor: a named advisor, or round-robin over a team's advisors.
	AdvisorID *uuid.UUID `json:"advisorId,omitempty"`
	TeamID    *uuid.UUID `json:"teamId,omitempty" description:"assign_advisor: round-robin over this team's advisors."`
	// mark_do_not_call.
	Reason string `json:"reason,omitempty"`
}

// ValueField is the input field update_lead reads its match value from.
func (a Action) ValueField() string {
	switch {
	case a.MatchField != "":
		return a.MatchField
	case a.MatchBy == "id":
		return "leadId"
	}
	return a.MatchBy
}

// NeedsLead reports whether the action works on the run's current lead.
// The others find their own: create_lead and update_lead the lead they
// write, a lending action the lead of the application it works on; each
// makes that lead the run's for the actions after it.
func (a Action) NeedsLead() bool {
	switch a.Type {
	case AddTags, MoveStage, AssignAdvisor, MarkDoNotCall:
		return true
	}
	return false
}

// Condition ops.
const (
	OpEq       = "eq"
	OpNeq      = "neq"
	OpIn       = "in"
	OpContains = "contains"
	OpExists   = "exists"
	OpMissing  = "missing"
	OpGt       = "gt"
	OpGte      = "gte"
	OpLt       = "lt"
	OpLte      = "lte"
)

// Ops lists every condition operator.
var Ops = []string{OpEq, OpNeq, OpIn, OpContains, OpExists, OpMissing, OpGt, OpGte, OpLt, OpLte}

// Condition holds when the JSONPath Path, evaluated against the run's
// input (the mapped data, or the event's data), compares to Value by Op.
type Condition struct {
	Path  string `json:"path" description:"RFC 9535 JSONPath into the run's input, e.g. $.loan.amount."`
	Op    string `json:"op" enum:"ConditionOperator"`
	Value any    `json:"value,omitempty" nullable:"true" description:"The operand; a list for in."`
}

// Definition is everything about an automation that is checked together.
type Definition struct {
	// LeadEvent: an event trigger whose data names a lead (leadId), so lead
	// actions may come first.
	LeadEvent  bool
	Conditions []Condition
	Actions    []Action
	Required   []string
}

// Check validates a definition; errors name the field in API spelling,
// e.g. "actions[1].stageId".
func (d Definition) Check() error {
	if n := len(d.Actions); n < 1 || n > maxActions {
		return apperr.Invalid("actions", "between 1 and %d actions are required", maxActions)
	}
	hasLead := d.LeadEvent
	for i, a := range d.Actions {
		if err := a.check(fmt.Sprintf("actions[%d]", i), hasLead); err != nil {
			return err
		}
		hasLead = hasLead || !a.NeedsLead()
	}
	if len(d.Conditions) > maxConditions {
		return apperr.Invalid("conditions", "at most %d conditions are allowed", maxConditions)
	}
	for i, c := range d.Conditions {
		if err := c.check(fmt.Sprintf("conditions[%d]", i)); err != nil {
			return err
		}
	}
	if len(d.Required) > maxRequired {
		return apperr.Invalid("requiredFields", "at most %d fields are allowed", maxRequired)
	}
	for _, f := range d.Required {
		if n := utf8.RuneCountInString(f); n < 1 || n > 100 {
			return apperr.Invalid("requiredFields", "field names must be 1 to 100 characters")
		}
	}
	return nil
}

func (a Action) check(at string, hasLead bool) error {
	if !slices.Contains(ActionTypes, a.Type) {
		return apperr.Invalid(at+".type", "must be one of %s", strings.Join(ActionTypes, ", "))
	}
	if a.NeedsLead() && !hasLead {
		return apperr.Invalid(at+".type", "%s needs a lead: put create_lead, update_lead or a lending action before it, or trigger on a lead event", a.Type)
	}
	switch a.Type {
	case UpdateLead:
		key, isExternal := strings.CutPrefix(a.MatchBy, externalPrefix)
		if !slices.Contains([]string{"id", "email", "phone"}, a.MatchBy) && (!isExternal || key == "") {
			return apperr.Invalid(at+".matchBy", `must be "id", "email", "phone" or "externalIds.<key>"`)
		}
	case AddTags:
		if n := len(a.Tags); n == 0 || n > bounds.MaxTags {
			return apperr.Invalid(at+".tags", "between 1 and %d tags are required", bounds.MaxTags)
		}
		for _, t := range a.Tags {
			if n := utf8.RuneCountInString(t); n < 1 || n > bounds.MaxTagLen {
				return apperr.Invalid(at+".tags", "each tag must be 1 to %d characters", bounds.MaxTagLen)
			}
		}
	case MoveStage:
		if a.StageID == nil {
			return apperr.Invalid(at+".stageId", "is required")
		}
	case AssignAdvisor:
		if (a.AdvisorID == nil) == (a.TeamID == nil) {
			return apperr.Invalid(at+".advisorId", "give either advisorId or teamId (round-robin over the team)")
		}
	case MarkDoNotCall:
		if utf8.RuneCountInString(a.Reason) > 500 {
			return apperr.Invalid(at+".reason", "must be at most 500 characters")
		}
	}
	return nil
}

func (c Condition) check(at string) error {
	if err := bounds.Text(at+".path", c.Path, bounds.MaxJSONPath); err != nil {
		return err
	}
	if err := bounds.ConditionValue.CheckValue(at+".value", c.Value); err != nil {
		return err
	}
	if _, err := jsonpath.Parse(c.Path); err != nil {
		return apperr.Invalid(at+".path", "is not a valid JSONPath expression: %s", err)
	}
	if !slices.Contains(Ops, c.Op) {
		return apperr.Invalid(at+".op", "must be one of %s", strings.Join(Ops, ", "))
	}
	switch c.Op {
	case OpIn:
		if _, ok := c.Value.([]any); !ok {
			return apperr.Invalid(at+".value", "must be an array for in")
		}
	case OpGt, OpGte, OpLt, OpLte:
		if _, ok := number(c.Value); !ok {
			return apperr.Invalid(at+".value", "must be a number for %s", c.Op)
		}
	}
	return nil
}

// IsExternalID reports whether a matchBy or mapping target names an
// externalIds key, and which.
func IsExternalID(name string) (string, bool) {
	key, ok := strings.CutPrefix(name, externalPrefix)
	return key, ok && key != ""
}
