package rest

import (
	"mime"
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"
	"github.com/lendingpipe/svc/graph"
)

// documentHandlers serves a document's bytes (PRODUCT 5); GraphQL uploads
// and lists them. Who may read is lending:read, within the organization
// (documents.Open).
type documentHandlers struct {
	resolver *graph.Resolver
}

// content streams the document with http.ServeContent, which answers
// Range (206, 416), If-None-Match and If-Range against the ETag (the
// content's SHA-256) and HEAD; screenRange first holds Range to what a
// download needs. The bytes are only ever downloaded
// (attachment, nosniff), never shown by a browser as a page of ours.
func (h documentHandlers) content(w http.ResponseWriter, r *http.Request) error {
	id, err := lendingID(r, "document")
	if err != nil {
		return err
	}
	d, f, err := h.resolver.DocumentContent(r.Context(), id)
	if err != nil {
		return err
	}
	defer f.Close()
	hdr := w.Header()
	hdr.Set("Content-Type", servedType(d.ContentType))
	hdr.Set("ETag", `"`+d.Sha256+`"`)
	hdr.Set("Content-Disposition", attachment(d.Filename))
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Cache-Control", "private")
	// Served as stored, never gzipped: Range offsets and Content-Length
	// count the document's own bytes.
	hdr.Set(gzhttp.HeaderNoCompression, "1")
	screenRange(r, d.Size)
	http.ServeContent(w, r, "", d.CreatedAt, f)
	return nil
}

// servedType is a stored type as sent: text is UTF-8, as the sniffer
// checked it was.
func servedType(contentType string) string {
	if strings.HasPrefix(contentType, "text/") {
		return contentType + "; charset=utf-8"
	}
	return contentType
}

// attachment is a Content-Disposition naming filename (RFC 6266): an
// ASCII fallback in filename, for old clients, and, when the fallback had
// to change the name, the name itself in filename* (RFC 8187). '%' is
// replaced in the fallback because some clients percent-decode it, and the
// exact name then goes in filename*. mime.FormatMediaType writes only
// non-ASCII values as filename*, so an ASCII name holding '%' or '"'
// would come out as a second filename: filename* is written here.
func attachment(filename string) string {
	fallback := strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' || r == '%' {
			return '_'
		}
		return r
	}, filename)
	v := mime.FormatMediaType("attachment", map[string]string{"filename": fallback})
	if fallback == filename {
		return v
	}
	return v + "; filename*=utf-8''" + extValue(filename)
}

// extValue percent-encodes s's UTF-8 bytes but RFC 8187's attr-chars
// (letters, digits and !#$&+-.^_`|~), as an ext-value's value-chars.
func extValue(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := range len(s) {
		c := s[i]
		if isAttrChar(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0x0f])
	}
	return b.String()
}

func isAttrChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte("!#$&+-.^_`|~", c) >= 0
}
