package graph_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
)

// formPart is one part of a multipart request: a field or, with a
// filename, a file.
type formPart struct {
	name, filename string
	body           []byte
}

// multipartBody encodes parts in order, as a GraphQL multipart request does.
func formBody(t *testing.T, parts ...formPart) (io.Reader, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		var w io.Writer
		var err error
		if p.filename != "" {
			w, err = mw.CreateFormFile(p.name, p.filename)
		} else {
			w, err = mw.CreateFormField(p.name)
		}
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(p.body)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf, mw.FormDataContentType()
}

// sendForm posts a multipart body to /graphql; chunked sends it without a
// Content-Length, as a streaming client does.
func sendForm(t *testing.T, e *resttest.Env, body io.Reader, contentType string, chunked bool) (int, map[string]any) {
	t.Helper()
	if chunked {
		body = io.MultiReader(body) // hides the length from the client
	}
	req, err := http.NewRequest(http.MethodPost, e.Server.URL+"/graphql", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+e.Key)
	resp, err := e.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%d: not JSON: %s", resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

// firstCode is the first error's code, in GraphQL's shape or the REST
// envelope's.
func firstCode(body map[string]any) string {
	code, _ := (&resttest.Response{Body: body}).Error()
	return code
}

// typenameWithFile is an operation whose file reaches a resolver: one
// attaching it to a record that does not exist.
const typenameWithFile = `{"query": "mutation($f: Upload!) { uploadDocument(recordId: \"0193b6a4-2f1c-7d2e-9a41-5c3f8e2b7a10\", file: $f) { id } }", "variables": {"f": null}}`

// A well-formed multipart request runs, its file bound to the variable and
// reaching the resolver; the spooled file is gone once the response is
// written.
func TestMultipartRequestRuns(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	e := resttest.New(t)
	body, ct := formBody(t,
		formPart{name: "operations", body: []byte(typenameWithFile)},
		formPart{name: "map", body: []byte(`{"0": ["variables.f"]}`)},
		formPart{name: "0", filename: "a.txt", body: []byte("hello")})
	status, out := sendForm(t, e, body, ct, false)
	if status != http.StatusOK || firstCode(out) != "NOT_FOUND" {
		t.Fatalf("%d %v", status, out)
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "svc-upload-*"))
	if len(left) != 0 {
		t.Fatalf("spooled files left behind: %v", left)
	}
}

// Malformed forms are the caller's error, named, never a 500.
func TestMultipartRequestRefusesMalformedForms(t *testing.T) {
	e := resttest.New(t)
	ops := formPart{name: "operations", body: []byte(typenameWithFile)}
	fileMap := formPart{name: "map", body: []byte(`{"0": ["variables.f"]}`)}
	file := formPart{name: "0", filename: "a.txt", body: []byte("hello")}
	for name, parts := range map[string][]formPart{
		"map first":              {fileMap, ops, file},
		"no map":                 {ops},
		"file missing":           {ops, fileMap},
		"file not in map":        {ops, fileMap, formPart{name: "1", filename: "b.txt", body: []byte("x")}},
		"operations not json":    {{name: "operations", body: []byte("{")}, fileMap, file},
		"batched operations":     {{name: "operations", body: []byte(`[` + typenameWithFile + `]`)}, fileMap, file},
		"map not an object":      {ops, {name: "map", body: []byte(`["variables.f"]`)}, file},
		"path outside variables": {ops, {name: "map", body: []byte(`{"0": ["query"]}`)}, file},
		"duplicate map key":      {ops, {name: "map", body: []byte(`{"0": ["variables.f"], "0": ["variables.f"]}`)}, file},
	} {
		t.Run(name, func(t *testing.T) {
			body, ct := formBody(t, parts...)
			status, out := sendForm(t, e, body, ct, false)
			if status != http.StatusBadRequest || firstCode(out) != "BAD_REQUEST" {
				t.Fatalf("%d %v", status, out)
			}
		})
	}
}

// A body over the upload request limit is 413 whether it declares its
// length (refused before it is read) or streams in chunks (refused when
// the limit is crossed).
func TestMultipartRequestOverTheLimit(t *testing.T) {
	e := resttest.New(t, func(c *rest.Config) {
		c.MaxBodyBytes = 4096
		c.GraphQL.Uploads = graph.UploadLimits{Document: 8192, Import: 8192}
	})
	big := bytes.Repeat([]byte("a"), 64<<10)
	for _, chunked := range []bool{false, true} {
		body, ct := formBody(t,
			formPart{name: "operations", body: []byte(typenameWithFile)},
			formPart{name: "map", body: []byte(`{"0": ["variables.f"]}`)},
			formPart{name: "0", filename: "big.txt", body: big})
		status, out := sendForm(t, e, body, ct, chunked)
		if status != http.StatusRequestEntityTooLarge || firstCode(out) != "PAYLOAD_TOO_LARGE" {
			t.Fatalf("chunked=%v: %d %v", chunked, status, out)
		}
	}
	// The JSON limit still holds for the operations part.
	body, ct := formBody(t,
		formPart{name: "operations", body: []byte(`{"query": "{ __typename }", "variables": {"pad": "` + strings.Repeat("x", 5000) + `"}}`)},
		formPart{name: "map", body: []byte(`{}`)})
	if status, out := sendForm(t, e, body, ct, false); status != http.StatusRequestEntityTooLarge {
		t.Fatalf("operations over the JSON limit: %d %v", status, out)
	}
}

