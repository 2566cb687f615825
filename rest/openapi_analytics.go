package rest

import (
	"fmt"

	"github.com/lendingpipe/svc/internal/period"
	"github.com/lendingpipe/svc/internal/viewer"
)

// The analytics reports (PRODUCT 2) in the OpenAPI document: one operation
// per report, the shared parameters as components, and each report's
// attributes with the rows they hold as named schemas.

// ratioS is a ratio as the reports write it (internal/money.Ratio).
func ratioS() m {
	return m{"type": "string", "pattern": `^[0-9]+\.[0-9]{4}$`, "example": "0.3125",
		"description": "A ratio: a decimal string with exactly four decimals, rounded half-even; \"0.0000\" when its divisor is 0."}
}

// dateS is a calendar day (a series bucket's first day).
func dateS() m {
	return m{"type": "string", "format": "date", "pattern": `^[0-9]{4}-[0-9]{2}-[0-9]{2}$`, "example": "2026-11-01"}
}

func secondsS(desc string) m { return described(count(), desc) }

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

// reportRangeAttrs are the attributes every report carries beside its figures.
func reportRangeAttrs() m {
	return m{
		"from":     described(dateTime(), "The range's first instant."),
		"to":       described(dateTime(), "The instant just after the range."),
		"timezone": described(str(), "The IANA time zone the range's days and the series' buckets are cut in."),
		"interval": enumRef(enumAnalyticsInterval),
	}
}

// withRange is a report's attributes: attrs and the range's.
func withRange(attrs m) m {
	for k, v := range reportRangeAttrs() {
		attrs[k] = v
	}
	return attrs
}

// analyticsSchemas are the rows the reports hold.
func analyticsSchemas() m {
	group := func(id, name string) m { return m{"id": described(uuidS(), id), "name": described(str(), name)} }
	return m{
		"PipelineStageCount": record(m{"stageId": uuidS(), "label": described(str(), "The stage's label."),
			"semanticSlot": enumRef(enumSemanticSlot), "leads": described(count(), "The leads in the stage now.")}),
		"Funnel": record(m{
			"leads":      described(count(), "The leads created in the range."),
			"applied":    described(count(), "Of them, those with at least one application."),
			"approved":   described(count(), "Of them, those with at least one application a lender approved (now approved, funded, or withdrawn after approval)."),
			"funded":     described(count(), "Of them, those with a funded deal."),
			"conversion": sRef("FunnelConversion"),
		}),
		"FunnelConversion": record(m{
			"applied":  described(ratioS(), "applied / leads."),
			"approved": described(ratioS(), "approved / applied."),
			"funded":   described(ratioS(), "funded / approved."),
			"overall":  described(ratioS(), "funded / leads."),
		}),
		"SourceCount": record(m{"source": enumRef(enumLeadSource),
			"leads":        described(count(), "The funnel's leads of the source."),
			"funded":       described(count(), "Of them, those with a funded deal."),
			"fundedAmount": described(amountS(), "The sum of those leads' funded deals."),
		}),
		"FundingTotals": record(m{
			"deals":              described(count(), "The deals funded in the range."),
			"fundedAmount":       described(amountS(), "Their funded amounts' sum."),
			"averageAmount":      described(amountS(), "fundedAmount / deals, half-even to the cent; 0.00 without deals."),
			"expectedCommission": described(amountS(), "Their expected commissions' sum."),
		}),
		"FundingBucket": record(m{"periodStart": described(dateS(), "The bucket's first day in the report's time zone."),
			"deals": described(count(), "Deals funded in the bucket."), "fundedAmount": described(amountS(), "Their funded amounts' sum.")}),
		"FundingGroup": record(merge(group("The lender's or the advisor's id.", "The lender's name, or the advisor's first and last name."), m{
			"deals": described(count(), "Deals funded in the range."), "fundedAmount": described(amountS(), "Their funded amounts' sum.")})),
		"LenderStats": record(m{
			"lenderId":                described(uuidS(), "The lender's id."),
			"name":                    described(str(), "The lender's name."),
			"submitted":               described(count(), "Applications submitted to the lender in the range."),
			"approved":                described(count(), "Of them, those the lender approved (now approved, funded, or withdrawn after approval)."),
			"declined":                described(count(), "Of them, those declined."),
			"withdrawn":               described(count(), "Of them, those withdrawn, after approval or not."),
			"funded":                  described(count(), "Of them, those funded."),
			"approvalRate":            described(ratioS(), "approved / (approved + declined)."),
			"fundedAmount":            described(amountS(), "The sum of the funded ones' deals."),
			"medianSecondsToDecision": described(null(count()), "The lower median of the whole seconds (rounded down) from submission to decision, over the decided ones; null when none is decided."),
			"declineCategories":       described(arr(sRef("DeclineCategoryCount")), "The declined ones by declineCategory (other when none was given), most first, then by category."),
		}),
		"DeclineCategoryCount": record(m{"category": enumRef(enumDeclineCategory), "count": described(count(), "Declines of the category.")}),
		"CommissionTotals": record(m{
			"expected":    described(amountS(), "The expected amounts' sum."),
			"paid":        described(amountS(), "The payments' sum, gross of clawbacks, whenever paid."),
			"outstanding": described(amountS(), "The sum of what is still owed on each: max(expectedAmount - paidAmount, 0)."),
			"clawedBack":  described(amountS(), "The clawbacks' sum, whenever recorded."),
		}),
		"CommissionBucket": record(m{"periodStart": described(dateS(), "The bucket's first day in the report's time zone."),
			"paid":       described(amountS(), "Payments dated (paidAt) in the bucket, of any deal."),
			"clawedBack": described(amountS(), "Clawbacks dated in the bucket, of any deal.")}),
		"CommissionGroup": record(merge(group("The advisor's or the lender's id.", "The advisor's first and last name, or the lender's name."), m{
			"expected":    described(amountS(), "The expected amounts' sum."),
			"paid":        described(amountS(), "The payments' sum, gross of clawbacks."),
			"clawedBack":  described(amountS(), "The clawbacks' sum."),
			"outstanding": described(amountS(), "The sum of max(expectedAmount - paidAmount, 0)."),
		})),
		"AgentCallStats": record(m{
			"userId":             described(uuidS(), "The agent's user id."),
			"name":               described(str(), "The agent's first and last name."),
			"calls":              described(count(), "Distinct calls (externalCallId) of the agent with any event in the range."),
			"answered":           described(count(), "Of them, those with a call_answered event in the range."),
			"talkSeconds":        secondsS("The sum of durationSeconds of the agent's call_ended events in the range."),
			"averageTalkSeconds": secondsS("talkSeconds / answered, rounded down; 0 without answered calls."),
			"dispositions": m{"type": "object", "additionalProperties": count(), "example": m{"interested": 3, "callback": 1},
				"description": "The agent's disposition records in the range: disposition code → count."},
		}),
		"CallBucket": record(m{"periodStart": described(dateS(), "The bucket's first day in the report's time zone."),
			"calls": described(count(), "Distinct calls whose first event in the range falls in the bucket.")}),
	}
}

