package rest

import (
	"fmt"

	"github.com/lendingpipe/svc/analytics"
	"github.com/lendingpipe/svc/internal/period"
	"github.com/lendingpipe/svc/internal/viewer"
)

// The analytics reports (PRODUCT 2) in the OpenAPI document: one operation
// per report, the shared parameters as components, and each report's
// attributes with the rows they hold as components generated from their
// views.

// ratioS is a ratio as the reports write it (internal/money.Ratio).
func ratioS() m {
	return m{"type": "string", "pattern": `^[0-9]+\.[0-9]{4}$`, "example": "0.3125",
		"description": "A ratio: a decimal string with exactly four decimals, rounded half-even; \"0.0000\" when its divisor is 0."}
}

// daysS is a length of time in days (internal/money.Days).
func daysS() m {
	return m{"type": "string", "pattern": `^[0-9]+\.[0-9]{2}$`, "example": "2.50",
		"description": "A length of time in days: a decimal string with exactly two decimals, rounded half-even."}
}

// dateS is a calendar day (a series bucket's first day).
func dateS() m {
	return m{"type": "string", "format": "date", "pattern": `^[0-9]{4}-[0-9]{2}-[0-9]{2}$`, "example": "2026-11-01"}
}

// reportParameters are the shared parameters' components, referred to by
// every report.
func reportParameters() m {
	q := func(name, desc string, schema m) m {
		return m{"name": name, "in": "query", "required": false, "description": desc, "schema": schema}
	}
	day := m{"type": "string", "example": "2026-11-01"}
	return m{
		"ReportFrom": q("from", fmt.Sprintf("The range's start: a date (2026-11-01: the whole day in the report's time zone, inclusive) or an RFC 3339 date-time (an instant, inclusive). Without it the range is the %d days that end with to's day (with neither, the last %d days, today included). Anything else is 422 naming from.", period.DefaultDays, period.DefaultDays), day),
		"ReportTo":   q("to", fmt.Sprintf("The range's end: a date (the whole day, inclusive) or an RFC 3339 date-time (an instant, exclusive); the end of today when omitted. It must be after from, and the range at most %d days long (422 naming to, or from when to is omitted).", period.MaxDays), day),
		"ReportTimezone": q("timezone", "The IANA time zone (America/New_York) the dates are read in, the days and series buckets cut in, and periodStart written in. The organization's time zone when omitted (UTC unless changed with GraphQL updateOrganization). An unknown name is 422 naming timezone.",
			m{"type": "string", "example": "America/New_York"}),
		"ReportInterval":  q("interval", "How the series are cut: day (local midnight), week (ISO, from Monday) or month (from the 1st); day when omitted.", enumRef(enumAnalyticsInterval)),
		"ReportAdvisorId": q("advisorId", "Only this user's records: leads by primary advisor, deals and commissions by their advisor, calls by agent. A user of another organization matches nothing.", uuidS()),
		"ReportTeamId":    q("teamId", "Only the records of this team's members, counted as advisorId counts them; with advisorId, that advisor if a member.", uuidS()),
	}
}

var reportParamRefs = []m{paramRef("ReportFrom"), paramRef("ReportTo"), paramRef("ReportTimezone"),
	paramRef("ReportInterval"), paramRef("ReportAdvisorId"), paramRef("ReportTeamId")}

// analyticsViews are the rows the reports hold.
var analyticsViews = map[string]any{
	"PipelineStageCount":   analytics.PipelineStageCount{},
	"Funnel":               analytics.Funnel{},
	"FunnelConversion":     analytics.FunnelConversion{},
	"SourceCount":          analytics.SourceCount{},
	"FundingTotals":        analytics.FundingTotals{},
	"FundingBucket":        analytics.FundingBucket{},
	"FundingGroup":         analytics.FundingGroup{},
	"LenderStats":          analytics.LenderStats{},
	"DeclineCategoryCount": analytics.DeclineCategoryCount{},
	"CommissionTotals":     analytics.CommissionTotals{},
	"RenewalCommissions":   analytics.RenewalCommissions{},
	"CommissionBucket":     analytics.CommissionBucket{},
	"CommissionGroup":      analytics.CommissionGroup{},
	"AgentCallStats":       agentCalls{},
	"CallBucket":           analytics.CallBucket{},
}

func merge(a, b m) m {
	for k, v := range b {
		a[k] = v
	}
	return a
}

// reportResources are the five reports, each an analytics resource whose
// id names the report.
func reportResources() []resource {
	report := func(name, id string, view any) resource {
		return resource{name: name, typ: "analytics", id: enumS(id), view: view, single: true}
	}
	return []resource{
		report("PipelineReport", "pipeline", pipelineAttributes{}),
		report("FundingReport", "funding", fundingAttributes{}),
		report("LendersReport", "lenders", lendersAttributes{}),
		report("CommissionsReport", "commissions", commissionsAttributes{}),
		report("DialerReport", "dialer", dialerReport{}),
	}
}

// analyticsOperations are the reports (PRODUCT 2).
func analyticsOperations(h analyticsHandlers) []operation {
	read := viewer.ScopeAnalyticsRead
	shared := " The shared parameters select the range, its time zone, the series interval and whose records count; a malformed one is 422 naming it."
	op := func(name, id, summary, desc string, example m) operation {
		return operation{method: "GET", path: "/v1/analytics/" + name, id: id, serve: h.serve(reportNamed(name)), tag: "analytics", summary: summary,
			desc: desc + shared, scope: read, params: reportParamRefs, status: 200, result: envelopeRef(reportSchema[name]),
			resultDesc: "The report: id " + name + ", type analytics.", example: exampleSingle(example)}
	}
	return []operation{
		op("pipeline", "getPipelineReport", "The pipeline report",
			"The leads in each stage now, and the funnel of the leads created in the range: how many applied, were approved and were funded by now, the conversion ratios between those steps, and the funnel by source.",
			pipelineReportExample()),
		op("funding", "getFundingReport", "The funding report",
			"The deals funded in the range: totals, the series by fundedAt, and the deals by lender and by advisor.",
			fundingReportExample()),
		op("lenders", "getLendersReport", "The lenders report",
			"Each lender's applications submitted in the range: how many were approved, declined, withdrawn and funded, the approval rate, the funded amount, the median time to a decision and the declines by category.",
			lendersReportExample()),
		op("commissions", "getCommissionsReport", "The commissions report",
			"The commissions of the deals funded in the range (expected, paid, clawed back, outstanding) in total, by advisor and by lender, and the series of every payment and clawback dated in the range.",
			commissionsReportExample()),
		op("dialer", "getDialerReport", "The dialer report",
			"Each agent's calls in the range (calls, answered, talk time, dispositions), and the series of calls.",
			dialerReportExample()),
	}
}

// reportSchema names each report's attribute schema.
var reportSchema = map[string]string{"pipeline": "PipelineReport", "funding": "FundingReport", "lenders": "LendersReport",
	"commissions": "CommissionsReport", "dialer": "DialerReport"}
