package rest

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// The OpenAPI document is built from code, not kept beside it: enums, limits,
// aliases and event payloads come from the same values the handlers and the
// ent rules use, so the document cannot drift from them. The REST tests
// check every response against it (resttest's validating client).

// m is a JSON object under construction.
type m = map[string]any

// OpenAPIDocument returns the served document, built once. A description
// the generator cannot turn into a schema (a tag naming no enumeration, a
// type it does not know) is an error here, which svc serve reports before
// it listens, not a panic on each request.
func OpenAPIDocument() ([]byte, error) {
	built.once.Do(func() { built.raw, built.err = encodeOpenAPI() })
	return built.raw, built.err
}

// built holds the document once encoded. It is no sync.OnceValues
// variable: the route table names this document's handler, so a variable
// initialized from the table would depend on itself.
var built struct {
	once sync.Once
	raw  []byte
	err  error
}

func encodeOpenAPI() (raw []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			raw, err = nil, fmt.Errorf("building the OpenAPI document: %v", p)
		}
	}()
	raw, err = json.Marshal(buildOpenAPI())
	if err != nil {
		return nil, fmt.Errorf("encoding the OpenAPI document: %w", err)
	}
	return raw, nil
}

// LoadOpenAPI parses and validates the document, as integrators' tools will.
func LoadOpenAPI() (*openapi3.T, error) {
	raw, err := OpenAPIDocument()
	if err != nil {
		return nil, err
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("loading the OpenAPI document: %w", err)
	}
	return doc, nil
}

// openAPIHandler serves GET /v1/openapi.json (public).
func openAPIHandler(w http.ResponseWriter, r *http.Request) error {
	raw, err := OpenAPIDocument()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(raw)
	return nil
}

func buildOpenAPI() m {
	paths := m{}
	for _, o := range operations() {
		item, _ := paths[o.path].(m)
		if item == nil {
			item = m{}
			paths[o.path] = item
		}
		item[strings.ToLower(o.method)] = o.render()
	}
	return m{
		"openapi": "3.0.3",
		"info": m{
			"title":       "Lending pipeline API",
			"version":     APIVersion,
			"description": apiDescription,
			"contact":     m{"name": "API support", "url": "https://lendingpipe.example/support"},
			"license":     m{"name": "Proprietary", "url": "https://lendingpipe.example/terms"},
		},
		"servers": []m{{"url": "/", "description": "This server; every path begins with /v1 (the major version)."}},
		"tags":    tags(),
		"paths":   paths,
		"components": m{
			"securitySchemes": securitySchemes(),
			"parameters":      sharedParameters(),
			"headers":         responseHeaders(),
			"responses":       errorResponses(),
			"schemas":         schemas(),
		},
	}
}

const apiDescription = `REST surface of the lending-pipeline service. Responses use three envelopes:
a single resource {data: {id, type, attributes}, meta: {requestId}}, a collection
{data: [...], meta: {total, page, limit, hasMore, requestId}} and errors
{errors: [{code, message, detail}], meta: {requestId}}. Every response carries
SVC-API-Version, X-Request-Id and the X-RateLimit-* headers. A client may pin an API
version with the SVC-API-Version request header. Outbound webhook deliveries are
described as callbacks of POST /v1/app-webhooks; their payloads are the *Event schemas.`

