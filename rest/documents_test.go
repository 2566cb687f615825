package rest_test

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/filestore/filestoretest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

// uploadTo attaches content to record with org A's key and answers the
// document's id.
func uploadTo(t *testing.T, e *resttest.Env, record, name string, content []byte) string {
	t.Helper()
	r := e.Upload(e.Key, `mutation($r: ID!, $file: Upload!) { uploadDocument(recordId: $r, file: $file) { id sha256 } }`,
		map[string]any{"r": record}, resttest.File{Var: "file", Name: name, Content: content})
	if r.Status != http.StatusOK || r.Body["errors"] != nil {
		t.Fatalf("uploading: %d %s", r.Status, r.Raw)
	}
	return field(r.Body["data"].(map[string]any), "uploadDocument")["id"].(string)
}

// pngOf is a PNG signature followed by n random bytes: binary content.
func pngOf(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, 8+n)
	copy(b, "\x89PNG\r\n\x1a\n")
	if _, err := rand.Read(b[8:]); err != nil {
		t.Fatal(err)
	}
	return b
}

// A document downloads byte for byte as uploaded, from a local directory
// and from S3-compatible storage alike.
func TestDocumentDownload(t *testing.T) {
	for name, newEnv := range map[string]func(t *testing.T) *resttest.Env{
		"Directory": func(t *testing.T) *resttest.Env { return resttest.New(t) },
		"S3":        func(t *testing.T) *resttest.Env { return resttest.NewWithFiles(t, filestoretest.S3(t, "documents")) },
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			lead := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Download Co"}).Data()["id"].(string)
			content := pngOf(t, 3<<20)
			id := uploadTo(t, e, lead, "Überweisung Nov.png", content)
			r := e.DoRaw(resttest.Request{Method: "GET", Path: "/v1/documents/" + id + "/content", Key: e.Key})
			if r.Status != http.StatusOK || !bytes.Equal(r.Raw, content) {
				t.Fatalf("%d, %d bytes back of %d", r.Status, len(r.Raw), len(content))
			}
			sum := sha256.Sum256(content)
			for k, want := range map[string]string{
				"Content-Type":           "image/png",
				"ETag":                   `"` + hex.EncodeToString(sum[:]) + `"`,
				"Content-Disposition":    `attachment; filename="_berweisung Nov.png"; filename*=utf-8''%C3%9Cberweisung%20Nov.png`,
				"X-Content-Type-Options": "nosniff",
				"Cache-Control":          "private",
				"Accept-Ranges":          "bytes",
			} {
				if got := r.Header.Get(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
		})
	}
}

