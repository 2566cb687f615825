package rest

import (
	"github.com/lendingpipe/svc/ent/apitime"
)

// Examples of the directory's and the lending half's responses, as the
// demo organization answers them. The document's validation (and
// Spectral's) checks each against its schema, so an example cannot drift
// from the shape.

const exampleRequestID = "0193b6a4-2f1c-7d2e-9a41-5c3f8e2b7a10"

// examplePage is a one-page collection of items.
func examplePage(items ...m) m {
	return m{"data": items, "meta": m{"total": len(items), "page": 1, "limit": defaultLimit, "hasMore": false, "requestId": exampleRequestID}}
}

func exampleResource(id, typ string, attrs m) m {
	attrs["createdAt"], attrs["updatedAt"] = apitime.Example, apitime.Example
	return m{"id": id, "type": typ, "attributes": attrs}
}

func stagesExample() m {
	stage := func(id, key, label, color, slot string, position int) m {
		return exampleResource(id, "stage", m{"stageKey": key, "stageLabel": label, "color": color, "semanticSlot": slot, "position": position})
	}
	return examplePage(
		stage("01a2015c-7d3e-7b41-9c1a-3f5e8d2b6a01", "new", "New", "#3b82f6", "new", 0),
		stage("01a2015c-7d3e-7b41-9c1a-3f5e8d2b6a02", "contacted", "Contacted", "#8b5cf6", "working", 1),
	)
}

const exampleTeamID = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b6b01"

func usersExample() m {
	team := exampleTeamID
	user := func(id, first, last, email, role string) m {
		return exampleResource(id, "user", m{"firstName": first, "lastName": last, "email": email, "role": role,
			"teamId": team, "teamName": "Closers"})
	}
	return examplePage(
		user("01a2015c-7d3e-7b41-9c1a-3f5e8d2b6c01", "Riley", "Brooks", "riley.brooks@demo.example", "agent"),
		user("01a2015c-7d3e-7b41-9c1a-3f5e8d2b6c02", "Maya", "Chen", "maya.chen@demo.example", "advisor"),
	)
}

func teamsExample() m {
	return examplePage(exampleResource(exampleTeamID, "team", m{"name": "Closers"}))
}

// exampleSingle is res in the single-resource envelope.
func exampleSingle(res m) m {
	return m{"data": res, "meta": m{"requestId": exampleRequestID}}
}

// The lending examples are one story: the demo organization's lead
// submitted to Summit Capital, approved, funded and half paid.
const (
	exampleLenderID      = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b6d01"
	exampleApplicationID = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b6e01"
	exampleDealID        = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b6f01"
	exampleCommissionID  = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b7001"
	exampleLeadID        = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b7101"
	exampleAdvisorID     = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b6c02"
	exampleKeyID         = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b7201"
)

func lenderExample() m {
	return exampleResource(exampleLenderID, "lender", m{"name": "Summit Capital", "isActive": true,
		"products": []string{"mca", "term_loan"}, "minAmount": "10000.00", "maxAmount": "500000.00",
		"minMonthlyRevenue": "15000.00", "minMonthsInBusiness": 6, "excludedIndustries": []string{"Cannabis"},
		"commissionRate": "0.03", "contactEmail": "submissions@summit.example"})
}

func applicationExample() m {
	return exampleResource(exampleApplicationID, "application", m{"leadId": exampleLeadID, "lenderId": exampleLenderID,
		"lenderName": "Summit Capital", "status": "funded", "product": "mca", "requestedAmount": "50000.00",
		"submittedAt": apitime.Example, "submittedBy": exampleKeyID, "externalRef": "SC-20931", "notes": nil,
		"decidedAt": apitime.Example, "approvedAmount": "45000.00", "interestRate": "1.35", "rateType": "factor",
		"termMonths": 9, "paymentFrequency": "daily", "conditions": []string{"Last 3 months of bank statements"},
		"declineReason": nil, "declineCategory": nil, "withdrawnReason": nil, "warnings": []string{},
		"fundedDealId": exampleDealID})
}

func fundedDealExample() m {
	deal := exampleResource(exampleDealID, "funded_deal", m{"applicationId": exampleApplicationID, "leadId": exampleLeadID,
		"lenderId": exampleLenderID, "lenderName": "Summit Capital", "advisorId": exampleAdvisorID,
		"fundedAmount": "45000.00", "interestRate": "1.35", "rateType": "factor", "termMonths": 9,
		"paymentFrequency": "daily", "paybackAmount": "60750.00", "commission": "1350.00",
		"commissionId": exampleCommissionID, "fundedAt": apitime.Example})
	delete(deal["attributes"].(m), "updatedAt") // a deal never changes
	return deal
}

func commissionExample() m {
	return exampleResource(exampleCommissionID, "commission", m{"dealId": exampleDealID, "leadId": exampleLeadID,
		"lenderId": exampleLenderID, "advisorId": exampleAdvisorID, "expectedAmount": "1350.00", "paidAmount": "675.00",
		"status": "partially_paid", "payments": []m{{"amount": "675.00", "kind": "payment", "paidAt": apitime.Example, "reference": "ACH-7731"}}})
}
