// Package funnel defines the steps of the lending funnel as predicates, so
// the hooks that keep the analytics rollups, their rebuild and the reports
// read the records by the same rule.
package funnel

import (
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/predicate"
)

// WasApproved holds for an application a lender approved: it is approved
// now, or was before it was funded or withdrawn (a declined application
// moves no further, and only a decision sets decidedAt).
var WasApproved predicate.Application = application.And(application.DecidedAtNotNil(),
	application.StatusIn(application.StatusApproved, application.StatusFunded, application.StatusWithdrawn))

// DeclineColumn is the lenders rollup's (LenderDay's) column counting the
// declines of category.
func DeclineColumn(category string) string { return "declined_" + category }