func TestDocumentDownloadConditionsAndRanges(t *testing.T) {
	e := resttest.New(t)
	lead := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Range Co"}).Data()["id"].(string)
	content := []byte("line one\nline two\nline three\n")
	id := uploadTo(t, e, lead, "notes.txt", content)
	path := "/v1/documents/" + id + "/content"
	get := func(method string, h map[string]string) *resttest.Response {
		return e.DoRaw(resttest.Request{Method: method, Path: path, Key: e.Key, Header: h})
	}
	whole := get("GET", nil)
	etag := whole.Header.Get("ETag")
	if whole.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("Content-Type = %q", whole.Header.Get("Content-Type"))
	}

	t.Run("Range", func(t *testing.T) {
		r := get("GET", map[string]string{"Range": "bytes=5-11"})
		if r.Status != http.StatusPartialContent || string(r.Raw) != "one\nlin" || r.Header.Get("Content-Range") != "bytes 5-11/29" {
			t.Fatalf("%d %q %s", r.Status, r.Raw, r.Header.Get("Content-Range"))
		}
		r = get("GET", map[string]string{"Range": "bytes=-6"})
		if r.Status != http.StatusPartialContent || string(r.Raw) != "three\n" {
			t.Fatalf("suffix: %d %q", r.Status, r.Raw)
		}
	})
	t.Run("RangeNotSatisfiable", func(t *testing.T) {
		if r := get("GET", map[string]string{"Range": "bytes=100-200"}); r.Status != http.StatusRequestedRangeNotSatisfiable {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
	})
	t.Run("IfNoneMatch", func(t *testing.T) {
		if r := get("GET", map[string]string{"If-None-Match": etag}); r.Status != http.StatusNotModified || len(r.Raw) != 0 {
			t.Fatalf("%d %q", r.Status, r.Raw)
		}
		if r := get("GET", map[string]string{"If-None-Match": `"stale"`}); r.Status != http.StatusOK {
			t.Fatalf("a stale tag: %d", r.Status)
		}
	})
	t.Run("IfRange", func(t *testing.T) {
		if r := get("GET", map[string]string{"Range": "bytes=0-3", "If-Range": etag}); r.Status != http.StatusPartialContent || string(r.Raw) != "line" {
			t.Fatalf("current tag: %d %q", r.Status, r.Raw)
		}
		if r := get("GET", map[string]string{"Range": "bytes=0-3", "If-Range": `"stale"`}); r.Status != http.StatusOK || !bytes.Equal(r.Raw, content) {
			t.Fatalf("stale tag: %d %q", r.Status, r.Raw)
		}
	})
	t.Run("Head", func(t *testing.T) {
		r := get("HEAD", nil)
		if r.Status != http.StatusOK || len(r.Raw) != 0 || r.Header.Get("Content-Length") != "29" || r.Header.Get("ETag") != etag {
			t.Fatalf("%d %q %v", r.Status, r.Raw, r.Header)
		}
	})
}

func TestDocumentDownloadRefusals(t *testing.T) {
	e := resttest.New(t)
	lead := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Private Co"}).Data()["id"].(string)
	id := uploadTo(t, e, lead, "a.txt", []byte("private\n"))
	_, otherKey := e.NewOrg("Other Shop", viewer.AllScopes...)
	leadsOnly := e.NewKey(e.Org.ID, viewer.ScopeLeadsRead, viewer.ScopeLeadsWrite)
	for _, tc := range []struct {
		name, path, key string
		status          int
		code            string
	}{
		{"ErrAnotherOrganization", "/v1/documents/" + id + "/content", otherKey, http.StatusNotFound, "NOT_FOUND"},
		{"ErrUnknown", "/v1/documents/" + uuid.NewString() + "/content", e.Key, http.StatusNotFound, "NOT_FOUND"},
		{"ErrNotAUUID", "/v1/documents/not-an-id/content", e.Key, http.StatusNotFound, "NOT_FOUND"},
		{"ErrNoLendingRead", "/v1/documents/" + id + "/content", leadsOnly, http.StatusForbidden, "FORBIDDEN"},
		{"ErrNoKey", "/v1/documents/" + id + "/content", "", http.StatusUnauthorized, "UNAUTHORIZED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Get(tc.path, tc.key)
			if code, _ := r.Error(); r.Status != tc.status || code != tc.code {
				t.Fatalf("%d %s, want %d %s", r.Status, r.Raw, tc.status, tc.code)
			}
			if bytes.Contains(r.Raw, []byte("private")) {
				t.Fatal("the refusal shows the content")
			}
		})
	}
}

