package rest

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// maxRanges is the most ranges a download may ask for at once: a resuming
// or seeking client asks for one or a few, and each range costs a part
// header in the answer, so 20,000 one-byte ranges would otherwise cost
// about 150 bytes per byte sent. nginx (max_ranges) and Apache
// (MaxRanges) bound them alike.
const maxRanges = 10

// screenRange holds a request's Range header to what http.ServeContent
// should serve (RFC 9110 14.2), rewriting the header before ServeContent
// reads it rather than serving ranges itself:
//
//   - more than maxRanges ranges, or ranges that overlap, are ignored, as
//     the RFC allows, and the whole file is sent (200);
//   - a suffix of length 0 (bytes=-0) selects no byte, so it is dropped
//     from the set; a set left with none is unsatisfiable, which
//     ServeContent answers 416 with Content-Range bytes */size. Go serves
//     it as an empty 206 otherwise.
//
// A header ServeContent would refuse as malformed, or that If-Range turns
// off, is left to it.
func screenRange(r *http.Request, size int64) {
	h := r.Header.Get("Range")
	specs, ok := strings.CutPrefix(h, "bytes=")
	if !ok || size == 0 {
		return
	}
	// A flood is ignored before it is parsed (empty list elements, which
	// count for nothing, are ignored along with it).
	if strings.Count(specs, ",") >= 4*maxRanges {
		r.Header.Del("Range")
		return
	}
	var kept []string
	dropped := false
	var spans [][2]int64
	for spec := range strings.SplitSeq(specs, ",") {
		spec = strings.TrimSpace(spec)
		if spec == "" {
			continue
		}
		start, end, ok := span(spec, size)
		if !ok {
			return // malformed: ServeContent's 416
		}
		if start < end {
			spans = append(spans, [2]int64{start, end})
		}
		if isZeroSuffix(spec) {
			dropped = true
		} else {
			kept = append(kept, spec)
		}
	}
	switch {
	case len(kept) > maxRanges || overlap(spans):
		r.Header.Del("Range")
	case len(kept) == 0:
		// Only empty suffixes: a range starting at the end overlaps
		// nothing, which ServeContent answers 416, If-Range permitting.
		r.Header.Set("Range", "bytes="+strconv.FormatInt(size, 10)+"-")
	case dropped:
		r.Header.Set("Range", "bytes="+strings.Join(kept, ","))
	}
}

// span is the bytes [start, end) spec selects of a file of size bytes,
// empty when it selects none; ok is false when spec is not a byte range.
func span(spec string, size int64) (start, end int64, ok bool) {
	first, last, found := strings.Cut(spec, "-")
	if !found {
		return 0, 0, false
	}
	first, last = strings.TrimSpace(first), strings.TrimSpace(last)
	if first == "" {
		n, err := strconv.ParseInt(last, 10, 64)
		if err != nil || n < 0 {
			return 0, 0, false
		}
		return max(size-n, 0), size, true
	}
	start, err := strconv.ParseInt(first, 10, 64)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	end = size
	if last != "" {
		l, err := strconv.ParseInt(last, 10, 64)
		if err != nil || l < start {
			return 0, 0, false
		}
		end = min(l+1, size)
	}
	return min(start, size), end, true
}

// isZeroSuffix reports whether spec is a suffix range of length 0
// ("-0", "-00", "- 0").
func isZeroSuffix(spec string) bool {
	first, last, _ := strings.Cut(spec, "-")
	n, err := strconv.ParseInt(strings.TrimSpace(last), 10, 64)
	return strings.TrimSpace(first) == "" && err == nil && n == 0
}

// overlap reports whether two of spans share a byte.
func overlap(spans [][2]int64) bool {
	slices.SortFunc(spans, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	for i := 1; i < len(spans); i++ {
		if spans[i][0] < spans[i-1][1] {
			return true
		}
	}
	return false
}
