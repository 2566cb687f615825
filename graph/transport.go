package graph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

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
		writeRequestError(w, http.StatusBadRequest, apperr.New(apperr.BadRequest, "the request body could not be read"))
		return
	}
	if err := checkRequest(body); err != nil {
		writeRequestError(w, http.StatusBadRequest, err)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	t.POST.Do(w, r, inputErrors{exec})
}

// getTransport is gqlgen's GET transport behind the same strict reading:
// a query string whose variables or extensions are not JSON objects (or
// that cannot be parsed at all) is 400 BAD_REQUEST naming the parameter.
type getTransport struct{ transport.GET }

var _ graphql.Transport = getTransport{}

func (t getTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	if err := checkQueryString(r.URL.RawQuery); err != nil {
		writeRequestError(w, http.StatusBadRequest, err)
		return
	}
	t.GET.Do(w, r, inputErrors{exec})
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

// writeRequestError answers a request that never reached GraphQL, in
// GraphQL's shape.
func writeRequestError(w http.ResponseWriter, status int, e *apperr.Error) {
	gqlErr := codedError(e.Code, "%s", e.Message)
	if e.Field != "" {
		gqlErr.Extensions["field"] = e.Field
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(graphql.Response{Errors: gqlerror.List{gqlErr}})
}
