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
	authSession   // /auth: the session cookie of a person signed in
)

// operation is one entry of the route table (route_table.go): the route
// V1 mounts, with its handler, and the operation the OpenAPI document
// renders from the same entry. Its error responses follow from
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
	// csv answers an export's CSV, not JSON.
	csv csvExport
	// location describes the Location header of a redirect (status 302).
	location string
	// openQuery takes query parameters besides those documented: single
	// sign-on's callback, to which the provider may add its own (iss,
	// scope, session_state).
	openQuery bool
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
		out["security"] = []m{{"bearerAuth": []string{}}, {"sessionCookie": []string{}}}
		if o.scope != "" {
			out["x-required-scope"] = o.scope
		}
	case authSignature:
		out["security"] = []m{{"inboundSignature": []string{}}, {"inboundSignatureAlt": []string{}}}
	case authSession:
		out["security"] = []m{{"sessionCookie": []string{}}}
	default:
		out["security"] = []m{}
	}
	if o.body != nil {
		out["requestBody"] = o.requestBody()
	}
	responses := m{}
	success := m{"description": o.resultDesc, "headers": headerRefs()}
	if o.location != "" {
		success["headers"].(m)["Location"] = m{"description": o.location, "required": true, "schema": str()}
	}
	if o.result != nil {
		media := m{"schema": o.result}
		if o.example != nil {
			media["example"] = o.example
		}
		success["content"] = m{"application/json": media}
	}
	if o.csv.name != "" {
		success["content"], success["headers"] = o.csv.content()
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
	if o.auth == authBearer || o.auth == authSession {
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