func tags() []m {
	return []m{
		{"name": "leads", "description": "Leads: potential borrowers moving through the pipeline."},
		{"name": "organization", "description": "The organization's pipeline stages, users and teams: the ids the other operations take."},
		{"name": "lending", "description": "Lenders, applications, funded deals and commissions: read-only here; GraphQL mutations write them."},
		{"name": "analytics", "description": "The reports: the pipeline and its funnel, funding, lenders, commissions and the dialer, over a range in a time zone."},
		{"name": "dialer", "description": "Call events, dispositions, agent presence and the agents board."},
		{"name": "connector", "description": "The dialer vendor's connector receiver, authenticated by a path token."},
		{"name": "webhooks", "description": "Outbound webhook subscriptions, deliveries and the event catalog."},
		{"name": "inbound", "description": "Inbound webhook endpoints and the HMAC-verified receiver."},
		{"name": "automations", "description": "Automations triggered by inbound webhooks or events, and their runs."},
		{"name": "apps", "description": "The apps installed by the organization; GraphQL registers, installs and uninstalls them."},
		{"name": "tasks", "description": "Follow-ups on leads, each assigned to a user and due at a time: listed here; GraphQL creates, changes, completes and reopens them."},
		{"name": "renewals", "description": "Funded deals whose merchant may renew: the queue, earliest eligible first; a renewal starts as an application (submitApplication with renewalOfDealId)."},
		{"name": "exports", "description": "Each list's every row as a CSV file, streamed: leads, applications, funded deals and commissions."},
		{"name": "documents", "description": "The files attached to leads, applications and funded deals: downloads here; GraphQL uploads and lists them."},
		{"name": "sign-in", "description": "People signing in to the console, with a password or single sign-on: the session cookie, beside the API keys integrators send."},
		{"name": "meta", "description": "Health, status and this document."},
	}
}

func securitySchemes() m {
	return m{
		"bearerAuth": m{"type": "http", "scheme": "bearer", "bearerFormat": "svc_{prefix}_{secret}",
			"description": "An API key (svc_live_...) or app token (svc_at_...). Each operation names the scope it needs in x-required-scope."},
		"sessionCookie": m{"type": "apiKey", "in": "cookie", "name": "svc_session",
			"description": "The session of a person signed in (POST /auth/sign-in), with the role's scopes. Every request that can change anything (any method but GET, HEAD and OPTIONS) also carries the session's X-CSRF-Token, else 403. A request with a Bearer credential uses it instead."},
		"inboundSignature": m{"type": "apiKey", "in": "header", "name": "X-svc-Signature",
			"description": "HMAC-SHA256 of the raw body (or of \"<X-Webhook-Timestamp>.<raw body>\" when that header is sent) with the endpoint's secret, hex, optionally prefixed sha256=."},
		"inboundSignatureAlt": m{"type": "apiKey", "in": "header", "name": "X-Webhook-Signature",
			"description": "The same signature under the name this service's own deliveries use."},
	}
}

// sharedParameters are referenced by name from the operations.
func sharedParameters() m {
	page := m{"type": "integer", "minimum": 1, "maximum": maxPage, "default": 1}
	limit := m{"type": "integer", "minimum": 1, "maximum": maxLimit, "default": defaultLimit}
	return merge(reportParameters(), m{
		// A plain string, not an enum of the supported versions: the server
		// answers any other value 400 with the versions it serves, and a
		// validating proxy reading an enum would refuse the request first.
		"APIVersion": m{"name": APIVersionHeader, "in": "header", "required": false,
			"description": fmt.Sprintf("Pin the API version, a date (YYYY-MM-DD); this build serves %s. Any other value is answered 400 BAD_REQUEST with detail.supportedVersions.",
				strings.Join(SupportedVersions, ", ")),
			"schema": m{"type": "string", "example": APIVersion}},
		"RequestID": m{"name": "X-Request-Id", "in": "header", "required": false,
			"description": "A UUID to correlate the request; echoed in X-Request-Id and meta.requestId. Anything else is replaced by a fresh UUID.",
			"schema":      m{"type": "string"}},
		"IdempotencyKey": m{"name": IdempotencyHeader, "in": "header", "required": false,
			"description": "Makes a retry safe: the first response is stored for 24 hours and replayed (with Idempotent-Replayed: true) to a retry with the same key and body. The same key with another body is 422 IDEMPOTENCY_KEY_REUSED; while the first request runs, 409 IDEMPOTENCY_KEY_IN_USE.",
			"schema":      m{"type": "string", "minLength": 1, "maxLength": maxIdempotencyKey, "pattern": `^[\x21-\x7e]+$`}},
		"Page":  m{"name": "page", "in": "query", "required": false, "description": "1-indexed page number.", "schema": page},
		"Limit": m{"name": "limit", "in": "query", "required": false, "description": "Items per page.", "schema": limit},
	})
}

