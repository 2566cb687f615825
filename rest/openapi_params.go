package rest

import "slices"

// The parameters the route table's operations take.

func paramRef(name string) m { return m{"$ref": "#/components/parameters/" + name} }

func pathParam(name, desc string, schema m) m {
	return m{"name": name, "in": "path", "required": true, "description": desc, "schema": schema}
}

func docQuery(name, desc string, schema m) m {
	return m{"name": name, "in": "query", "required": false, "description": desc, "schema": schema}
}

func headerParam(name, desc string, schema m) m {
	return m{"name": name, "in": "header", "required": false, "description": desc, "schema": schema}
}

var (
	leadIDParam       = pathParam("id", "The lead's id.", uuidS())
	subIDParam        = pathParam("id", "The subscription's id (whsub_<uuid>; the bare UUID is accepted).", str())
	inboundIDParam    = pathParam("id", "The inbound endpoint's id.", uuidS())
	automationIDParam = pathParam("id", "The automation's id.", uuidS())
	pagingParams      = []m{paramRef("Page"), paramRef("Limit")}
)

// rangeBound describes a range filter's value, read as the reports read theirs.
const rangeBound = "a date-time (RFC 3339, any precision and offset), or a date (2026-01-01), a whole day in the organization's time zone."

func paged(extra ...m) []m { return append(slices.Clone(pagingParams), extra...) }
