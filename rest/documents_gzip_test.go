package rest_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/lendingpipe/svc/rest/resttest"
)

// A download is sent as stored even to a client that accepts gzip: its
// Content-Length, Range offsets and ETag all count the document's bytes.
func TestDocumentDownloadIsNeverGzipped(t *testing.T) {
	e := resttest.New(t)
	lead := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Plain Bytes Co"}).Data()["id"].(string)
	content := bytes.Repeat([]byte("a line of text that gzip would shrink well\n"), 200)
	id := uploadTo(t, e, lead, "notes.txt", content)
	r := e.DoRaw(resttest.Request{Method: "GET", Path: "/v1/documents/" + id + "/content", Key: e.Key,
		Header: map[string]string{"Accept-Encoding": "gzip"}})
	if r.Status != http.StatusOK || r.Header.Get("Content-Encoding") != "" || !bytes.Equal(r.Raw, content) {
		t.Fatalf("%d, Content-Encoding %q, %d bytes back of %d", r.Status, r.Header.Get("Content-Encoding"), len(r.Raw), len(content))
	}
	if got := r.Header.Get("Accept-Ranges"); got != "bytes" {
		t.Errorf("Accept-Ranges = %q, want bytes", got)
	}
	if got := r.Header.Get("No-Gzip-Compression"); got != "" {
		t.Errorf("the opt-out header reached the client: %q", got)
	}
}