// An operation that sends files holds its file field only: it runs
// outside the per-mutation transaction, so nothing may ride along.
func TestFileFieldsStandAlone(t *testing.T) {
	e := resttest.New(t)
	ops := `{"query": "mutation($f: Upload!, $r: ID!) { uploadDocument(recordId: $r, file: $f) { id } ` +
		`createTeam(input: {name: \"Extra\"}) { id } }", "variables": {"f": null, "r": "0193b6a4-2f1c-7d2e-9a41-5c3f8e2b7a10"}}`
	body, ct := formBody(t,
		formPart{name: "operations", body: []byte(ops)},
		formPart{name: "map", body: []byte(`{"0": ["variables.f"]}`)},
		formPart{name: "0", filename: "a.pdf", body: []byte("%PDF-1.4\n")})
	status, out := sendForm(t, e, body, ct, false)
	if firstCode(out) != "BAD_REQUEST" || !strings.Contains(toJSON(t, out), "one field only") {
		t.Fatalf("%d %v", status, out)
	}
	r := e.Post("/graphql", e.Key, map[string]any{"query": `{ teamsPage(limit: 100) { nodes { name } } }`})
	if strings.Contains(string(r.Raw), "Extra") {
		t.Fatal("the field beside the upload ran")
	}
}

// A file field in a fragment beside another field is refused as one
// written beside it is.
func TestFileFieldsStandAloneInFragments(t *testing.T) {
	e := resttest.New(t)
	for name, doc := range map[string]string{
		"spread": `mutation($f: Upload!, $r: ID!) { ...Up createTeam(input: {name: \"Extra\"}) { id } } ` +
			`fragment Up on Mutation { uploadDocument(recordId: $r, file: $f) { id } }`,
		"inline": `mutation($f: Upload!, $r: ID!) { ... on Mutation { uploadDocument(recordId: $r, file: $f) { id } } createTeam(input: {name: \"Extra\"}) { id } }`,
	} {
		t.Run(name, func(t *testing.T) {
			ops := `{"query": "` + doc + `", "variables": {"f": null, "r": "0193b6a4-2f1c-7d2e-9a41-5c3f8e2b7a10"}}`
			body, ct := formBody(t,
				formPart{name: "operations", body: []byte(ops)},
				formPart{name: "map", body: []byte(`{"0": ["variables.f"]}`)},
				formPart{name: "0", filename: "a.pdf", body: []byte("%PDF-1.4\n")})
			status, out := sendForm(t, e, body, ct, false)
			if firstCode(out) != "BAD_REQUEST" {
				t.Fatalf("%d %v", status, out)
			}
		})
	}
	r := e.Post("/graphql", e.Key, map[string]any{"query": `{ teamsPage(limit: 100) { nodes { name } } }`})
	if strings.Contains(string(r.Raw), "Extra") {
		t.Fatal("the field beside the upload ran")
	}
}

// Only GraphQL takes large forms: a multipart body to any other route is
// held to the JSON body limit, before authentication is even looked at.
func TestLargeFormsOnlyToGraphQL(t *testing.T) {
	e := resttest.New(t)
	big := bytes.Repeat([]byte("a"), 2<<20)
	for _, path := range []string{"/v1/webhooks/inbound/anything", "/v1/leads"} {
		body, ct := formBody(t, formPart{name: "0", filename: "big.bin", body: big})
		req, _ := http.NewRequest(http.MethodPost, e.Server.URL+path, body)
		req.Header.Set("Content-Type", ct)
		req.Header.Set("Authorization", "Bearer "+e.Key)
		resp, err := e.Server.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("%s: %d, want 413", path, resp.StatusCode)
		}
	}
}

