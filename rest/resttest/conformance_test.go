package resttest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lendingpipe/svc/rest/resttest"
)

// The conformance check is only worth having if it fails: each case
// corrupts one real response (or accepts a request the document forbids)
// and must be reported; the untouched exchange must not be.
func TestConformanceCatchesWrongResponses(t *testing.T) {
	e := resttest.New(t)
	id := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Acme Trucking"}).Data()["id"].(string)
	conf, err := resttest.StrictConformance()
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, http.Header, map[string]any) {
		r := e.Get(path, e.Key)
		return r.Status, r.Header, r.Body
	}
	attrs := func(body map[string]any) map[string]any {
		return body["data"].(map[string]any)["attributes"].(map[string]any)
	}
	cases := []struct {
		name, method, path, body, want string
		corrupt                        func(status *int, h http.Header, body map[string]any)
		contentType                    string // application/json unless set; "-" for none
	}{
		{"untouched", "GET", "/v1/leads/" + id, "", "", func(*int, http.Header, map[string]any) {}, ""},
		{"undocumented member", "GET", "/v1/leads/" + id, "", `"ssn"`,
			func(_ *int, _ http.Header, b map[string]any) { attrs(b)["ssn"] = "078-05-1120" }, ""},
		{"wrong type", "GET", "/v1/leads/" + id, "", "tags",
			func(_ *int, _ http.Header, b map[string]any) { attrs(b)["tags"] = "vip" }, ""},
		{"missing member", "GET", "/v1/leads/" + id, "", "createdAt",
			func(_ *int, _ http.Header, b map[string]any) { delete(attrs(b), "createdAt") }, ""},
		{"undocumented status", "GET", "/v1/leads/" + id, "", "status is not supported",
			func(s *int, _ http.Header, _ map[string]any) { *s = http.StatusTeapot }, ""},
		{"a 500", "GET", "/v1/leads/" + id, "", "a 500",
			func(s *int, _ http.Header, _ map[string]any) { *s = http.StatusInternalServerError }, ""},
		{"missing header", "GET", "/v1/leads/" + id, "", "X-RateLimit-Remaining",
			func(_ *int, h http.Header, _ map[string]any) { h.Del("X-RateLimit-Remaining") }, ""},
		{"undocumented header", "GET", "/v1/leads/" + id, "", "X-Debug-Sql",
			func(_ *int, h http.Header, _ map[string]any) { h.Set("X-Debug-Sql", "select 1") }, ""},
		{"forbidden request accepted", "PATCH", "/v1/leads/" + id, `{"priority":"extreme"}`, "forbids",
			func(*int, http.Header, map[string]any) {}, ""},
		// A body sent with another Content-Type, or none, is held to the
		// JSON schema all the same: the server reads it as JSON.
		{"forbidden text accepted", "PATCH", "/v1/leads/" + id, `{"priority":"extreme"}`, "forbids",
			func(*int, http.Header, map[string]any) {}, "text/plain"},
		{"forbidden untyped body accepted", "PATCH", "/v1/leads/" + id, `{"priority":"extreme"}`, "forbids",
			func(*int, http.Header, map[string]any) {}, "-"},
		{"untyped body", "PATCH", "/v1/leads/" + id, `{"priority":"high"}`, "",
			func(*int, http.Header, map[string]any) {}, "-"},
		// The browser's pages are outside the contract for GET and HEAD only.
		{"a browser page", "GET", "/playground/assets/boot.0123456789ab.js", "", "",
			func(*int, http.Header, map[string]any) {}, ""},
		{"a browser page's path sent a POST", "POST", "/playground", "", "undocumented operation answered 200",
			func(*int, http.Header, map[string]any) {}, ""},
		{"the landing path sent a DELETE", "DELETE", "/", "", "undocumented operation answered 200",
			func(*int, http.Header, map[string]any) {}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The fake answers every request with the real GET of the lead, corrupted.
			fake := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				status, h, body := get("/v1/leads/" + id)
				c.corrupt(&status, h, body)
				for k, v := range h {
					w.Header()[k] = v
				}
				w.WriteHeader(status)
				_ = json.NewEncoder(w).Encode(body)
			})
			var got []string
			srv := httptest.NewServer(conf.Wrap(fake, func(err error) { got = append(got, err.Error()) }))
			defer srv.Close()
			req, _ := http.NewRequest(c.method, srv.URL+c.path, bytes.NewBufferString(c.body))
			req.Header.Set("Authorization", "Bearer "+e.Key)
			switch c.contentType {
			case "":
				req.Header.Set("Content-Type", "application/json")
			case "-":
			default:
				req.Header.Set("Content-Type", c.contentType)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			switch {
			case c.want == "" && len(got) > 0:
				t.Fatalf("a conforming exchange was reported: %v", got)
			case c.want != "" && !strings.Contains(strings.Join(got, "\n"), c.want):
				t.Fatalf("want a report mentioning %q, got %v", c.want, got)
			}
		})
	}
}