// A stored filename comes back whole through Content-Disposition (RFC
// 6266): one ASCII filename and, when that had to change the name, one
// filename* in RFC 8187's encoding, whatever the name holds.
func TestDocumentDownloadFilenames(t *testing.T) {
	e := resttest.New(t)
	lead := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Filename Co"}).Data()["id"].(string)
	for _, name := range []string{
		"plain name.txt",
		"100% sure.txt",
		"a%20b.txt",
		`say "hi" to me.txt`,
		"Überweisung Nov.txt",
		"Ω 50% «déjà vu».txt",
		"it's; x=y.txt",
	} {
		t.Run(name, func(t *testing.T) {
			id := uploadTo(t, e, lead, name, []byte("hello\n"))
			r := e.DoRaw(resttest.Request{Method: "GET", Path: "/v1/documents/" + id + "/content", Key: e.Key})
			cd := r.Header.Get("Content-Disposition")
			if strings.Count(cd, "filename=") != 1 || strings.Count(cd, "filename*=") > 1 {
				t.Fatalf("%q: want one filename and at most one filename*", cd)
			}
			for _, c := range []byte(cd) {
				if c < 0x20 || c > 0x7e {
					t.Fatalf("%q: not ASCII", cd)
				}
			}
			disp, params, err := mime.ParseMediaType(cd)
			if err != nil || disp != "attachment" || params["filename"] != name {
				t.Fatalf("%q: %s %q %v, want attachment naming %q", cd, disp, params["filename"], err, name)
			}
		})
	}
}

// Range is served for what it is worth and no more (RFC 9110 14.2): a
// zero-length suffix is unsatisfiable, more ranges than a download needs
// or overlapping ones are ignored and the whole file is sent.
func TestDocumentDownloadRangeLimits(t *testing.T) {
	e := resttest.New(t)
	lead := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Ranges Co"}).Data()["id"].(string)
	content := bytes.Repeat([]byte("0123456789abcdef\n"), 4096) // 68 KiB of text
	id := uploadTo(t, e, lead, "big.txt", content)
	size := strconv.Itoa(len(content))
	get := func(rng string) *resttest.Response {
		return e.DoRaw(resttest.Request{Method: "GET", Path: "/v1/documents/" + id + "/content", Key: e.Key,
			Header: map[string]string{"Range": rng}})
	}
	ranges := func(n int) string {
		specs := make([]string, n)
		for i := range specs {
			specs[i] = fmt.Sprintf("%d-%d", 2*i, 2*i)
		}
		return "bytes=" + strings.Join(specs, ",")
	}
	t.Run("ErrEmptySuffix", func(t *testing.T) {
		r := get("bytes=-0")
		if r.Status != http.StatusRequestedRangeNotSatisfiable || r.Header.Get("Content-Range") != "bytes */"+size {
			t.Fatalf("%d %q %q", r.Status, r.Header.Get("Content-Range"), r.Raw)
		}
	})
	t.Run("EmptySuffixBesideARange", func(t *testing.T) {
		r := get("bytes=0-3, -0")
		if r.Status != http.StatusPartialContent || string(r.Raw) != "0123" || r.Header.Get("Content-Range") != "bytes 0-3/"+size {
			t.Fatalf("%d %q %q", r.Status, r.Header.Get("Content-Range"), r.Raw)
		}
	})
	t.Run("UpToTheCap", func(t *testing.T) {
		r := get(ranges(10))
		if r.Status != http.StatusPartialContent || !strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/byteranges") {
			t.Fatalf("%d %q", r.Status, r.Header.Get("Content-Type"))
		}
	})
	for name, rng := range map[string]string{
		"OverTheCap":       ranges(11),
		"TwentyThousand":   ranges(20000),
		"Overlapping":      "bytes=0-99,50-149",
		"OverlappingOrder": "bytes=500-599,0-99,550-560",
	} {
		t.Run(name, func(t *testing.T) {
			r := get(rng)
			if r.Status != http.StatusOK || !bytes.Equal(r.Raw, content) || r.Header.Get("Content-Range") != "" {
				t.Fatalf("%d, %d bytes, want the whole file (%d bytes)", r.Status, len(r.Raw), len(content))
			}
		})
	}
	t.Run("AdjacentAreNotOverlapping", func(t *testing.T) {
		if r := get("bytes=0-9,10-19"); r.Status != http.StatusPartialContent {
			t.Fatalf("%d", r.Status)
		}
	})
}
