package graph_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/lendingpipe/svc/rest/resttest"
)

// GraphQL over HTTP: how /graphql refuses a request, in GraphQL's shape
// and the media type the client asked for.

const graphQLResponseJSON = "application/graphql-response+json"

func TestGraphQLRefusesWithoutAKeyInGraphQLShape(t *testing.T) {
	e := resttest.New(t)
	for _, tc := range []struct {
		name, accept, key, wantType, wantChallenge string
	}{
		{"NoKeyGraphQLResponse", graphQLResponseJSON, "", graphQLResponseJSON, "Bearer"},
		{"NoKeyJSON", "application/json", "", "application/json", "Bearer"},
		{"NoAccept", "", "", "application/json", "Bearer"},
		{"BadKey", graphQLResponseJSON, "svc_live_nosuchkey", graphQLResponseJSON, `Bearer error="invalid_token"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := resttest.Request{Method: "POST", Path: "/graphql", Key: tc.key, Body: map[string]any{"query": "{ __typename }"}}
			if tc.accept != "" {
				req.Header = map[string]string{"Accept": tc.accept}
			}
			r := e.Do(req)
			if r.Status != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401: %s", r.Status, r.Raw)
			}
			if got := r.Header.Get("Content-Type"); !strings.HasPrefix(got, tc.wantType) {
				t.Errorf("Content-Type %q, want %s", got, tc.wantType)
			}
			if got := r.Header.Get("WWW-Authenticate"); got != tc.wantChallenge {
				t.Errorf("WWW-Authenticate %q, want %q", got, tc.wantChallenge)
			}
			if _, ok := r.Body["data"]; ok {
				t.Errorf("a refused request has a data entry: %s", r.Raw)
			}
			if code, msg := firstError(r.Body); code != "UNAUTHORIZED" || msg == "" {
				t.Errorf("errors[0] code %q message %q, want UNAUTHORIZED with a message: %s", code, msg, r.Raw)
			}
		})
	}
}

func TestRESTChallengesEvery401(t *testing.T) {
	e := resttest.New(t)
	for _, tc := range []struct{ name, key, want string }{
		{"NoKey", "", "Bearer"},
		{"UnknownKey", "svc_live_nosuchkey", `Bearer error="invalid_token"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Get("/v1/leads", tc.key)
			if r.Status != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401", r.Status)
			}
			if got := r.Header.Get("WWW-Authenticate"); got != tc.want {
				t.Errorf("WWW-Authenticate %q, want %q", got, tc.want)
			}
			if code, _ := r.Error(); code != "UNAUTHORIZED" {
				t.Errorf("REST envelope code %q, want UNAUTHORIZED: %s", code, r.Raw)
			}
		})
	}
}

// A request error (a document that does not parse or validate, a variable
// that does not coerce) is raised before execution, so the response has
// no data entry, in either media type.
func TestRequestErrorsHaveNoData(t *testing.T) {
	e := resttest.New(t)
	for _, accept := range []string{graphQLResponseJSON, "application/json"} {
		for name, body := range map[string]map[string]any{
			"Parse":     {"query": "{"},
			"Validate":  {"query": "{ noSuchField }"},
			"Variables": {"query": "query($id: ID!) { lead(id: $id) { id } }", "variables": map[string]any{"id": map[string]any{}}},
		} {
			t.Run(accept+"/"+name, func(t *testing.T) {
				r := e.Do(resttest.Request{Method: "POST", Path: "/graphql", Key: e.Key, Body: body, Header: map[string]string{"Accept": accept}})
				if _, ok := r.Body["data"]; ok {
					t.Errorf("status %d, data entry present: %s", r.Status, r.Raw)
				}
				if code, _ := firstError(r.Body); code == "" {
					t.Errorf("no coded error: %s", r.Raw)
				}
			})
		}
	}
}

// firstError is the code and message of a GraphQL response's first error.
func firstError(body map[string]any) (code, message string) {
	errs, _ := body["errors"].([]any)
	if len(errs) == 0 {
		return "", ""
	}
	first, _ := errs[0].(map[string]any)
	ext, _ := first["extensions"].(map[string]any)
	code, _ = ext["code"].(string)
	message, _ = first["message"].(string)
	return code, message
}
