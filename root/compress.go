package root

import (
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"
)

// The smallest answers worth gzip. A console file is read by browsers,
// often over slow links, so from about a kilobyte (below that the header
// costs more than the bytes saved). An API answer is made for each request
// and mostly read by integrators close by: gzip of a default page (20
// leads, about 17 KiB) cost 8 to 12 % of list throughput in the load runs
// (BENCHMARKS.md), so answers are gzipped from 32 KiB, where the bytes
// saved outweigh the CPU: large pages, exports, the board's query.
const (
	fileCompressMinSize   = 1 << 10
	answerCompressMinSize = 32 << 10
)

// compression gzips answers of at least compressMinSize bytes for clients
// that accept it, and adds Vary: Accept-Encoding so caches keep both
// copies. ETags are left as they are, so a console file revalidates to 304
// whichever copy the browser holds. It leaves alone what gzip would break
// or not shrink: websocket upgrades (the connection is taken over), ranged
// requests (offsets count the stored bytes), streams (each event must go
// out as it happens), already-compressed types, and answers that opt out
// with gzhttp.HeaderNoCompression (document downloads).
//
// Paths under filesPrefix (the console's files) use the lower threshold.
func compression(filesPrefix string) func(http.Handler) http.Handler {
	files, answers := gzipWrapper(fileCompressMinSize), gzipWrapper(answerCompressMinSize)
	return func(next http.Handler) http.Handler {
		forFiles, forAnswers := files(next), answers(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.Header.Get("Upgrade") != "" || r.Header.Get("Range") != "":
				next.ServeHTTP(w, r)
			case strings.HasPrefix(r.URL.Path, filesPrefix):
				forFiles.ServeHTTP(w, r)
			default:
				forAnswers.ServeHTTP(w, r)
			}
		})
	}
}

// gzipWrapper is gzhttp's handler wrapper for answers of minSize bytes
// and more.
func gzipWrapper(minSize int) func(http.Handler) http.HandlerFunc {
	wrap, err := gzhttp.NewWrapper(
		gzhttp.MinSize(minSize),
		// The fastest level: CPU is what the server runs short of under
		// load, and repetitive JSON shrinks well even so.
		gzhttp.CompressionLevel(gzip.BestSpeed),
		gzhttp.EnableZstd(false),
		gzhttp.ContentTypeFilter(compressible),
	)
	if err != nil {
		panic(err) // the options are constants: only a programming error fails
	}
	return wrap
}

// compressible is gzhttp's filter (no images, video, archives) without
// event streams, whose events must not wait in a compressor's buffer.
func compressible(contentType string) bool {
	ct := strings.ToLower(strings.TrimSpace(contentType))
	return gzhttp.DefaultContentTypeFilter(ct) && !strings.HasPrefix(ct, "text/event-stream")
}
