package rest

import (
	"github.com/lendingpipe/svc/internal/apitime"
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
	exampleLenderID       = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b6d01"
	exampleApplicationID  = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b6e01"
	exampleDealID         = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b6f01"
	exampleCommissionID   = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b7001"
	exampleLeadID         = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b7101"
	exampleAdvisorID      = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b6c02"
	exampleKeyID          = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b7201"
	exampleAppID          = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b7301"
	exampleInstallationID = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b7302"
)

// exampleTaskID is the demo lead's follow-up, done by its advisor.
const exampleTaskID = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b7401"

func taskExample() m {
	return exampleResource(exampleTaskID, "task", m{"leadId": exampleLeadID, "title": "Chase the last 3 bank statements",
		"dueAt": apitime.Example, "assigneeId": exampleAdvisorID, "status": "done", "completedAt": apitime.Example,
		"completedBy": "user:" + exampleAdvisorID, "createdBy": "user:" + exampleAdvisorID})
}

func renewalExample() m {
	// No createdAt or updatedAt: an entry of the queue is a view of a deal.
	return m{"id": exampleDealID, "type": "renewal", "attributes": m{"dealId": exampleDealID, "leadId": exampleLeadID,
		"businessName": "Acme Bakery LLC", "lenderId": exampleLenderID, "lenderName": "Summit Capital", "advisorId": exampleAdvisorID,
		"fundedAmount": "50000.00", "fundedAt": "2026-03-02T15:04:05.000Z", "renewalEligibleAt": "2026-09-02T15:04:05.000Z"}}
}

func installationExample() m {
	return exampleResource(exampleInstallationID, "app_installation", m{"appId": exampleAppID, "appName": "Dialer Sync",
		"scopes": []string{"leads:read", "webhooks:manage"}, "installedBy": exampleKeyID, "installedAt": apitime.Example,
		"uninstalledAt": nil})
}

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
		"fundedDealId": exampleDealID, "readyToFund": false, "stipulationsOutstanding": 0,
		"renewalOfDealId": nil, "isRenewal": false})
}

// exampleStipulationID is the demo application's one condition, received.
const (
	exampleStipulationID = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b7501"
	exampleDocumentID    = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b7601"
)

func stipulationExample() m {
	return exampleResource(exampleStipulationID, "stipulation", m{"applicationId": exampleApplicationID, "leadId": exampleLeadID,
		"text": "Last 3 months of bank statements", "status": "received", "documentIds": []string{exampleDocumentID},
		"receivedAt": apitime.Example, "waivedAt": nil, "waivedBy": nil, "waiveReason": nil})
}

func fundedDealExample() m {
	deal := exampleResource(exampleDealID, "funded_deal", m{"applicationId": exampleApplicationID, "leadId": exampleLeadID,
		"lenderId": exampleLenderID, "lenderName": "Summit Capital", "advisorId": exampleAdvisorID,
		"fundedAmount": "45000.00", "interestRate": "1.35", "rateType": "factor", "termMonths": 9,
		"paymentFrequency": "daily", "paybackAmount": "60750.00", "commission": "1350.00",
		"commissionId": exampleCommissionID, "fundedAt": apitime.Example, "renewalEligibleAt": "2027-04-23T10:17:27.120Z",
		"renewalOfDealId": nil, "isRenewal": false})
	delete(deal["attributes"].(m), "updatedAt") // a deal never changes
	return deal
}

func commissionExample() m {
	return exampleResource(exampleCommissionID, "commission", m{"dealId": exampleDealID, "leadId": exampleLeadID,
		"lenderId": exampleLenderID, "advisorId": exampleAdvisorID, "expectedAmount": "1350.00", "paidAmount": "675.00",
		"status": "partially_paid", "payments": []m{{"amount": "675.00", "kind": "payment", "paidAt": apitime.Example, "reference": "ACH-7731"}},
		"renewalOfDealId": nil, "isRenewal": false})
}

// The reports' examples: the demo organization's November in New York.
func exampleReport(id string, attrs m) m {
	attrs["from"], attrs["to"] = "2026-11-01T04:00:00.000Z", "2026-12-01T05:00:00.000Z"
	attrs["timezone"], attrs["interval"] = "America/New_York", "week"
	return m{"id": id, "type": "analytics", "attributes": attrs}
}

const exampleRileyID = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b6c01"

func pipelineReportExample() m {
	stage := func(id, label, slot string, leads int) m {
		return m{"stageId": id, "label": label, "semanticSlot": slot, "leads": leads}
	}
	source := func(s string, leads, funded int, amount string) m {
		return m{"source": s, "leads": leads, "funded": funded, "fundedAmount": amount}
	}
	return exampleReport("pipeline", m{
		"stages": []m{stage("01a2015c-7d3e-7b41-9c1a-3f5e8d2b6a01", "New", "new", 14),
			stage("01a2015c-7d3e-7b41-9c1a-3f5e8d2b6a02", "Contacted", "working", 9)},
		"funnel": m{"leads": 32, "applied": 10, "approved": 5, "funded": 2,
			"conversion": m{"applied": "0.3125", "approved": "0.5000", "funded": "0.4000", "overall": "0.0625"}},
		"bySource": []m{source("manual", 12, 1, "45000.00"), source("csv_import", 0, 0, "0.00"), source("api", 9, 1, "30000.00"),
			source("web_form", 6, 0, "0.00"), source("referral", 5, 0, "0.00"), source("dialer", 0, 0, "0.00")},
	})
}

