package rest

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/lending"
)

// offers answers GET /v1/leads/{id}/offers: the lead's approved offers
// side by side, cheapest first, as GraphQL's Lead.offers (PRODUCT 12.1).
func (h lendingHandlers) offers(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	offers, err := h.resolver.LeadOffers(r.Context(), id)
	if err != nil {
		return err
	}
	writeAll(w, r, offers, offerResource)
	return nil
}

// offerAttributes is one approved offer and what it costs the merchant.
type offerAttributes struct {
	ApplicationID    uuid.UUID     `json:"applicationId" description:"The approved application: the resource's id too."`
	LenderID         uuid.UUID     `json:"lenderId"`
	LenderName       string        `json:"lenderName" description:"The lender's name at submission."`
	ApprovedAmount   money.Amount  `json:"approvedAmount"`
	RateType         string        `json:"rateType" enum:"RateType"`
	InterestRate     money.Rate    `json:"interestRate" description:"The offer's rate, read as rateType says: a factor (\"1.35\") or an APR as a fraction (\"0.189\")."`
	TermMonths       int           `json:"termMonths" minimum:"1" maximum:"600"`
	PaymentFrequency *string       `json:"paymentFrequency" enum:"PaymentFrequency"`
	PaybackAmount    money.Amount  `json:"paybackAmount" description:"approvedAmount × interestRate for a factor; for an APR approvedAmount + approvedAmount × interestRate × termMonths / 12, a simple-interest estimate. Half-even to the cent."`
	Payments         *int          `json:"payments" minimum:"1" description:"termMonths when monthly, ceil(termMonths × 52 / 12) when weekly, termMonths × 21 business days when daily; null without a paymentFrequency."`
	PaymentAmount    *money.Amount `json:"paymentAmount" description:"paybackAmount / payments, half-even to the cent; null without a paymentFrequency."`
	CostOfCapital    money.Amount  `json:"costOfCapital" description:"paybackAmount - approvedAmount: what the money costs."`
	ReadyToFund      bool          `json:"readyToFund" description:"Whether it may fund as it stands: approved, with no stipulation outstanding."`
}

func offerResource(o *lending.Offer) Resource {
	return Resource{ID: o.ApplicationID.String(), Type: "offer", Attributes: offerAttributes{
		ApplicationID: o.ApplicationID, LenderID: o.LenderID, LenderName: o.LenderName,
		ApprovedAmount: o.ApprovedAmount, RateType: o.RateType.String(), InterestRate: o.InterestRate,
		TermMonths: o.TermMonths, PaymentFrequency: enumPtr(o.PaymentFrequency),
		PaybackAmount: o.PaybackAmount, Payments: o.Payments, PaymentAmount: o.PaymentAmount,
		CostOfCapital: o.CostOfCapital, ReadyToFund: o.ReadyToFund,
	}}
}

// offersExample is the demo lead's two approved offers, cheapest first.
func offersExample() m {
	offer := func(id, lenderID, lender string, attrs m) m {
		attrs["applicationId"], attrs["lenderId"], attrs["lenderName"] = id, lenderID, lender
		return m{"id": id, "type": "offer", "attributes": attrs}
	}
	items := []m{
		offer(exampleApplicationID, exampleLenderID, "Summit Capital", m{"approvedAmount": "45000.00", "rateType": "factor",
			"interestRate": "1.35", "termMonths": 9, "paymentFrequency": "daily", "paybackAmount": "60750.00",
			"payments": 189, "paymentAmount": "321.43", "costOfCapital": "15750.00", "readyToFund": true}),
		offer("01a2015c-7d3e-7b41-9c1a-3f5e8d2b6e02", "01a2015c-7d3e-7b41-9c1a-3f5e8d2b6d02", "Harbor Lending", m{"approvedAmount": "40000.00",
			"rateType": "apr", "interestRate": "0.289", "termMonths": 18, "paymentFrequency": "weekly", "paybackAmount": "57340.00",
			"payments": 78, "paymentAmount": "735.13", "costOfCapital": "17340.00", "readyToFund": false}),
	}
	return m{"data": items, "meta": m{"total": len(items), "requestId": exampleRequestID}}
}
