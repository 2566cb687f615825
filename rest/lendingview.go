package rest

import (
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/money"
)

// The lending records as REST shows them (PRODUCT 1.2-1.5). Amounts and
// rates are money types, which encode as decimal strings ("25000.00",
// "1.35"); optional values are pointers so they render as null.

// lenderAttributes is a lender (PRODUCT 1.2).
type lenderAttributes struct {
	Name                string        `json:"name" minLength:"1" maxLength:"200" description:"Unique within the organization, ignoring case."`
	IsActive            bool          `json:"isActive" description:"false for a lender that takes no new applications."`
	Products            []string      `json:"products" enum:"LenderProduct"`
	MinAmount           *money.Amount `json:"minAmount" description:"The smallest amount the lender funds; null when it sets none."`
	MaxAmount           *money.Amount `json:"maxAmount" description:"The largest amount the lender funds; null when it sets none."`
	MinMonthlyRevenue   *money.Amount `json:"minMonthlyRevenue" description:"The least monthly revenue the lender takes; null when it sets none."`
	MinMonthsInBusiness *int          `json:"minMonthsInBusiness" minimum:"0" maximum:"1200" description:"The fewest months in business the lender takes; null when it sets none."`
	ExcludedIndustries  []string      `json:"excludedIndustries" description:"Industries the lender does not fund, matched against the lead's industry ignoring case."`
	CommissionRate      money.Rate    `json:"commissionRate" description:"The default commission as a fraction of the funded amount (\"0.03\" is 3 %)."`
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
	LenderName       string        `json:"lenderName" description:"The lender's name at submission."`
	Status           string        `json:"status" enum:"ApplicationStatus"`
	Product          *string       `json:"product" enum:"LenderProduct"`
	RequestedAmount  money.Amount  `json:"requestedAmount"`
	SubmittedAt      apitime.Time  `json:"submittedAt"`
	SubmittedBy      string        `json:"submittedBy" description:"Who submitted it: the API key's id, automation:<id>, or system (as changedBy in lead.status_changed)."`
	ExternalRef      *string       `json:"externalRef" minLength:"1" maxLength:"100" description:"The lender's own reference, unique per lender; null when not given."`
	Notes            *string       `json:"notes" maxLength:"5000" description:"The broker's notes on the submission; null when none."`
	DecidedAt        *apitime.Time `json:"decidedAt"`
	ApprovedAmount   *money.Amount `json:"approvedAmount" description:"The offer's amount; null unless approved."`
	InterestRate     *money.Rate   `json:"interestRate" description:"The offer's rate, read as rateType says; null unless approved."`
	RateType         *string       `json:"rateType" enum:"RateType"`
	TermMonths       *int          `json:"termMonths" minimum:"1" maximum:"600" description:"The offer's term in months; null unless approved."`
	PaymentFrequency *string       `json:"paymentFrequency" enum:"PaymentFrequency"`
	Conditions       []string      `json:"conditions" description:"Stipulations the lender asks for before funding."`
	DeclineReason    *string       `json:"declineReason" minLength:"1" maxLength:"500" description:"Why the lender declined; null unless declined."`
	DeclineCategory  *string       `json:"declineCategory" enum:"DeclineCategory"`
	WithdrawnReason  *string       `json:"withdrawnReason" description:"Why it was withdrawn: funded_elsewhere when another application of the lead was funded; null unless withdrawn."`
	Warnings         []string      `json:"warnings" description:"The criteria of the lender's box the submission missed, one sentence each; empty when none."`
	FundedDealID     *uuid.UUID    `json:"fundedDealId" description:"The deal the application became; null unless funded."`
	ReadyToFund      bool          `json:"readyToFund" description:"Whether it may fund as it stands: approved, with no stipulation outstanding."`
	Outstanding      int           `json:"stipulationsOutstanding" minimum:"0" description:"How many of its stipulations are outstanding."`
	RenewalOfDealID  *uuid.UUID    `json:"renewalOfDealId" description:"The funded deal of the same lead this application renews; null unless a renewal."`
	IsRenewal        bool          `json:"isRenewal" description:"Whether the application renews an earlier deal of its lead."`
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
		ReadyToFund:     lendingrules.ReadyToFund(a.Status.String(), a.StipulationsOutstanding),
		Outstanding:     a.StipulationsOutstanding,
		RenewalOfDealID: a.RenewalOfDealID, IsRenewal: a.IsRenewal,
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
	LenderName       string        `json:"lenderName" description:"The lender's name at submission."`
	AdvisorID        *uuid.UUID    `json:"advisorId" description:"The advisor credited: the lead's primary advisor at funding unless given; null when none."`
	FundedAmount     money.Amount  `json:"fundedAmount"`
	InterestRate     money.Rate    `json:"interestRate" description:"The offer's rate, read as rateType says."`
	RateType         string        `json:"rateType" enum:"RateType"`
	TermMonths       int           `json:"termMonths" minimum:"1" maximum:"600"`
	PaymentFrequency *string       `json:"paymentFrequency" enum:"PaymentFrequency"`
	PaybackAmount    *money.Amount `json:"paybackAmount" description:"fundedAmount × interestRate, half-even to the cent, for a factor rate; null for an APR."`
	Commission       money.Amount  `json:"commission" description:"The commission expected: fundedAmount × the lender's commissionRate (half-even to the cent) unless given at funding. GraphQL names it FundedDeal.expectedCommission."`
	CommissionID     uuid.UUID     `json:"commissionId" description:"The deal's commission record (GET /v1/commissions/{id})."`
	FundedAt         apitime.Time  `json:"fundedAt"`
	RenewalEligible  *apitime.Time `json:"renewalEligibleAt" description:"When the merchant may renew: fundedAt plus half the term in calendar months, rounded up (clamped to the month's last day)."`
	RenewalOfDealID  *uuid.UUID    `json:"renewalOfDealId" description:"The deal of the same lead this one renews; null unless a renewal."`
	IsRenewal        bool          `json:"isRenewal" description:"Whether the deal renews an earlier deal of its lead."`
	CreatedAt        apitime.Time  `json:"createdAt"`
}

