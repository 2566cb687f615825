package root

import (
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"
)

// compressMinSize is the smallest answer worth gzip: below about a
// kilobyte the header and the CPU cost more than the bytes saved.
const compressMinSize = 1024

// compression gzips answers of at least compressMinSize bytes for clients
// that accept it, and adds Vary: Accept-Encoding so caches keep both
// copies. ETags are left as they are, so a console file revalidates to 304
// whichever copy the browser holds. It leaves alone what gzip would break
// or not shrink: websocket upgrades (the connection is taken over), ranged
// requests (offsets count the stored bytes), streams (each event must go
// out as it happens), already-compressed types, and answers that opt out
// with gzhttp.HeaderNoCompression (document downloads).
func compression() func(http.Handler) http.Handler {
	wrap, err := gzhttp.NewWrapper(
		gzhttp.MinSize(compressMinSize),
		// The fastest level: CPU is what the server runs short of under
		// load, and repetitive JSON shrinks well even so.
		gzhttp.CompressionLevel(gzip.BestSpeed),
		gzhttp.EnableZstd(false),
		gzhttp.ContentTypeFilter(compressible),
	)
	if err != nil {
		panic(err) // the options are constants: only a programming error fails
	}
	return func(next http.Handler) http.Handler {
		gz := wrap(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Upgrade") != "" || r.Header.Get("Range") != "" {
				next.ServeHTTP(w, r)
				return
			}
			gz.ServeHTTP(w, r)
		})
	}
}

// compressible is gzhttp's filter (no images, video, archives) without
// event streams, whose events must not wait in a compressor's buffer.
func compressible(contentType string) bool {
	ct := strings.ToLower(strings.TrimSpace(contentType))
	return gzhttp.DefaultContentTypeFilter(ct) && !strings.HasPrefix(ct, "text/event-stream")
}
