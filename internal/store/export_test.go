package store

import (
	"time"

	"github.com/google/uuid"
)

// LeadReadColumns are the columns ReadLead reads, for the test holding
// them to the schema's.
func LeadReadColumns() []string { return leadReadColumns }

// MatchStatements are the lender matches' statements, for the test of
// their plans: the counts, and the middle decisions of the lenders
// decided says have decided ones.
func MatchStatements(org uuid.UUID, since time.Time, band int, industry string, decided map[uuid.UUID]int) (counts string, countArgs []any, middle string, middleArgs []any) {
	counts, countArgs = matchCounts(org, since, band, industry)
	middle, middleArgs = matchMiddle(org, since, band, industry, decided)
	return counts, countArgs, middle, middleArgs
}
