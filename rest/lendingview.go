package rest

import (
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/money"
)

// The lending records as REST shows them (PRODUCT 1.2-1.5). Amounts and
// rates are money types, which encode as decimal strings ("25000.00",
// "1.35"); optional values are pointers so they render as null.

// lenderAttributes is a lender (PRODUCT 1.2).
type lenderAttributes struct {
	Name                string        `json:"name"`
	IsActive            bool          `json:"isActive"`
	Products            []string      `json:"products"`
	MinAmount           *money.Amount `json:"minAmount"`
	MaxAmount           *money.Amount `json:"maxAmount"`
	MinMonthlyRevenue   *money.Amount `json:"minMonthlyRevenue"`
	MinMonthsInBusiness *int          `json:"minMonthsInBusiness"`
	ExcludedIndustries  []string      `json:"excludedIndustries"`
	CommissionRate      money.Rate    `json:"commissionRate"`
	ContactEmail        *string       `json:"contactEmail"`
	CreatedAt           apitime.Time  `json:"createdAt"`
	UpdatedAt           apitime.Time  `json:"updatedAt"`
}

func lenderResource(l *ent.Lender) Resource {
	return Resource{ID: l.ID.String(), Type: "lender", Attributes: lenderAttributes{
		Name: l.Name, IsActive: l.IsActive, Products: nonNilSlice(l.Products),
		MinAmount: l.MinAmount, MaxAmount: l.MaxAmount, MinMonthlyRevenue: l.MinMonthlyRevenue,
		MinMonthsInBusiness: l.MinMonthsInBusiness, ExcludedIndustries: nonNilSlice(l.ExcludedIndustries),
		CommissionRate: l.CommissionRate, ContactEmail: l.ContactEmail,
		CreatedAt: apitime.Of(l.CreatedAt), UpdatedAt: apitime.Of(l.UpdatedAt),
	}}
}

// applicationAttributes is an application (PRODUCT 1.3), with the broker's
// notes on the submission beside it.
type applicationAttributes struct {
	LeadID           uuid.UUID     `json:"leadId"`
	LenderID         uuid.UUID     `json:"lenderId"`
	LenderName       string        `json:"lenderName"`
	Status           string        `json:"status"`
	Product          *string       `json:"product"`
	RequestedAmount  money.Amount  `json:"requestedAmount"`
	SubmittedAt      apitime.Time  `json:"submittedAt"`
	SubmittedBy      string        `json:"submittedBy"`
	ExternalRef      *string       `json:"externalRef"`
	Notes            *string       `json:"notes"`
	DecidedAt        *apitime.Time `json:"decidedAt"`
	ApprovedAmount   *money.Amount `json:"approvedAmount"`
	InterestRate     *money.Rate   `json:"interestRate"`
	RateType         *string       `json:"rateType"`
	TermMonths       *int          `json:"termMonths"`
	PaymentFrequency *string       `json:"paymentFrequency"`
	Conditions       []string      `json:"conditions"`
	DeclineReason    *string       `json:"declineReason"`
	DeclineCategory  *string       `json:"declineCategory"`
	WithdrawnReason  *string       `json:"withdrawnReason"`
	Warnings         []string      `json:"warnings"`
	FundedDealID     *uuid.UUID    `json:"fundedDealId"`
	CreatedAt        apitime.Time  `json:"createdAt"`
	UpdatedAt        apitime.Time  `json:"updatedAt"`
}

func applicationResource(a *ent.Application) Resource {
	v := applicationAttributes{
		LeadID: a.LeadID, LenderID: a.LenderID, LenderName: a.LenderName, Status: a.Status.String(),
		RequestedAmount: a.RequestedAmount, SubmittedAt: apitime.Of(a.SubmittedAt), SubmittedBy: a.SubmittedBy,
		ExternalRef: a.ExternalRef, Notes: a.Notes, DecidedAt: utcPtr(a.DecidedAt),
		ApprovedAmount: a.ApprovedAmount, InterestRate: a.InterestRate, TermMonths: a.TermMonths,
		Conditions: nonNilSlice(a.Conditions), DeclineReason: a.DeclineReason, WithdrawnReason: a.WithdrawnReason,
		Warnings: nonNilSlice(a.Warnings), FundedDealID: a.FundedDealID,
		CreatedAt: apitime.Of(a.CreatedAt), UpdatedAt: apitime.Of(a.UpdatedAt),
	}
	v.Product = enumPtr(a.Product)
	v.RateType = enumPtr(a.RateType)
	v.PaymentFrequency = enumPtr(a.PaymentFrequency)
	v.DeclineCategory = enumPtr(a.DeclineCategory)
	return Resource{ID: a.ID.String(), Type: "application", Attributes: v}
}

