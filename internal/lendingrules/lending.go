// Package lendingrules holds the rules of the lending half that are pure
// decisions: which application moves are allowed, which stage slot a lead
// moves to, what a lender's box says of a submission, and a deal's terms
// (its payback, its commission, the commission's status as payments come).
// The lending flows (package lending) and the application hooks apply them
// inside the write's transaction, so every surface (GraphQL, REST,
// automations) gets the same answer, and the seeder writes its book by the
// same functions.
//
// A leaf: it imports only internal/money and internal/apperr.
package lendingrules

import (
	"slices"

	"github.com/lendingpipe/svc/internal/apperr"
)

// Application statuses.
const (
	Submitted    = "submitted"
	Underwriting = "underwriting"
	Approved     = "approved"
	Declined     = "declined"
	Withdrawn    = "withdrawn"
	Funded       = "funded"
)

// FundedElsewhere is the reason the system gives when it withdraws a lead's
// other open applications as one of them is funded; a caller may not give it.
const FundedElsewhere = "funded_elsewhere"

// Open are the statuses of an application still in play: a lead has at most
// one open application per lender.
var Open = []string{Submitted, Underwriting, Approved}

// from lists, for each status an application can move to, the statuses it
// may move from (PRODUCT 1.3). Submitted has none: only a new application
// is submitted.
var from = map[string][]string{
	Underwriting: {Submitted},
	Approved:     {Submitted, Underwriting},
	Declined:     {Submitted, Underwriting},
	Withdrawn:    {Submitted, Underwriting, Approved},
	Funded:       {Approved},
}

// From returns the statuses an application may move to status from.
func From(status string) []string { return slices.Clone(from[status]) }

// Allowed reports whether an application may move from one status to another.
func Allowed(fromStatus, to string) bool { return slices.Contains(from[to], fromStatus) }

// Conflict is the error of a refused move: CONFLICT with the field, the
// status the application is in and the one asked for, as both surfaces
// render it (GraphQL extensions, the REST error's detail).
func Conflict(fromStatus, to string) *apperr.Error {
	return &apperr.Error{
		Code:    apperr.Conflict,
		Message: "the application cannot move from " + fromStatus + " to " + to,
		Field:   "status",
		Detail:  map[string]any{"from": fromStatus, "to": to},
	}
}

// The stage slots the lending flows move a lead to.
const (
	SlotApplication = "application"
	SlotApproved    = "approved"
	SlotWon         = "won"
)

// slotOrder is the order of the stage slots a lead moves through on its way
// to funding (PRODUCT 1.3); lost and stages without a slot are outside it.
var slotOrder = []string{"new", "working", "qualified", SlotApplication, SlotApproved, SlotWon}

// Advances reports whether a lead in slot current moves forward to slot
// target: only from an earlier slot of the order, never out of lost, never
// backwards.
func Advances(current, target string) bool {
	i, j := slices.Index(slotOrder, current), slices.Index(slotOrder, target)
	return i >= 0 && j >= 0 && i < j
}

// ReadyToFund says whether an application may fund as it stands: approved,
// with no stipulation outstanding (PRODUCT 11.3). Every surface reads it
// from here.
func ReadyToFund(status string, stipulationsOutstanding int) bool {
	return status == Approved && stipulationsOutstanding == 0
}

// WaivedByFunding is the reason a funding gives the stipulations it waives
// (fundDeal with waiveOutstanding, or the inbound fund_deal action).
const WaivedByFunding = "funded"