func merge(a, b m) m {
	for k, v := range b {
		a[k] = v
	}
	return a
}

// reportResources are the five reports' attribute schemas and envelopes.
func reportResources() []resource {
	report := func(name, id string, attrs m) resource {
		return resource{name: name, typ: "analytics", id: enumS(id), single: true, attrs: withRange(attrs)}
	}
	return []resource{
		report("PipelineReport", "pipeline", m{
			"stages":   described(arr(sRef("PipelineStageCount")), "Every stage of the pipeline, in order, with the leads in it now."),
			"funnel":   sRef("Funnel"),
			"bySource": described(arr(sRef("SourceCount")), "Every lead source, in the order of the LeadSource enumeration, with the funnel's leads of it."),
		}),
		report("FundingReport", "funding", m{
			"totals":    sRef("FundingTotals"),
			"series":    described(arr(sRef("FundingBucket")), "The deals by the bucket of their fundedAt: every bucket of the range, empty ones with zeros."),
			"byLender":  described(arr(sRef("FundingGroup")), "The deals by lender: most funded first, then by name and id."),
			"byAdvisor": described(arr(sRef("FundingGroup")), "The deals by advisor, as byLender; deals without an advisor are left out."),
		}),
		report("LendersReport", "lenders", m{
			"lenders": described(arr(sRef("LenderStats")), "Every lender with an application submitted in the range, by name, then id."),
		}),
		report("CommissionsReport", "commissions", m{
			"totals":    sRef("CommissionTotals"),
			"series":    described(arr(sRef("CommissionBucket")), "Every payment and clawback dated in the range, by the bucket of its paidAt: every bucket, empty ones with zeros."),
			"byAdvisor": described(arr(sRef("CommissionGroup")), "The totals by advisor: most expected first, then by name and id; commissions without an advisor are left out."),
			"byLender":  described(arr(sRef("CommissionGroup")), "The totals by lender, as byAdvisor."),
		}),
		report("DialerReport", "dialer", m{
			"agents": described(arr(sRef("AgentCallStats")), "Every agent with a call event in the range, by name, then id."),
			"series": described(arr(sRef("CallBucket")), "Calls by the bucket of their first event in the range: every bucket, empty ones with zeros."),
		}),
	}
}

// analyticsOperations are the reports (PRODUCT 2).
func analyticsOperations() []operation {
	read := viewer.ScopeAnalyticsRead
	shared := " The shared parameters select the range, its time zone, the series interval and whose records count; a malformed one is 422 naming it."
	op := func(name, id, summary, desc string, example m) operation {
		return operation{method: "GET", path: "/v1/analytics/" + name, id: id, tag: "analytics", summary: summary,
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