// commonHeaders are on every response (SPEC 4).
var commonHeaders = []string{APIVersionHeader, "X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Idempotent-Replayed"}

func responseHeaders() m {
	h := func(desc string, schema m, required bool) m {
		return m{"description": desc, "required": required, "schema": schema}
	}
	intS := m{"type": "integer", "minimum": 0}
	return m{
		APIVersionHeader:        h("The API version (a date) the response follows.", m{"type": "string", "pattern": `^\d{4}-\d{2}-\d{2}$`}, true),
		"X-Request-Id":          h("Correlation id of the request, also in meta.requestId.", m{"type": "string", "format": "uuid"}, true),
		"X-RateLimit-Limit":     h("Requests allowed per window for this API key (or client address when unauthenticated).", intS, true),
		"X-RateLimit-Remaining": h("Requests left in the current window.", intS, true),
		"X-RateLimit-Reset":     h("Unix time (seconds) at which the window resets.", intS, true),
		"Idempotent-Replayed":   h("true when the response is a stored replay for an Idempotency-Key.", m{"type": "string", "enum": []string{"true"}}, false),
		"Retry-After":           h("Seconds to wait before retrying.", intS, true),
		"WWW-Authenticate": h(`How to authenticate (RFC 6750): Bearer, with error="invalid_token" when the request's bearer token was refused.`,
			m{"type": "string", "pattern": `^Bearer( error="invalid_token")?$`}, true),
	}
}

func headerRefs(extra ...string) m {
	out := m{}
	for _, name := range append(slices.Clone(commonHeaders), extra...) {
		out[name] = m{"$ref": "#/components/headers/" + name}
	}
	return out
}

// errorStatuses names the shared error responses; each carries the error
// envelope and the common headers.
var errorStatuses = map[int]struct{ name, desc string }{
	400: {"BadRequest", "Malformed JSON, a body that is not an object, an object that repeats a member name (detail.field names it), or an unsupported SVC-API-Version (BAD_REQUEST)."},
	401: {"Unauthorized", "Missing or invalid credentials (UNAUTHORIZED)."},
	403: {"Forbidden", "The API key lacks the scope the operation needs (FORBIDDEN)."},
	404: {"NotFound", "No such resource in the caller's organization (NOT_FOUND)."},
	409: {"Conflict", "The resource's state forbids the operation, or the Idempotency-Key is in use (CONFLICT, IDEMPOTENCY_KEY_IN_USE)."},
	413: {"PayloadTooLarge", "The body exceeds 1 MiB (PAYLOAD_TOO_LARGE)."},
	422: {"ValidationError", "A field failed validation; detail.field names it (VALIDATION_ERROR, IDEMPOTENCY_KEY_REUSED)."},
	429: {"RateLimited", "Too many requests in the window (RATE_LIMITED); Retry-After says when to retry."},
	500: {"InternalError", "An unexpected failure (INTERNAL_ERROR); the message carries no internals."},
	503: {"Unavailable", "The database is unreachable (SERVICE_UNAVAILABLE); retry later."},
}

func errorResponses() m {
	out := m{}
	for code, e := range errorStatuses {
		var extra []string
		switch code {
		case http.StatusTooManyRequests:
			extra = append(extra, "Retry-After")
		case http.StatusUnauthorized:
			extra = append(extra, "WWW-Authenticate")
		}
		out[e.name] = m{"description": e.desc, "headers": headerRefs(extra...),
			"content": m{"application/json": m{"schema": sRef("ErrorEnvelope")}}}
	}
	return out
}

// sortedKeys is for deterministic output where order matters to readers.
func sortedKeys(x m) []string { return slices.Sorted(maps.Keys(x)) }
