// Package webpage serves the files of the pages a browser reads (the
// GraphQL playground, the console): each fixed at start, with an ETag made
// from its content, its content type by extension, nosniff, and whatever
// headers its page adds (a Content-Security-Policy, say). GET and HEAD,
// conditional and range requests are answered by net/http's ServeContent.
//
// It imports no package of this module.
package webpage

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"net/http"
	"path"
	"strings"
	"time"
)

const (
	// Immutable lets browsers keep a file for good: for files whose served
	// name changes when their content does (a hash or a version in it).
	Immutable = "public, max-age=31536000, immutable"
	// Revalidate makes browsers ask again each time; the ETag makes the
	// answer a 304 while the file is unchanged.
	Revalidate = "no-cache"
)

// contentTypes are the types of the files served, by extension.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
}

// ContentType is the type a file named name is served with, false when
// its extension is not one a page serves.
func ContentType(name string) (string, bool) {
	t, ok := contentTypes[path.Ext(name)]
	return t, ok
}

// File is one response fixed at start.
type File struct {
	// Path is where the file is served.
	Path    string
	headers map[string]string
	body    []byte
	etag    string
}

// NewFile serves body at servedPath with contentType and the cache policy
// cacheControl, plus the headers in extra (which may be nil).
func NewFile(servedPath, contentType, cacheControl string, body []byte, extra map[string]string) *File {
	sum := sha256.Sum256(body)
	headers := map[string]string{
		"Content-Type":           contentType,
		"Cache-Control":          cacheControl,
		"X-Content-Type-Options": "nosniff",
	}
	maps.Copy(headers, extra)
	return &File{
		Path:    servedPath,
		headers: headers,
		body:    body,
		etag:    `"` + hex.EncodeToString(sum[:16]) + `"`,
	}
}

// Body is the file's content as served.
func (f *File) Body() []byte { return f.body }

// ServeHTTP answers GET and HEAD; ServeContent handles conditional and
// range requests against the ETag.
func (f *File) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	for k, v := range f.headers {
		h.Set(k, v)
	}
	h.Set("ETag", f.etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.body))
}

// HashedName is a name that changes with the content: name with the first
// 12 hex digits of body's SHA-256 before the extension
// ("react-18.2.0.production.min.0123456789ab.js").
func HashedName(name string, body []byte) string {
	sum := sha256.Sum256(body)
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:6]) + ext
}

// OnThisOrigin reports whether p is an absolute path, neither a URL nor a
// scheme-relative "//host/..." reference.
func OnThisOrigin(p string) bool {
	return strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "//")
}
