package graph_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
)

const uploadDoc = `mutation($r: ID!, $file: Upload!, $c: DocumentCategory) {
  uploadDocument(recordId: $r, file: $file, category: $c) {
    id recordType recordId filename contentType size sha256 category uploadedBy createdAt contentPath
  }
}`

// uploaded attaches a file to record with org A's key and answers the
// document; it fails the test unless the upload succeeds.
func uploaded(t *testing.T, e *resttest.Env, record, name string, content []byte) map[string]any {
	t.Helper()
	r := e.Upload(e.Key, uploadDoc, map[string]any{"r": record}, resttest.File{Var: "file", Name: name, Content: content})
	if r.Status != http.StatusOK || r.Body["errors"] != nil {
		t.Fatalf("uploading %s: %d %s", name, r.Status, r.Raw)
	}
	return r.Body["data"].(map[string]any)["uploadDocument"].(map[string]any)
}

// uploadError sends one file and answers the HTTP status and the first
// error's code and field.
func uploadError(t *testing.T, e *resttest.Env, key, record string, f resttest.File) (status int, code, field string) {
	t.Helper()
	r := e.Upload(key, uploadDoc, map[string]any{"r": record}, f)
	code, field = r.Error()
	return r.Status, code, field
}

func TestUploadDocument(t *testing.T) {
	e := resttest.New(t)
	lead := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Doc Bakery"}).Data()["id"].(string)
	content := []byte("date,amount\n2026-11-01,100.00\n2026-11-02,250.00\n")
	r := e.Upload(e.Key, uploadDoc, map[string]any{"r": lead, "c": "bank_statement"},
		resttest.File{Var: "file", Name: `..\statements/Nov "2026".csv`, Content: content, MimeType: "application/pdf"})
	if r.Status != http.StatusOK || r.Body["errors"] != nil {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	d := r.Body["data"].(map[string]any)["uploadDocument"].(map[string]any)
	sum := sha256.Sum256(content)
	id := d["id"].(string)
	for k, want := range map[string]any{"recordType": "lead", "recordId": lead, "filename": `Nov "2026".csv`,
		"contentType": "text/csv", "size": float64(len(content)), "sha256": hex.EncodeToString(sum[:]),
		"category": "bank_statement", "contentPath": "/v1/documents/" + id + "/content"} {
		if d[k] != want {
			t.Errorf("%s = %#v, want %#v", k, d[k], want)
		}
	}

	t.Run("EmitsDocumentUploaded", func(t *testing.T) {
		evs, err := e.DB.Client.WebhookEvent.Query().
			Where(webhookevent.OrgID(e.Org.ID), webhookevent.EventType(event.DocumentUploaded)).All(rule.SystemContext(context.Background()))
		if err != nil || len(evs) != 1 {
			t.Fatalf("%d events, %v", len(evs), err)
		}
		for _, k := range []string{"recordType", "recordId", "filename", "contentType", "size", "sha256", "category", "uploadedBy"} {
			if fmt.Sprint(evs[0].Data[k]) != fmt.Sprint(d[k]) {
				t.Errorf("payload %s = %v, want %v", k, evs[0].Data[k], d[k])
			}
		}
		if evs[0].Data["documentId"] != id || evs[0].Data["orgId"] != e.Org.ID.String() {
			t.Errorf("payload = %v", evs[0].Data)
		}
	})

	t.Run("ReadByID", func(t *testing.T) {
		data, code := gql(t, e, e.Key, `query($id: ID!) { document(id: $id) { id filename } }`, map[string]any{"id": id})
		if code != "" || data["document"].(map[string]any)["filename"] != `Nov "2026".csv` {
			t.Fatalf("%v %s", data, code)
		}
		_, other := e.NewOrg("Other Shop", viewer.AllScopes...)
		data, code = gql(t, e, other, `query($id: ID!) { document(id: $id) { id } }`, map[string]any{"id": id})
		if code != "" || data["document"] != nil {
			t.Fatalf("another organization read it: %v %s", data, code)
		}
	})
}

// The documents of a lead, an application and a funded deal are listed on
// each, newest first, in offset pages.
func TestDocumentListings(t *testing.T) {
	e := resttest.New(t)
	a := map[string]string{"lead": e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Listed Co"}).Data()["id"].(string)}
	lendingFixtures(t, e, a)
	for _, rec := range []struct{ typ, id, field string }{
		{"lead", a["lead"], "lead"}, {"application", a["application"], "node"}, {"funded_deal", a["deal"], "node"},
	} {
		t.Run(rec.typ, func(t *testing.T) {
			var ids []string
			for i := range 3 {
				d := uploaded(t, e, rec.id, fmt.Sprintf("%s-%d.txt", rec.typ, i), []byte(fmt.Sprintf("note %d\n", i)))
				if d["recordType"] != rec.typ {
					t.Fatalf("recordType = %v", d["recordType"])
				}
				ids = append([]string{d["id"].(string)}, ids...) // newest first
			}
			on := map[string]string{"lead": "Lead", "application": "Application", "funded_deal": "FundedDeal"}[rec.typ]
			q := `query($id: ID!, $p: Int) { node(id: $id) { ... on ` + on + ` { documents(page: $p, limit: 2) { total page limit hasMore nodes { id } } } } }`
			if rec.field == "lead" {
				q = `query($id: ID!, $p: Int) { lead(id: $id) { documents(page: $p, limit: 2) { total page limit hasMore nodes { id } } } }`
			}
			var got []string
			for p, wantMore := range []bool{true, false} {
				data, code := gql(t, e, e.Key, q, map[string]any{"id": rec.id, "p": p + 1})
				if code != "" {
					t.Fatalf("page %d: %s", p+1, code)
				}
				page := data[rec.field].(map[string]any)["documents"].(map[string]any)
				if page["total"] != float64(3) || page["hasMore"] != wantMore {
					t.Fatalf("page %d = %v", p+1, page)
				}
				for _, n := range page["nodes"].([]any) {
					got = append(got, n.(map[string]any)["id"].(string))
				}
			}
			if strings.Join(got, ",") != strings.Join(ids, ",") {
				t.Fatalf("listed %v, want newest first %v", got, ids)
			}
		})
	}
}

func TestUploadDocumentRefusals(t *testing.T) {
	const docLimit, importLimit = 4 << 10, 8 << 10
	e := resttest.New(t, func(c *rest.Config) { c.GraphQL.Uploads = graph.UploadLimits{Document: docLimit, Import: importLimit} })
	lead := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Refusing Co"}).Data()["id"].(string)
	_, otherKey := e.NewOrg("Other Shop", viewer.AllScopes...)
	readOnly := e.NewKey(e.Org.ID, viewer.ScopeLendingRead, viewer.ScopeLeadsWrite)
	file := func(content []byte) resttest.File { return resttest.File{Var: "file", Name: "f.bin", Content: content} }
	for _, tc := range []struct {
		name        string
		key         string
		file        resttest.File
		status      int
		code, field string
	}{
		{"ErrWrongType", e.Key, file([]byte("GIF89a\x01\x00\x00")), http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE", ""},
		{"ErrDocx", e.Key, resttest.File{Var: "file", Name: "a.xlsx", Content: docx(t)}, http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE", ""},
		// Over the document limit, under the request's.
		{"ErrOverTheDocumentLimit", e.Key, file(append([]byte("%PDF-"), make([]byte, docLimit)...)), http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", ""},
		{"ErrEmpty", e.Key, file(nil), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "file"},
		// Over the request limit: the JSON body limit and the largest file.
		{"ErrOverTheRequestLimit", e.Key, file(bytes.Repeat([]byte("a"), 2<<20)), http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", ""},
		{"ErrAnotherOrganization", otherKey, file([]byte("hi\n")), http.StatusOK, "NOT_FOUND", ""},
		{"ErrNoLendingWrite", readOnly, file([]byte("hi\n")), http.StatusOK, "FORBIDDEN", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, code, field := uploadError(t, e, tc.key, lead, tc.file)
			if status != tc.status || code != tc.code || field != tc.field {
				t.Fatalf("%d %s %q, want %d %s %q", status, code, field, tc.status, tc.code, tc.field)
			}
		})
	}
	t.Run("NothingKept", func(t *testing.T) {
		data, code := gql(t, e, e.Key, `query($id: ID!) { lead(id: $id) { documents { total } } }`, map[string]any{"id": lead})
		if code != "" || data["lead"].(map[string]any)["documents"].(map[string]any)["total"] != float64(0) {
			t.Fatalf("%v %s", data, code)
		}
	})
	t.Run("ErrOtherFieldsBeside", func(t *testing.T) {
		r := e.Upload(e.Key, `mutation($r: ID!, $file: Upload!) { uploadDocument(recordId: $r, file: $file) { id } createContact(input: {firstName: "x"}) { id } }`,
			map[string]any{"r": lead}, file([]byte("hi\n")))
		if !strings.Contains(string(r.Raw), "BAD_REQUEST") {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
	})
}

// docx is a Word document's skeleton: a ZIP like an XLSX, without xl/.
func docx(t *testing.T) []byte {
	t.Helper()
	return zipArchive(t, "[Content_Types].xml", "_rels/.rels", "word/document.xml")
}