func fundingReportExample() m {
	// The second deal renews an earlier one.
	week := func(start string, deals int, amount string, renewals int, renewed string) m {
		return m{"periodStart": start, "deals": deals, "fundedAmount": amount, "renewalDeals": renewals, "renewalAmount": renewed}
	}
	return exampleReport("funding", m{
		"totals": m{"deals": 2, "fundedAmount": "75000.00", "averageAmount": "37500.00", "expectedCommission": "2250.00",
			"renewalDeals": 1, "renewalAmount": "30000.00"},
		"series": []m{week("2026-10-26", 0, "0.00", 0, "0.00"), week("2026-11-02", 1, "45000.00", 0, "0.00"),
			week("2026-11-09", 0, "0.00", 0, "0.00"), week("2026-11-16", 1, "30000.00", 1, "30000.00"),
			week("2026-11-23", 0, "0.00", 0, "0.00"), week("2026-11-30", 0, "0.00", 0, "0.00")},
		"byLender":  []m{{"id": exampleLenderID, "name": "Summit Capital", "deals": 2, "fundedAmount": "75000.00"}},
		"byAdvisor": []m{{"id": exampleAdvisorID, "name": "Maya Chen", "deals": 2, "fundedAmount": "75000.00"}},
	})
}

func lendersReportExample() m {
	return exampleReport("lenders", m{"lenders": []m{{
		"lenderId": exampleLenderID, "name": "Summit Capital", "submitted": 6, "approved": 3, "declined": 2, "withdrawn": 1,
		"funded": 2, "approvalRate": "0.6000", "fundedAmount": "75000.00", "medianSecondsToDecision": 86400,
		"declineCategories": []m{{"category": "revenue", "count": 1}, {"category": "time_in_business", "count": 1}},
	}}})
}

func commissionsReportExample() m {
	week := func(start, paid, clawedBack string) m {
		return m{"periodStart": start, "paid": paid, "clawedBack": clawedBack}
	}
	totals := func() m {
		return m{"expected": "2250.00", "paid": "1575.00", "clawedBack": "0.00", "outstanding": "675.00"}
	}
	return exampleReport("commissions", m{
		"totals":  totals(),
		"renewal": m{"expected": "900.00", "paid": "225.00"},
		"series": []m{week("2026-10-26", "0.00", "0.00"), week("2026-11-02", "0.00", "0.00"), week("2026-11-09", "1350.00", "0.00"),
			week("2026-11-16", "0.00", "0.00"), week("2026-11-23", "225.00", "0.00"), week("2026-11-30", "0.00", "0.00")},
		"byAdvisor": []m{merge(m{"id": exampleAdvisorID, "name": "Maya Chen"}, totals())},
		"byLender":  []m{merge(m{"id": exampleLenderID, "name": "Summit Capital"}, totals())},
	})
}

func dialerReportExample() m {
	week := func(start string, calls int) m { return m{"periodStart": start, "calls": calls} }
	return exampleReport("dialer", m{
		"agents": []m{{"userId": exampleRileyID, "name": "Riley Brooks", "calls": 42, "answered": 17, "talkSeconds": 3720,
			"averageTalkSeconds": 218, "dispositions": m{"interested": 5, "callback": 4, "not_interested": 8}}},
		"series": []m{week("2026-10-26", 0), week("2026-11-02", 12), week("2026-11-09", 15), week("2026-11-16", 9),
			week("2026-11-23", 6), week("2026-11-30", 0)},
	})
}

// activityExample is the demo lead's history: an advisor's edit and the
// lender's approval recorded through an inbound webhook's automation.
func activityExample() m {
	entry := func(id, kind string, actor m, record any, summary string, changes []m) m {
		return m{"id": id, "type": "activity", "attributes": m{"at": apitime.Example, "kind": kind, "actor": actor,
			"recordId": record, "summary": summary, "changes": changes}}
	}
	advisor, automation := exampleAdvisorID, "automation:01a2015c-7d3e-7b41-9c1a-3f5e8d2b7401"
	return examplePage(
		entry("01a2015c-7d3e-7b41-9c1a-3f5e8d2b7502", "application.approved",
			m{"type": "system", "id": automation, "name": "Summit decisions"}, exampleApplicationID,
			"Summit Capital approved 45000.00", []m{}),
		entry("01a2015c-7d3e-7b41-9c1a-3f5e8d2b7501", "lead.updated",
			m{"type": "user", "id": advisor, "name": "Maya Chen"}, exampleLeadID,
			"Changed requested amount", []m{{"field": "requestedAmount", "from": "40000.00", "to": "50000.00"}}),
	)
}
