package schema

import (
	"entgo.io/contrib/entgql"

	"github.com/lendingpipe/svc/internal/money"
)

// Money fields are integers in the database (cents, rates in millionths),
// so SQL sums are exact, and decimal strings on both API surfaces:
//
//	field.Int64("x").GoType(money.Amount(0)).Annotations(amountType)
var (
	amountGo   = money.Amount(0)
	rateGo     = money.Rate(0)
	amountType = entgql.Type("Amount")
	rateType   = entgql.Type("Rate")
)