func fundedDealResource(d *ent.FundedDeal) Resource {
	return Resource{ID: d.ID.String(), Type: "funded_deal", Attributes: fundedDealAttributes{
		ApplicationID: d.ApplicationID, LeadID: d.LeadID, LenderID: d.LenderID, LenderName: d.LenderName,
		AdvisorID: d.AdvisorID, FundedAmount: d.FundedAmount, InterestRate: d.InterestRate, RateType: d.RateType.String(),
		TermMonths: d.TermMonths, PaymentFrequency: enumPtr(d.PaymentFrequency), PaybackAmount: d.PaybackAmount,
		Commission: d.ExpectedCommission, CommissionID: d.CommissionID,
		FundedAt: apitime.Of(d.FundedAt), RenewalEligible: utcPtr(d.RenewalEligibleAt),
		RenewalOfDealID: d.RenewalOfDealID, IsRenewal: d.IsRenewal, CreatedAt: apitime.Of(d.CreatedAt),
	}}
}

// commissionAttributes is a commission (PRODUCT 1.5) with its payments and
// clawbacks, oldest first.
type commissionAttributes struct {
	DealID         uuid.UUID     `json:"dealId"`
	LeadID         uuid.UUID     `json:"leadId"`
	LenderID       uuid.UUID     `json:"lenderId"`
	AdvisorID      *uuid.UUID    `json:"advisorId" description:"The deal's advisor; null when none."`
	ExpectedAmount money.Amount  `json:"expectedAmount" description:"The deal's commission."`
	PaidAmount     money.Amount  `json:"paidAmount" description:"The sum of the payments minus the sum of the clawbacks."`
	Status         string        `json:"status" enum:"CommissionStatus"`
	Payments       []paymentView `json:"payments" description:"The payments and clawbacks, oldest paidAt first."`
	RenewalOfDeal  *uuid.UUID    `json:"renewalOfDealId" description:"The deal the commission's deal renews; null unless a renewal."`
	IsRenewal      bool          `json:"isRenewal" description:"Whether the commission's deal renews an earlier deal of its lead."`
	CreatedAt      apitime.Time  `json:"createdAt"`
	UpdatedAt      apitime.Time  `json:"updatedAt"`
}

type paymentView struct {
	Amount    money.Amount `json:"amount" description:"The amount paid or clawed back: more than 0."`
	Kind      string       `json:"kind" enum:"PaymentKind"`
	PaidAt    apitime.Time `json:"paidAt"`
	Reference *string      `json:"reference" description:"The lender's reference (a remittance or transfer id); null when none."`
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
		RenewalOfDeal: c.RenewalOfDealID, IsRenewal: c.IsRenewal, CreatedAt: apitime.Of(c.CreatedAt), UpdatedAt: apitime.Of(c.UpdatedAt),
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

// stipulationAttributes is a stipulation (PRODUCT 11), as GraphQL's
// Stipulation shows it.
type stipulationAttributes struct {
	ApplicationID uuid.UUID     `json:"applicationId"`
	LeadID        uuid.UUID     `json:"leadId"`
	Text          string        `json:"text" minLength:"1" maxLength:"100" description:"What is owed."`
	Status        string        `json:"status" enum:"StipulationStatus"`
	DocumentIDs   []uuid.UUID   `json:"documentIds" description:"The documents that satisfied it; empty unless received."`
	ReceivedAt    *apitime.Time `json:"receivedAt" description:"When it was received; null unless received."`
	WaivedAt      *apitime.Time `json:"waivedAt" description:"When it was waived; null unless waived."`
	WaivedBy      *string       `json:"waivedBy" description:"Who waived it: user:<id>, the API key's id, automation:<id> or system; null unless waived."`
	WaiveReason   *string       `json:"waiveReason" description:"Why it was waived (funded when a funding waived it); null unless waived."`
	CreatedAt     apitime.Time  `json:"createdAt"`
	UpdatedAt     apitime.Time  `json:"updatedAt"`
}

func stipulationResource(s *ent.Stipulation) Resource {
	return Resource{ID: s.ID.String(), Type: "stipulation", Attributes: stipulationAttributes{
		ApplicationID: s.ApplicationID, LeadID: s.LeadID, Text: s.Text, Status: s.Status.String(),
		DocumentIDs: nonNilSlice(s.DocumentIds), ReceivedAt: utcPtr(s.ReceivedAt), WaivedAt: utcPtr(s.WaivedAt),
		WaivedBy: s.WaivedBy, WaiveReason: s.WaiveReason,
		CreatedAt: apitime.Of(s.CreatedAt), UpdatedAt: apitime.Of(s.UpdatedAt),
	}}
}
