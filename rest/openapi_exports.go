package rest

import "github.com/lendingpipe/svc/internal/viewer"

// exportOperations are the exports (PRODUCT 10.8): each list's every row
// as CSV, under the list's filters and scope.
func exportOperations(h handlers) []operation {
	desc := func(list string) string {
		return "Every row GET " + list + " lists under the same filters, in its order, as UTF-8 CSV with a header row, " +
			"streamed. The columns are the list's resource: id, then its attributes by their JSON names; a nested object's " +
			"members are columns of their own (stage.stageLabel), a list of strings is one cell joined by \";\", any other " +
			"list or object one cell of compact JSON. Amounts are decimals (12500.00), times RFC 3339 in UTC, absent values " +
			"empty. A text cell beginning with =, +, -, @, a tab or a carriage return is written with a leading ' so no " +
			"spreadsheet runs it. A filter the list refuses is refused the same way, before any row is sent; a failure " +
			"after the header was sent closes the connection without the body's last chunk, so the transfer reads as broken, " +
			"never as a shorter file."
	}
	leads, lending := viewer.ScopeLeadsRead, viewer.ScopeLendingRead
	return []operation{
		{method: "GET", path: "/v1/exports/leads.csv", id: "exportLeads", serve: h.leads.export, tag: "exports", summary: "Export leads as CSV",
			desc: desc("/v1/leads") + " " + leadFiltersDesc, scope: leads, params: leadFilterParams(),
			status: 200, csv: leadExport, resultDesc: "The leads, as an attachment named leads-<date>.csv."},
		{method: "GET", path: "/v1/exports/applications.csv", id: "exportApplications", serve: h.lending.exportApplications, tag: "exports", summary: "Export applications as CSV",
			desc: desc("/v1/applications"), scope: lending, params: applicationFilterParams(),
			status: 200, csv: applicationExport, resultDesc: "The applications, as an attachment named applications-<date>.csv."},
		{method: "GET", path: "/v1/exports/funded-deals.csv", id: "exportFundedDeals", serve: h.lending.exportFundedDeals, tag: "exports", summary: "Export funded deals as CSV",
			desc: desc("/v1/funded-deals"), scope: lending, params: fundedDealFilterParams(),
			status: 200, csv: fundedDealExport, resultDesc: "The funded deals, as an attachment named funded-deals-<date>.csv."},
		{method: "GET", path: "/v1/exports/commissions.csv", id: "exportCommissions", serve: h.lending.exportCommissions, tag: "exports", summary: "Export commissions as CSV",
			desc: desc("/v1/commissions"), scope: lending, params: commissionFilterParams(),
			status: 200, csv: commissionExport, resultDesc: "The commissions, as an attachment named commissions-<date>.csv."},
	}
}

// csvContent is an export's body and headers in the document.
func (x csvExport) content() (content, headers m) {
	header := ""
	for i, c := range x.cols {
		if i > 0 {
			header += ","
		}
		header += c.name
	}
	headers = headerRefs()
	headers["Content-Disposition"] = m{"description": `attachment; filename="` + x.name + `-<date>.csv", the date (YYYY-MM-DD) in UTC.`, "schema": str()}
	headers["Cache-Control"] = m{"description": "private, no-store: no cache keeps a copy.", "schema": str()}
	headers["X-Content-Type-Options"] = m{"description": "nosniff.", "schema": m{"type": "string", "enum": []string{"nosniff"}}}
	content = m{"text/csv": m{"schema": m{"type": "string", "description": "The header row is: " + header}}}
	return content, headers
}
