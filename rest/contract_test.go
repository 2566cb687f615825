package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
)

// The server reads a body as JSON whatever Content-Type it comes with, or
// none (the connector reads form fields when the Content-Type says so).
// Every exchange here passes the conformance check, which reports a
// request the server accepted and the document forbids: so the document
// admits each of these bodies, and a validating proxy forwards them.
func TestBodiesWithoutJSONContentType(t *testing.T) {
	f := newConnectorFixture(t)
	e := f.e
	stage := idsOf(e.Get("/v1/stages", f.dialer))[1]
	event := map[string]any{"externalCallId": "ct-1", "userId": f.agent, "eventType": "call_started", "occurredAt": "2026-11-22T09:00:00Z"}
	var lead string
	for _, c := range []struct {
		name, method, path, contentType string
		body                            func() any
		key                             string
		want                            int
	}{
		{"create without", "POST", "/v1/leads", "", func() any { return map[string]any{"businessName": "No Type Co"} }, f.dialer, http.StatusCreated},
		{"patch as text", "PATCH", "/v1/leads/{lead}", "text/plain", func() any { return map[string]any{"industry": "Freight"} }, f.dialer, http.StatusOK},
		// curl -d sends application/x-www-form-urlencoded unless told otherwise.
		{"move as curl -d", "POST", "/v1/leads/{lead}/stage", "application/x-www-form-urlencoded", func() any { return map[string]any{"stageId": stage} }, f.dialer, http.StatusOK},
		{"call event without", "POST", "/v1/dialer/events", "", func() any { return event }, f.dialer, http.StatusCreated},
		{"alias event without", "POST", "/v1/dialer/events", "", func() any {
			return map[string]any{"call_id": "ct-2", "agent_id": f.agent, "event_type": "call_started", "timestamp": 1795341600}
		}, f.dialer, http.StatusCreated},
		{"connector without", "POST", f.path, "", func() any {
			return map[string]any{"type": "call_event", "call_id": "ct-3", "agent_id": f.agent, "event_type": "hold", "timestamp": "2026-11-22T09:01:00Z"}
		}, "", http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := resttest.Request{Method: c.method, Path: strings.ReplaceAll(c.path, "{lead}", lead), Key: c.key, Body: c.body()}
			if c.contentType == "" {
				req.Omit = []string{"Content-Type"}
			} else {
				req.Header = map[string]string{"Content-Type": c.contentType}
			}
			r := e.Do(req)
			mustStatus(t, r, c.want)
			if lead == "" {
				lead = r.Data()["id"].(string)
			}
		})
	}
}

// Every body the document describes is admitted under any Content-Type,
// or none, without a schema a validator would hold the raw text to (the
// body is the application/json schema's, as the description says), and a
// JSON Content-Type with parameters selects the JSON schema.
func TestDocumentAdmitsAnyBodyContentType(t *testing.T) {
	doc, err := rest.LoadOpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	bodies := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody == nil {
				continue
			}
			bodies++
			body := op.RequestBody.Value
			want := schemaJSON(t, body.Content.Get("application/json"))
			if got := body.Content.Get("application/json; charset=utf-8"); got == nil || schemaJSON(t, got) != want {
				t.Errorf("%s %s: application/json; charset=utf-8 is not the JSON body", method, path)
			}
			for _, ct := range []string{"", "text/plain", "application/xml"} {
				if got := body.Content.Get(ct); got == nil || got.Schema != nil {
					t.Errorf("%s %s: a body with Content-Type %q is refused or held to a schema", method, path, ct)
				}
			}
			if !strings.Contains(body.Description, "read as JSON") {
				t.Errorf("%s %s: the body's description does not say how it is read: %q", method, path, body.Description)
			}
		}
	}
	if bodies < 15 {
		t.Fatalf("only %d request bodies", bodies)
	}
}

func schemaJSON(t *testing.T, mt *openapi3.MediaType) string {
	t.Helper()
	raw, err := json.Marshal(mt.Schema)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// SVC-API-Version is a plain string in the document: a validating proxy
// lets any value through to the server, which answers an unsupported one
// with its documented 400.
func TestUnsupportedAPIVersionReachesTheServer(t *testing.T) {
	doc, err := rest.LoadOpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	doc.Servers = nil
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	e := resttest.New(t)
	for _, v := range []string{"1999-01-01", "2026-11-1", "latest", rest.APIVersion} {
		t.Run(v, func(t *testing.T) {
			req, err := http.NewRequest("GET", "http://svc.example/v1/leads?limit=5", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set(rest.APIVersionHeader, v)
			route, params, err := router.FindRoute(req)
			if err != nil {
				t.Fatal(err)
			}
			in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
				Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
			if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
				t.Fatalf("the document refuses %s: %s: %v", rest.APIVersionHeader, v, err)
			}
			r := e.Do(resttest.Request{Method: "GET", Path: "/v1/leads?limit=5", Key: e.Key, Header: map[string]string{rest.APIVersionHeader: v}})
			if v == rest.APIVersion {
				mustStatus(t, r, http.StatusOK)
				return
			}
			mustError(t, r, http.StatusBadRequest, "BAD_REQUEST", rest.APIVersionHeader)
		})
	}
}
