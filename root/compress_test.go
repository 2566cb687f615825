package root_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/lendingpipe/svc/rest/resttest"
)

type exchange struct {
	status int
	header http.Header
	body   []byte
}

func fetchRaw(t *testing.T, method, url string, header map[string]string) exchange {
	t.Helper()
	resp, body := get(t, method, url, header)
	return exchange{resp.StatusCode, resp.Header, body}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gzip does not decode: %v", err)
	}
	return out
}

// assertGzipOf checks that got is the gzip of plain, sent with Vary.
func assertGzipOf(t *testing.T, what string, got, plain exchange) {
	t.Helper()
	if got.header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("%s with Accept-Encoding: gzip came back %q-encoded", what, got.header.Get("Content-Encoding"))
	}
	if len(got.body) >= len(plain.body) {
		t.Errorf("%s: gzip is %d bytes, plain %d", what, len(got.body), len(plain.body))
	}
	if !bytes.Equal(gunzip(t, got.body), plain.body) {
		t.Errorf("%s: the decoded bytes differ from the plain answer", what)
	}
	if !strings.Contains(got.header.Get("Vary"), "Accept-Encoding") {
		t.Errorf("%s: Vary is %q, want Accept-Encoding in it", what, got.header.Get("Vary"))
	}
}

var gzipOK = map[string]string{"Accept-Encoding": "gzip"}

func TestLargeAnswersAreGzippedWhenAsked(t *testing.T) {
	e := resttest.New(t)
	for i := range 60 {
		e.Post("/v1/leads", e.Key, map[string]any{"businessName": fmt.Sprintf("Harbor Freight %02d", i)})
	}
	js := e.Server.URL + "/console/app/main.js"
	assertGzipOf(t, "main.js", fetchRaw(t, "GET", js, gzipOK), fetchRaw(t, "GET", js, nil))

	list := e.Server.URL + "/v1/leads?limit=60"
	// One request id for both, so the two answers are the same bytes.
	auth := map[string]string{"Authorization": "Bearer " + e.Key, "X-Request-Id": "6f1d3c2e-8a4b-4c5d-9e0f-1a2b3c4d5e6f"}
	authGzip := map[string]string{"Authorization": "Bearer " + e.Key, "X-Request-Id": "6f1d3c2e-8a4b-4c5d-9e0f-1a2b3c4d5e6f", "Accept-Encoding": "gzip"}
	assertGzipOf(t, "the lead list", fetchRaw(t, "GET", list, authGzip), fetchRaw(t, "GET", list, auth))

	plainJS := fetchRaw(t, "GET", js, nil)
	if plainJS.header.Get("Content-Encoding") != "" {
		t.Errorf("main.js without Accept-Encoding came back %q-encoded", plainJS.header.Get("Content-Encoding"))
	}
}

func TestSmallAnswersStayPlain(t *testing.T) {
	e := resttest.New(t)
	got := fetchRaw(t, "GET", e.Server.URL+"/healthz", gzipOK)
	if got.status != http.StatusOK || got.header.Get("Content-Encoding") != "" || len(got.body) >= 1024 {
		t.Errorf("/healthz: %d, encoding %q, %d bytes; want 200, plain, under 1 KiB",
			got.status, got.header.Get("Content-Encoding"), len(got.body))
	}
	// A default page of leads (20, several KiB) is an answer under the
	// answers' threshold: plain, however many bytes a file that size would save.
	for i := range 20 {
		e.Post("/v1/leads", e.Key, map[string]any{"businessName": fmt.Sprintf("Harbor Freight %02d", i)})
	}
	page := fetchRaw(t, "GET", e.Server.URL+"/v1/leads", map[string]string{"Authorization": "Bearer " + e.Key, "Accept-Encoding": "gzip"})
	if page.status != http.StatusOK || page.header.Get("Content-Encoding") != "" || len(page.body) < 4096 || len(page.body) >= 32<<10 {
		t.Errorf("a page of 20 leads: %d, encoding %q, %d bytes; want 200, plain, 4 to 32 KiB",
			page.status, page.header.Get("Content-Encoding"), len(page.body))
	}
}

func TestGzipKeepsHeadRangeAndRevalidation(t *testing.T) {
	e := resttest.New(t)
	js := e.Server.URL + "/console/app/main.js"
	plain := fetchRaw(t, "GET", js, nil)
	etag := plain.header.Get("ETag")
	if etag == "" {
		t.Fatal("main.js has no ETag")
	}

	head := fetchRaw(t, "HEAD", js, gzipOK)
	if head.status != http.StatusOK || len(head.body) != 0 || head.header.Get("ETag") != etag {
		t.Errorf("HEAD: %d, %d bytes, ETag %q; want 200, no body, %q", head.status, len(head.body), head.header.Get("ETag"), etag)
	}

	ranged := fetchRaw(t, "GET", js, map[string]string{"Accept-Encoding": "gzip", "Range": "bytes=0-99"})
	if ranged.status != http.StatusPartialContent || ranged.header.Get("Content-Encoding") != "" ||
		!bytes.Equal(ranged.body, plain.body[:100]) {
		t.Errorf("Range: %d, encoding %q, %d bytes; want 206 with the first 100 plain bytes",
			ranged.status, ranged.header.Get("Content-Encoding"), len(ranged.body))
	}

	zipped := fetchRaw(t, "GET", js, gzipOK)
	again := fetchRaw(t, "GET", js, map[string]string{"Accept-Encoding": "gzip", "If-None-Match": zipped.header.Get("ETag")})
	if again.status != http.StatusNotModified || len(again.body) != 0 {
		t.Errorf("If-None-Match with the gzip copy's ETag: %d, %d bytes; want 304, empty", again.status, len(again.body))
	}
}
