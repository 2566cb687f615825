package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/bounds"
)

// postTransport is gqlgen's POST transport behind a strict reading of the
// body: a body that cannot be read or is not a GraphQL request object is
// the caller's error (400 BAD_REQUEST), never an internal one, and is not
// echoed back. The HTTP surface has read the body whole by then, and
// answered 413 for one over its limit however it was sent.
type postTransport struct{ transport.POST }

var _ graphql.Transport = postTransport{}

// graphqlRequest is the body of a GraphQL POST, with the types it must have.
type graphqlRequest struct {
	Query         string         `json:"query"`
	OperationName string         `json:"operationName"`
	Variables     map[string]any `json:"variables"`
	Extensions    map[string]any `json:"extensions"`
}

func (t postTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		WriteRequestError(w, r, http.StatusBadRequest, apperr.New(apperr.BadRequest, "the request body could not be read"))
		return
	}
	if err := checkRequest(body); err != nil {
		WriteRequestError(w, r, http.StatusBadRequest, err)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	refused := &refusalWriter{ResponseWriter: w}
	t.POST.Do(refused, r, refusalWatch{inputErrors{exec}, refused})
}

// getTransport is gqlgen's GET transport behind the same strict reading:
// a query string whose variables or extensions are not JSON objects (or
// that cannot be parsed at all) is 400 BAD_REQUEST naming the parameter.
type getTransport struct{ transport.GET }

var _ graphql.Transport = getTransport{}

func (t getTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	if err := checkQueryString(r.URL.RawQuery); err != nil {
		WriteRequestError(w, r, http.StatusBadRequest, err)
		return
	}
	refused := &refusalWriter{ResponseWriter: w}
	t.GET.Do(refused, r, refusalWatch{inputErrors{exec}, refused})
}

// checkQueryString checks the parameters of a GraphQL GET request.
func checkQueryString(raw string) *apperr.Error {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return apperr.New(apperr.BadRequest, "the query string could not be parsed")
	}
	for _, name := range []string{"variables", "extensions"} {
		v := q.Get(name)
		if v == "" {
			continue
		}
		var obj map[string]any
		if json.Unmarshal([]byte(v), &obj) != nil {
			return &apperr.Error{Code: apperr.BadRequest, Field: name, Message: fmt.Sprintf("%s must be a JSON object", name)}
		}
		if path := bounds.DuplicateMember([]byte(v)); path != "" {
			e, _ := apperr.As(bounds.DuplicateError(name + "." + path))
			return e
		}
	}
	return nil
}

// checkRequest decodes body as one GraphQL request object.
func checkRequest(body []byte) *apperr.Error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var req graphqlRequest
	if err := dec.Decode(&req); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return &apperr.Error{Code: apperr.BadRequest, Field: te.Field,
				Message: fmt.Sprintf("%s must be a JSON %s, not %s", te.Field, expectedJSON(te.Field), te.Value)}
		}
		return apperr.New(apperr.BadRequest, "the body must be a JSON object with a query string")
	}
	if _, err := dec.Token(); err != io.EOF {
		return apperr.New(apperr.BadRequest, "the body must hold one JSON object")
	}
	// As on every REST body: which of two same-named members was meant
	// (two queries, two values of one variable) is ambiguous.
	if path := bounds.DuplicateMember(body); path != "" {
		e, _ := apperr.As(bounds.DuplicateError(path))
		return e
	}
	return nil
}

func expectedJSON(field string) string {
	if field == "query" || field == "operationName" {
		return "string"
	}
	return "object"
}

// WriteRequestError answers a request that never reached GraphQL (a body
// that is not a GraphQL request, a missing or refused API key) in
// GraphQL's shape and in the media type the client accepts, as gqlgen
// answers the requests that do reach it.
func WriteRequestError(w http.ResponseWriter, r *http.Request, status int, e *apperr.Error) {
	gqlErr := codedError(e.Code, "%s", e.Message)
	if e.Field != "" {
		gqlErr.Extensions["field"] = e.Field
	}
	w.Header().Set("Content-Type", ResponseMediaType(r))
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(refusal{Errors: gqlerror.List{gqlErr}}) // the client is gone if this fails
}

// Media types of a GraphQL response over HTTP.
const (
	mediaJSON            = "application/json"
	mediaGraphQLResponse = "application/graphql-response+json"
)

// ResponseMediaType is the media type gqlgen's transports answer r in: the
// first of application/json (also for */*, application/* or no Accept)
// and application/graphql-response+json that r's Accept names, else the
// latter.
func ResponseMediaType(r *http.Request) string {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return mediaJSON
	}
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "*/*", "application/*", mediaJSON:
			return mediaJSON
		case mediaGraphQLResponse:
			return mediaGraphQLResponse
		}
	}
	return mediaGraphQLResponse
}

// refusal is a response to a request refused before execution began: its
// errors and extensions, and no data entry (GraphQL spec, "Response
// Format": if an error was raised before execution begins, the data entry
// should not be present; GraphQL over HTTP says the same of a request
// error in either media type).
type refusal struct {
	Errors     gqlerror.List  `json:"errors"`
	Extensions map[string]any `json:"extensions,omitempty"`
}

// refusalWriter rewrites the body gqlgen writes after the executor
// refused the request before execution (refusalWatch), which gqlgen's
// response type always renders with "data": null, into a refusal.
type refusalWriter struct {
	http.ResponseWriter
	refused bool
}

func (w *refusalWriter) Write(b []byte) (int, error) {
	if !w.refused {
		return w.ResponseWriter.Write(b)
	}
	var r refusal
	if err := json.Unmarshal(b, &r); err != nil {
		return w.ResponseWriter.Write(b) // not the one JSON body gqlgen writes: left as written
	}
	out, err := json.Marshal(r)
	if err != nil {
		return w.ResponseWriter.Write(b)
	}
	if _, err := w.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// refusalWatch tells its writer when gqlgen answers with the executor's
// errors alone: a body it could not decode, a document that does not
// parse or validate, variables that do not coerce, a bound refused.
// Everything else goes through DispatchOperation.
type refusalWatch struct {
	graphql.GraphExecutor
	w *refusalWriter
}

func (e refusalWatch) DispatchError(ctx context.Context, list gqlerror.List) *graphql.Response {
	e.w.refused = true
	return e.GraphExecutor.DispatchError(ctx, list)
}