// fundedDealAttributes is a funded deal (PRODUCT 1.4). Its commission is the
// expected commission (GraphQL's FundedDeal.expectedCommission); the
// commission record is commissionId.
type fundedDealAttributes struct {
	ApplicationID    uuid.UUID     `json:"applicationId"`
	LeadID           uuid.UUID     `json:"leadId"`
	LenderID         uuid.UUID     `json:"lenderId"`
	LenderName       string        `json:"lenderName"`
	AdvisorID        *uuid.UUID    `json:"advisorId"`
	FundedAmount     money.Amount  `json:"fundedAmount"`
	InterestRate     money.Rate    `json:"interestRate"`
	RateType         string        `json:"rateType"`
	TermMonths       int           `json:"termMonths"`
	PaymentFrequency *string       `json:"paymentFrequency"`
	PaybackAmount    *money.Amount `json:"paybackAmount"`
	Commission       money.Amount  `json:"commission"`
	CommissionID     uuid.UUID     `json:"commissionId"`
	FundedAt         apitime.Time  `json:"fundedAt"`
	CreatedAt        apitime.Time  `json:"createdAt"`
}

func fundedDealResource(d *ent.FundedDeal) Resource {
	return Resource{ID: d.ID.String(), Type: "funded_deal", Attributes: fundedDealAttributes{
		ApplicationID: d.ApplicationID, LeadID: d.LeadID, LenderID: d.LenderID, LenderName: d.LenderName,
		AdvisorID: d.AdvisorID, FundedAmount: d.FundedAmount, InterestRate: d.InterestRate, RateType: d.RateType.String(),
		TermMonths: d.TermMonths, PaymentFrequency: enumPtr(d.PaymentFrequency), PaybackAmount: d.PaybackAmount,
		Commission: d.ExpectedCommission, CommissionID: d.CommissionID,
		FundedAt: apitime.Of(d.FundedAt), CreatedAt: apitime.Of(d.CreatedAt),
	}}
}

// commissionAttributes is a commission (PRODUCT 1.5) with its payments and
// clawbacks, oldest first.
type commissionAttributes struct {
	DealID         uuid.UUID     `json:"dealId"`
	LeadID         uuid.UUID     `json:"leadId"`
	LenderID       uuid.UUID     `json:"lenderId"`
	AdvisorID      *uuid.UUID    `json:"advisorId"`
	ExpectedAmount money.Amount  `json:"expectedAmount"`
	PaidAmount     money.Amount  `json:"paidAmount"`
	Status         string        `json:"status"`
	Payments       []paymentView `json:"payments"`
	CreatedAt      apitime.Time  `json:"createdAt"`
	UpdatedAt      apitime.Time  `json:"updatedAt"`
}

type paymentView struct {
	Amount    money.Amount `json:"amount"`
	Kind      string       `json:"kind"`
	PaidAt    apitime.Time `json:"paidAt"`
	Reference *string      `json:"reference"`
}

// commissionResource renders a commission loaded with its payments.
func commissionResource(c *ent.Commission) Resource {
	payments := make([]paymentView, len(c.Edges.Payments))
	for i, p := range c.Edges.Payments {
		payments[i] = paymentView{Amount: p.Amount, Kind: p.Kind.String(), PaidAt: apitime.Of(p.PaidAt), Reference: p.Reference}
	}
	return Resource{ID: c.ID.String(), Type: "commission", Attributes: commissionAttributes{
		DealID: c.DealID, LeadID: c.LeadID, LenderID: c.LenderID, AdvisorID: c.AdvisorID,
		ExpectedAmount: c.ExpectedAmount, PaidAmount: c.PaidAmount, Status: c.Status.String(), Payments: payments,
		CreatedAt: apitime.Of(c.CreatedAt), UpdatedAt: apitime.Of(c.UpdatedAt),
	}}
}

// enumPtr is an optional enum value as its name; nil stays nil (null).
func enumPtr[E ~string](v *E) *string {
	if v == nil {
		return nil
	}
	s := string(*v)
	return &s
}
