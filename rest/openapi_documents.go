package rest

import (
	"github.com/lendingpipe/svc/documents"
	"github.com/lendingpipe/svc/internal/viewer"
)

// documentOperations are the documents' one REST read, a download, by GET
// and HEAD (PRODUCT 5); GraphQL uploads and lists documents.
func documentOperations(h handlers) []operation {
	desc := "The document's bytes, streamed as an attachment with the type read from its content when it was uploaded " +
		"(text as UTF-8). Range requests are served (206, or 416 for a range past the end or bytes=-0); more than ten " +
		"ranges, or overlapping ones, are ignored and the whole document sent (200); the ETag is the SHA-256 " +
		"of the bytes, so If-None-Match answers 304 and If-Range a whole or partial copy. " +
		"An unknown id, one that is not a UUID, or another organization's document is 404."
	id := []m{pathParam("id", "The document's id.", uuidS())}
	return []operation{
		{method: "GET", path: "/v1/documents/{id}/content", id: "getDocumentContent", serve: h.docs.content, tag: "documents", summary: "Download a document",
			desc: desc, scope: viewer.ScopeLendingRead, params: append(id, rangeParams()...), status: 200, download: true,
			resultDesc: "The whole document."},
		{method: "HEAD", path: "/v1/documents/{id}/content", id: "headDocumentContent", serve: h.docs.content, tag: "documents", summary: "A document's download headers",
			desc: "GET's headers without the bytes: its type, size, ETag and filename.", scope: viewer.ScopeLendingRead,
			params: append(id, rangeParams()...), status: 200, download: true, resultDesc: "The whole document's headers."},
	}
}

func rangeParams() []m {
	return []m{
		headerParam("Range", "One byte range (bytes=0-1023, bytes=-500); several, up to ten and not overlapping, answer multipart/byteranges.", str()),
		headerParam("If-None-Match", "The ETag held: 304 when it is still the document's.", str()),
		headerParam("If-Range", "The ETag held: the range when it is still the document's, else the whole document.", str()),
	}
}

// downloadContent is a file's bytes under each type a document may have.
func downloadContent() m {
	out := m{}
	for _, t := range documents.Types {
		out[t] = m{"schema": m{"type": "string", "format": "binary"}}
	}
	return out
}

// downloadHeaders are a download's headers besides the common ones.
func downloadHeaders(partial bool) m {
	h := headerRefs()
	plain := func(desc string) m { return m{"description": desc, "schema": str()} }
	h["ETag"] = plain(`The SHA-256 of the document's bytes, quoted: "<hex>".`)
	h["Content-Disposition"] = plain(`attachment; filename="<ASCII fallback>"; filename*=utf-8''<percent-encoded name> (RFC 6266, RFC 8187); filename* is sent when the fallback differs from the name.`)
	h["X-Content-Type-Options"] = m{"description": "nosniff: the type is the one the document was stored with.", "schema": m{"type": "string", "enum": []string{"nosniff"}}}
	h["Cache-Control"] = plain("private: a shared cache keeps no copy.")
	h["Last-Modified"] = plain("When the document was uploaded.")
	h["Accept-Ranges"] = plain("bytes.")
	if partial {
		h["Content-Range"] = plain("The range sent: bytes <first>-<last>/<size>.")
	}
	return h
}

// downloadResponses are a download's answers besides 200 and the errors.
func downloadResponses(head bool) m {
	withBody := func(r m) m {
		if !head {
			r["content"] = downloadContent()
		}
		return r
	}
	notSatisfiable := headerRefs()
	notSatisfiable["Content-Range"] = m{"description": "bytes */<size>.", "schema": str()}
	notSatisfiable["X-Content-Type-Options"] = m{"description": "nosniff.", "schema": m{"type": "string", "enum": []string{"nosniff"}}}
	out := m{
		"200": withBody(m{"description": "The whole document.", "headers": downloadHeaders(false)}),
		"206": withBody(m{"description": "The range asked for; several ranges as multipart/byteranges.", "headers": downloadHeaders(true)}),
		"304": m{"description": "If-None-Match names the document's ETag: the copy held is current.", "headers": downloadHeaders(false)},
		"416": m{"description": "The range lies past the document's end.", "headers": notSatisfiable},
	}
	if !head {
		out["206"].(m)["content"].(m)["multipart/byteranges"] = m{"schema": m{"type": "string", "format": "binary"}}
		out["416"].(m)["content"] = m{"text/plain": m{"schema": str()}}
	}
	return out
}
