package resttest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/lendingpipe/svc/documents"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/root"
)

// Conformance checks traffic against the served OpenAPI document: every
// response must be one the document describes for its operation (status,
// headers, body), in a strict reading where objects carry no members the
// document does not name; a request the document forbids must not succeed;
// and no response is a 500.
type Conformance struct {
	router routers.Router
	doc    *openapi3.T
}

var loadStrict = sync.OnceValues(func() (*Conformance, error) {
	// A download's bytes are checked as the binary string the document
	// says they are, whatever their type.
	for _, t := range documents.Types {
		if !strings.HasPrefix(t, "text/") {
			openapi3filter.RegisterBodyDecoder(t, openapi3filter.FileBodyDecoder)
		}
	}
	openapi3filter.RegisterBodyDecoder("multipart/byteranges", openapi3filter.FileBodyDecoder)
	doc, err := rest.LoadOpenAPI()
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("the OpenAPI document is invalid: %w", err)
	}
	closeObjects(doc)
	doc.Servers = nil // match any host: the test server's port changes
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("routing the OpenAPI document: %w", err)
	}
	return &Conformance{router: router, doc: doc}, nil
})

// StrictConformance returns the checker for the served document.
func StrictConformance() (*Conformance, error) { return loadStrict() }

// closeObjects forbids undocumented members: every object schema that lists
// properties and says nothing of others gets additionalProperties false.
// The served document stays open, so clients tolerate additions.
func closeObjects(doc *openapi3.T) {
	seen := map[*openapi3.Schema]bool{}
	var visit func(ref *openapi3.SchemaRef)
	visit = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		if len(s.Properties) > 0 && s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil {
			no := false
			s.AdditionalProperties.Has = &no
		}
		for _, p := range s.Properties {
			visit(p)
		}
		visit(s.Items)
		visit(s.AdditionalProperties.Schema)
		for _, group := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
			for _, sub := range group {
				visit(sub)
			}
		}
	}
	for _, s := range doc.Components.Schemas {
		visit(s)
	}
}

// Wrap returns h checked: report receives each violation.
func (c *Conformance) Wrap(h http.Handler, report func(error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// GraphQL, the metrics and the browser's pages are outside the
		// contract; any other method on those paths is still checked.
		if root.OutsideContract(r.Method, r.URL.Path) {
			h.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			report(fmt.Errorf("%s %s: reading the request: %w", r.Method, r.URL.Path, err))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for _, err := range c.Check(r, body, rec.Result()) {
			report(fmt.Errorf("%s %s → %d: %w", r.Method, r.URL.Path, rec.Code, err))
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// Check returns what is wrong with one exchange.
func (c *Conformance) Check(r *http.Request, reqBody []byte, resp *http.Response) []error {
	respBody, err := decodedBody(resp)
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	if resp.StatusCode == http.StatusInternalServerError {
		errs = append(errs, errors.New("a 500: the server failed"))
	}
	req := r.Clone(context.Background())
	req.Body = io.NopCloser(bytes.NewReader(reqBody))
	req.URL.Scheme, req.URL.Host = "http", r.Host
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		// Not a documented operation: the answer must be 404 or 405 in
		// the error envelope.
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
			errs = append(errs, fmt.Errorf("undocumented operation answered %d", resp.StatusCode))
		}
		return append(errs, c.checkErrorBody(resp, respBody)...)
	}
	readAsJSON(req, route.Operation)
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil && resp.StatusCode < 400 {
		errs = append(errs, fmt.Errorf("the server accepted a request the document forbids: %w", err))
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	out.SetBodyBytes(respBody)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		errs = append(errs, err)
	}
	if res := route.Operation.Responses.Status(resp.StatusCode); res != nil && res.Value != nil {
		errs = append(errs, undocumentedHeaders(resp.Header, res.Value.Headers)...)
	}
	return errs
}

// decodedBody is resp's body as the handler wrote it: a gzip answer is
// held to the document by what it decodes to.
func decodedBody(resp *http.Response) ([]byte, error) {
	raw, _ := io.ReadAll(resp.Body)
	if resp.Header.Get("Content-Encoding") != "gzip" {
		return raw, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return raw, fmt.Errorf("a gzip answer that does not decode: %w", err)
	}
	return io.ReadAll(zr)
}

// readAsJSON gives req the Content-Type application/json when the
// operation's body lists none of its own for req's (or req has none), and
// the document's */* entry says such a body is read as JSON, as the server
// reads it. The body is then held to the JSON schema: kin-openapi would
// otherwise decode it by the Content-Type it came with (a form, text).
func readAsJSON(req *http.Request, op *openapi3.Operation) {
	if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
		return
	}
	content := op.RequestBody.Value.Content
	if wildcard := content["*/*"]; wildcard != nil && content.Get(req.Header.Get("Content-Type")) == wildcard {
		req.Header.Set("Content-Type", "application/json")
	}
}

// checkErrorBody checks a response outside any operation: error envelope
// and the headers every response carries.
func (c *Conformance) checkErrorBody(resp *http.Response, body []byte) []error {
	res := c.doc.Components.Responses["NotFound"].Value
	var errs []error
	for name, h := range res.Headers {
		if h.Value.Required && resp.Header.Get(name) == "" {
			errs = append(errs, fmt.Errorf("header %s is missing", name))
		}
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return append(errs, fmt.Errorf("the body is not JSON: %w", err))
	}
	if err := c.doc.Components.Schemas["ErrorEnvelope"].Value.VisitJSON(v); err != nil {
		errs = append(errs, fmt.Errorf("not the error envelope: %w", err))
	}
	return errs
}

// ourHeader tells the headers this service sets from the ones HTTP does.
func ourHeader(name string) bool {
	n := http.CanonicalHeaderKey(name)
	return strings.HasPrefix(n, "X-") || strings.HasPrefix(n, "Svc-") || n == "Retry-After" || strings.HasPrefix(n, "Idempotent")
}

func undocumentedHeaders(got http.Header, documented openapi3.Headers) []error {
	known := map[string]bool{}
	for name := range documented {
		known[http.CanonicalHeaderKey(name)] = true
	}
	var errs []error
	for name := range got {
		if ourHeader(name) && !known[http.CanonicalHeaderKey(name)] {
			errs = append(errs, fmt.Errorf("header %s is not documented for this response", name))
		}
	}
	return errs
}