// Each way a multipart form can break the GraphQL multipart request
// specification is 400 BAD_REQUEST in GraphQL's error shape, with a
// message saying what is wrong: never a bare reader error, a silently
// dropped file or a panic.
func TestMultipartRequestRefusalsSayWhy(t *testing.T) {
	e := resttest.New(t)
	ops := formPart{name: "operations", body: []byte(typenameWithFile)}
	withVars := func(vars string) formPart {
		return formPart{name: "operations", body: []byte(`{"query": "mutation($f: Upload!) { uploadDocument(recordId: \"0193b6a4-2f1c-7d2e-9a41-5c3f8e2b7a10\", file: $f) { id } }", "variables": ` + vars + `}`)}
	}
	mapOf := func(m string) formPart { return formPart{name: "map", body: []byte(m)} }
	file := func(name string) formPart {
		return formPart{name: name, filename: name + ".txt", body: []byte("hello")}
	}
	for _, tc := range []struct {
		name  string
		parts []formPart
		says  string
	}{
		{"ErrNoParts", nil, "no operations part"},
		{"ErrNoMap", []formPart{ops}, "no map part"},
		{"ErrMapFirst", []formPart{mapOf(`{"0": ["variables.f"]}`), ops, file("0")}, "operations, then map"},
		{"ErrFileMissing", []formPart{ops, mapOf(`{"0": ["variables.f"]}`)}, `file parts the form does not hold: 0`},
		{"ErrFileNotInMap", []formPart{ops, mapOf(`{"0": ["variables.f"]}`), file("0"), file("1")}, `"1" is not in the map`},
		{"ErrTwoFilesOneVariable", []formPart{ops, mapOf(`{"0": ["variables.f"], "1": ["variables.f"]}`), file("0"), file("1")},
			`"variables.f" is mapped to more than one file part ("0" and "1")`},
		{"ErrOnePathTwice", []formPart{ops, mapOf(`{"0": ["variables.f", "variables.f"]}`), file("0")},
			`"variables.f" twice`},
		{"ErrNoPaths", []formPart{ops, mapOf(`{"0": []}`), file("0")}, `file part "0" fills no variable`},
		{"ErrPathNotInVariables", []formPart{ops, mapOf(`{"0": ["variables.g"]}`), file("0")}, `variables.g`},
		{"ErrPathOutsideVariables", []formPart{ops, mapOf(`{"0": ["query"]}`), file("0")}, `"query"`},
		{"ErrPathThroughAString", []formPart{withVars(`{"f": null, "s": "x"}`), mapOf(`{"0": ["variables.s.x"]}`), file("0")}, `variables.s.x`},
		{"ErrPathPastAList", []formPart{withVars(`{"f": null, "l": [null]}`), mapOf(`{"0": ["variables.l.3"]}`), file("0")}, `variables.l.3`},
		{"ErrPathNotNull", []formPart{withVars(`{"f": "taken"}`), mapOf(`{"0": ["variables.f"]}`), file("0")}, `must be null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, ct := formBody(t, tc.parts...)
			status, out := sendForm(t, e, body, ct, false)
			errs, _ := out["errors"].([]any)
			if status != http.StatusBadRequest || len(errs) != 1 {
				t.Fatalf("%d %v, want 400 and one error", status, out)
			}
			first, _ := errs[0].(map[string]any)
			ext, _ := first["extensions"].(map[string]any)
			if ext["code"] != "BAD_REQUEST" || !strings.Contains(fmt.Sprint(first["message"]), tc.says) {
				t.Fatalf("%v, want BAD_REQUEST saying %q", first, tc.says)
			}
		})
	}
}

// Two file fields in one operation are refused before either runs, with
// the 400 every other malformed upload gets.
func TestTwoFileFieldsInOneOperation(t *testing.T) {
	e := resttest.New(t)
	ops := `{"query": "mutation($a: Upload!, $b: Upload!) { a: importLeads(file: $a) { id } b: importLeads(file: $b) { id } }", ` +
		`"variables": {"a": null, "b": null}}`
	csv := []byte("Company\nTwice Imported Co\n")
	body, ct := formBody(t,
		formPart{name: "operations", body: []byte(ops)},
		formPart{name: "map", body: []byte(`{"0": ["variables.a"], "1": ["variables.b"]}`)},
		formPart{name: "0", filename: "a.csv", body: csv},
		formPart{name: "1", filename: "b.csv", body: csv})
	status, out := sendForm(t, e, body, ct, false)
	if status != http.StatusBadRequest || firstCode(out) != "BAD_REQUEST" || !strings.Contains(toJSON(t, out), "one field only") {
		t.Fatalf("%d %v", status, out)
	}
	if _, ok := out["data"]; ok {
		t.Fatalf("a request refused before execution has a data entry: %v", out)
	}
	r := e.Post("/graphql", e.Key, map[string]any{"query": `{ importJobs { total } }`})
	if !strings.Contains(string(r.Raw), `"total":0`) {
		t.Fatalf("a job was queued: %s", r.Raw)
	}
}
