package rest

import (
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/reqbody"
)

// A request body's component is generated from the struct its handler
// decodes into, as a view's is from the struct the handler encodes, and
// with the same tags (openapi_views.go); bound names its member's entry of
// bounds.Fields. Every member of a request may be omitted unless the body
// lists it as required, as its handler checks.
type requestBody struct {
	name     string
	body     any
	required []string
	closed   bool // a member the struct does not name is refused (422), so additionalProperties is false
}

// requestBodies are the request bodies with a component of their own.
var requestBodies = []requestBody{
	{name: "LeadCreate", body: reqbody.CreateLead{}, closed: true},
	{name: "LeadPatch", body: reqbody.LeadFields{}, closed: true},
	{name: "SubscriptionCreate", body: subscriptionCreate{}, required: []string{"url", "events"}},
	{name: "SubscriptionPatch", body: subscriptionPatch{}},
	{name: "ReplayRequest", body: replayRequest{}},
	{name: "InboundEndpointCreate", body: inboundCreate{}, required: []string{"name"}},
	{name: "InboundEndpointPatch", body: inboundPatch{}},
	{name: "AutomationCreate", body: automationBody{}, required: []string{"name", "trigger", "actions"}, closed: true},
	{name: "AutomationPatch", body: automationBody{}, closed: true},
	{name: "SignIn", body: signInBody{}, required: []string{"email", "password"}},
}

// stageBody is the body of POST /v1/leads/{id}/stage, assignBody of
// POST /v1/leads/{id}/assign (pathAndBodyID reads them).
type (
	stageBody struct {
		StageID uuid.UUID `json:"stageId"`
	}
	assignBody struct {
		AdvisorID uuid.UUID `json:"advisorId"`
	}
)

// schema is the request body's component.
func (b requestBody) schema(g viewGenerator) m {
	s := g.schema(b.body)
	delete(s, "required")
	if len(b.required) > 0 {
		s["required"] = b.required
	}
	if b.closed {
		s["additionalProperties"] = false
	}
	return s
}

// inlineBody is the schema of a body without a component, every member
// required.
func inlineBody(body any) m { return generator().schema(body) }

func inboundMapping() m {
	return m{"type": "object", "additionalProperties": m{"type": "string"},
		"description": "Target field → JSONPath into the received body, e.g. {\"businessName\": \"$.company.name\"}."}
}
