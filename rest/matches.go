package rest

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/lending"
)

// lenderMatches answers GET /v1/leads/{id}/lender-matches: the
// organization's active lenders ranked for the lead, as GraphQL's
// lenderMatches (PRODUCT 13).
func (h lendingHandlers) lenderMatches(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	q := lending.MatchQuery{LeadID: id}
	if q.Product, err = typedEnumParam[application.Product](r, "product", enum.LenderProducts); err != nil {
		return err
	}
	if s := queryParam(r, "amount"); s != nil {
		a, err := money.ParseAmount(*s)
		if err != nil {
			return apperr.Invalid("amount", "%s", err)
		}
		q.Amount = &a
	}
	matches, err := h.resolver.LeadLenderMatches(r.Context(), q)
	if err != nil {
		return err
	}
	writeAll(w, r, matches, lenderMatchResource)
	return nil
}

// lenderMatchAttributes is one lender ranked for the lead; the resource's
// id is the lender's.
type lenderMatchAttributes struct {
	LenderID   uuid.UUID                 `json:"lenderId"`
	LenderName string                    `json:"lenderName"`
	Eligible   bool                      `json:"eligible" description:"Whether the lender's box takes the deal: no miss."`
	Misses     []lenderMatchMiss         `json:"misses" description:"The criteria of the lender's box the deal misses, in the order amount, monthlyRevenue, industry, product, monthsInBusiness, openApplication."`
	Unknown    []string                  `json:"unknown" enum:"LenderMatchField" description:"The fields the lender's box checks that the lead lacks: not misses."`
	Score      *money.Ratio              `json:"score" description:"0.5 × approvalRate + 0.3 × fundedShare + 0.2 × max(0, 1 - medianDaysToDecision / 30), from the exact values, half-even to 4 decimals; null when the basis is none."`
	Basis      string                    `json:"basis" enum:"LenderMatchBasis"`
	Components *lenderMatchComponentView `json:"components" description:"The score's parts; null when the basis is none."`
}

// lenderMatchMiss is one criterion of a lender's box the deal misses.
type lenderMatchMiss struct {
	Field   string `json:"field" enum:"LenderMatchField"`
	Message string `json:"message" description:"The miss in words."`
}

// lenderMatchComponentView is the parts of a lender's score.
type lenderMatchComponentView struct {
	ApprovalRate         money.Ratio `json:"approvalRate" description:"approved / (approved + declined), approved as in the lenders report; 0 when none is decided."`
	FundedShare          money.Ratio `json:"fundedShare" description:"funded / approved; 0 when none is approved."`
	MedianDaysToDecision *money.Days `json:"medianDaysToDecision" description:"The median of the days from submission to decision (whole seconds) over the decided ones, the mean of the two middle ones for an even count, half-even to 2 decimals; null when none is decided."`
	SampleSize           int         `json:"sampleSize" openapi:"count" description:"How many applications the record holds."`
}

func lenderMatchResource(mt *lending.Match) Resource {
	a := lenderMatchAttributes{LenderID: mt.LenderID, LenderName: mt.LenderName, Eligible: mt.Eligible,
		Misses: make([]lenderMatchMiss, 0, len(mt.Misses)), Unknown: mt.Unknown, Score: mt.Score, Basis: string(mt.Basis)}
	for _, x := range mt.Misses {
		a.Misses = append(a.Misses, lenderMatchMiss{Field: x.Field, Message: x.Message})
	}
	if c := mt.Components; c != nil {
		a.Components = &lenderMatchComponentView{ApprovalRate: c.ApprovalRate, FundedShare: c.FundedShare,
			MedianDaysToDecision: c.MedianDaysToDecision, SampleSize: c.SampleSize}
	}
	return Resource{ID: mt.LenderID.String(), Type: "lender_match", Attributes: a}
}

// lenderMatchFields are the fields a box check names.
var lenderMatchFields = []string{lendingrules.FieldAmount, lendingrules.FieldMonthlyRevenue, lendingrules.FieldIndustry,
	lendingrules.FieldProduct, lendingrules.FieldMonthsInBusiness, lendingrules.FieldOpenApplication}

// lenderMatchesExample is the demo lead's panel: one lender with a
// similar record, one whose box misses.
func lenderMatchesExample() m {
	items := []m{
		{"id": exampleLenderID, "type": "lender_match", "attributes": m{"lenderId": exampleLenderID, "lenderName": "Summit Capital",
			"eligible": true, "misses": []m{}, "unknown": []string{}, "score": "0.6667", "basis": "similar",
			"components": m{"approvalRate": "0.6667", "fundedShare": "0.5000", "medianDaysToDecision": "2.50", "sampleSize": 7}}},
		{"id": "01a2015c-7d3e-7b41-9c1a-3f5e8d2b6d02", "type": "lender_match", "attributes": m{
			"lenderId": "01a2015c-7d3e-7b41-9c1a-3f5e8d2b6d02", "lenderName": "Harbor Lending", "eligible": false,
			"misses":  []m{{"field": "amount", "message": "requestedAmount 45000.00 is above the lender's maxAmount 40000.00"}},
			"unknown": []string{"monthsInBusiness"}, "score": nil, "basis": "none", "components": nil}},
	}
	return m{"data": items, "meta": m{"total": len(items), "requestId": exampleRequestID}}
}
