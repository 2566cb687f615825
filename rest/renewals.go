package rest

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/renewals"
)

// renewalHandlers translates GET /v1/renewals (PRODUCT 12.2) onto
// GraphQL's renewalQueue(where:): the same filters, page and order. Who
// may read is the queue's rule (lending:read).
type renewalHandlers struct {
	resolver *graph.Resolver
}

func (h renewalHandlers) list(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, renewalResource, func(page, limit *int) (*graph.RenewalPage, error) {
		var f renewals.Filter
		var err error
		if f.AdvisorID, err = uuidParam(r, "advisorId"); err != nil {
			return nil, err
		}
		if f.DueBefore, err = timeParam(r, h.resolver, "dueBefore", true); err != nil {
			return nil, err
		}
		return h.resolver.Query().RenewalQueue(r.Context(), &f, page, limit)
	})
}

// renewalAttributes is one deal of the renewal queue, as GraphQL's
// RenewalEntry shows it; the resource's id is the deal's.
type renewalAttributes struct {
	DealID            uuid.UUID    `json:"dealId"`
	LeadID            uuid.UUID    `json:"leadId"`
	BusinessName      *string      `json:"businessName" description:"The lead's business name; null when it has none."`
	LenderID          uuid.UUID    `json:"lenderId"`
	LenderName        string       `json:"lenderName" description:"The lender's name at submission."`
	AdvisorID         *uuid.UUID   `json:"advisorId" description:"The advisor credited with the deal; null when none."`
	FundedAmount      money.Amount `json:"fundedAmount"`
	FundedAt          apitime.Time `json:"fundedAt"`
	RenewalEligibleAt apitime.Time `json:"renewalEligibleAt" description:"When the merchant may renew: fundedAt plus half the term in calendar months, rounded up (clamped to the month's last day)."`
}

func renewalResource(e renewals.Entry) Resource {
	return Resource{ID: e.DealID.String(), Type: "renewal", Attributes: renewalAttributes{
		DealID: e.DealID, LeadID: e.LeadID, BusinessName: e.BusinessName, LenderID: e.LenderID, LenderName: e.LenderName,
		AdvisorID: e.AdvisorID, FundedAmount: e.FundedAmount, FundedAt: apitime.Of(e.FundedAt), RenewalEligibleAt: apitime.Of(e.RenewalEligibleAt),
	}}
}
