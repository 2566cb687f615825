package rest

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
)

// authKind is how an operation authenticates its caller.
type authKind int

const (
	authBearer authKind = iota
	authPublic
	authSignature // inbound webhooks: HMAC of the body
	authPathToken // the connector: the organization's token in the path
)

// operation is one documented endpoint. Its error responses follow from
// what it takes: every operation can meet a bad SVC-API-Version (400), the
// rate limit (429) and an unreachable database (503); a bearer operation
// 401 and 403; a body 413 and 422; a path id 404; a query parameter it does
// not take 422; an Idempotency-Key 409 and 422.
type operation struct {
	method, path, id string
	// serve handles the operation; nil for the probes the HTTP root serves
	// itself (metaOperations).
	serve               errorHandler
	tag, summary, desc  string
	auth                authKind
	scope               string
	params              []m
	body                m    // JSON request body schema
	form                bool // the body may be form-encoded too
	idem                bool
	status              int
	result              m // success body schema; nil for none
	resultDesc          string
	example             any   // success body example; nil for none
	errs                []int // further error statuses
	unavailableAsResult bool  // 503 answers with the result's shape
	callbacks           m
	// download answers a file's bytes (downloadResponses), not JSON.
	download bool
}

func (o operation) render() m {
	out := m{"operationId": o.id, "tags": []string{o.tag}, "summary": o.summary, "description": o.describe()}
	params := []m{paramRef("APIVersion"), paramRef("RequestID")}
	if o.idem {
		params = append(params, paramRef("IdempotencyKey"))
	}
	out["parameters"] = append(params, o.params...)
	switch o.auth {
	case authBearer:
		out["security"] = []m{{"bearerAuth": []string{}}}
		if o.scope != "" {
			out["x-required-scope"] = o.scope
		}
	case authSignature:
		out["security"] = []m{{"inboundSignature": []string{}}, {"inboundSignatureAlt": []string{}}}
	default:
		out["security"] = []m{}
	}
	if o.body != nil {
		out["requestBody"] = o.requestBody()
	}
	responses := m{}
	success := m{"description": o.resultDesc, "headers": headerRefs()}
	if o.result != nil {
		media := m{"schema": o.result}
		if o.example != nil {
			media["example"] = o.example
		}
		success["content"] = m{"application/json": media}
	}
	responses[fmt.Sprint(o.status)] = success
	if o.download {
		maps.Copy(responses, downloadResponses(o.method == http.MethodHead))
	}
	for _, code := range o.errorCodes() {
		responses[fmt.Sprint(code)] = m{"$ref": "#/components/responses/" + errorStatuses[code].name}
	}
	if o.unavailableAsResult {
		responses["503"] = m{"description": "The database is unreachable; the same shape, with the depths null.",
			"headers": headerRefs(), "content": m{"application/json": m{"schema": o.result}}}
	}
	out["responses"] = responses
	if o.callbacks != nil {
		out["callbacks"] = o.callbacks
	}
	return out
}

// requestBody is the operation's body under every Content-Type the server
// reads it with. The server reads a body as JSON whatever Content-Type it
// is sent with, or none (only the connector reads form fields, when the
// Content-Type says so), so a validating proxy must not refuse a body for
// its Content-Type. The */* entry admits any, without a schema: validators
// parse a body by its Content-Type, and would read JSON sent as text/plain
// (or with none) as a string, which the JSON schema refuses.
func (o operation) requestBody() m {
	content := m{"application/json": m{"schema": o.body}, "*/*": m{}}
	desc := "JSON (the application/json schema); sent with another Content-Type, or none, the body is read as JSON all the same."
	if o.form {
		content["application/x-www-form-urlencoded"] = m{"schema": o.body}
		desc = "JSON (the application/json schema), or form fields when the Content-Type is application/x-www-form-urlencoded; sent with another Content-Type, or none, the body is read as JSON."
	}
	return m{"required": true, "description": desc, "content": content}
}

func (o operation) describe() string {
	d := o.desc
	if d == "" {
		d = o.summary + "."
	}
	switch {
	case o.auth == authBearer && o.scope == "":
		d += " Any API key of the organization may call it."
	case o.auth == authBearer:
		d += fmt.Sprintf(" Needs the %s scope.", o.scope)
	case o.auth == authPublic:
		d += " Public: no authentication."
	}
	return d
}

func (o operation) errorCodes() []int {
	codes := []int{http.StatusBadRequest, http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusServiceUnavailable}
	if o.auth == authBearer {
		codes = append(codes, http.StatusUnauthorized, http.StatusForbidden)
	}
	if o.body != nil {
		codes = append(codes, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity)
	}
	if strings.Contains(o.path, "{") {
		codes = append(codes, http.StatusNotFound)
	}
	// Any /v1 operation: a query parameter it does not take (checkQuery).
	if strings.HasPrefix(o.path, "/v1/") {
		codes = append(codes, http.StatusUnprocessableEntity)
	}
	if o.idem {
		codes = append(codes, http.StatusConflict, http.StatusUnprocessableEntity)
	}
	codes = append(codes, o.errs...)
	slices.Sort(codes)
	return slices.Compact(codes)
}

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

// deliveryCallback documents an outbound delivery (SPEC 5.6, 6).
func deliveryCallback() m {
	var events []m
	for _, name := range eventSchemaNames() {
		events = append(events, sRef(name))
	}
	h := func(name, desc string) m {
		return m{"name": name, "in": "header", "required": true, "description": desc, "schema": str()}
	}
	return m{
		"operationId": "deliverEvent",
		"summary":     "An event delivered to the subscription's url",
		"description": "Signed with the subscription's secret: X-Webhook-Signature = sha256=<hex HMAC-SHA256 of \"<X-Webhook-Timestamp>.<raw body>\">. Reject timestamps more than 300 seconds from now and deduplicate by X-Webhook-Id. A non-2xx answer or none within 10 seconds is retried after 1, 5, 30 and 60 minutes; after 5 failed attempts the delivery is dead-lettered, and after 50 consecutive failures the subscription is paused.",
		"parameters": []m{
			h(headerWebhookID, "Unique delivery id (msg_<uuid>); the same on every attempt, for deduplication."),
			h(headerTimestamp, "Unix seconds of sending."),
			h(headerSignature, "sha256=<hex>."),
		},
		"requestBody": m{"required": true, "content": m{"application/json": m{"schema": m{"oneOf": events}}}},
		"responses":   m{"2XX": m{"description": "Received; any other answer is a failed attempt."}},
	}
}
