package rest

import (
	"mime"
	"net/http"
	"strings"

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
// content's SHA-256) and HEAD. The bytes are only ever downloaded
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
// ASCII fallback in filename, for old clients, and the name itself,
// percent-encoded UTF-8, in filename* (RFC 5987).
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
	// mime.FormatMediaType writes filename* itself for a non-ASCII value.
	return v + "; " + strings.TrimPrefix(mime.FormatMediaType("attachment", map[string]string{"filename": filename}), "attachment; ")
}
