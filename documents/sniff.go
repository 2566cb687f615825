package documents

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/lendingpipe/svc/internal/apperr"
)

// The content types a document may have (PRODUCT 5): the allow-list.
const (
	TypePDF  = "application/pdf"
	TypePNG  = "image/png"
	TypeJPEG = "image/jpeg"
	TypeCSV  = "text/csv"
	TypeXLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	TypeText = "text/plain"
)

// Types lists the allow-list, for the API's description of a download.
var Types = []string{TypePDF, TypePNG, TypeJPEG, TypeCSV, TypeXLSX, TypeText}

// sniffBytes is how much of a file's beginning the sniffer reads: enough
// for every signature, and for a text file's first lines.
const sniffBytes = 64 << 10

// csvProbeLines is how many of a text file's first lines decide whether
// it reads as CSV.
const csvProbeLines = 5

// Sniff reads the type of the size bytes of f from their content, never
// from what the client said, and answers one of Types or an
// UNSUPPORTED_MEDIA_TYPE error naming what was found. The name only tells
// CSV from other text.
//
// The rule: a PDF, PNG or JPEG by its signature; an XLSX by being a ZIP
// archive holding [Content_Types].xml and parts under xl/ (another ZIP,
// a .docx say, is refused); otherwise text when its first 64 KiB are
// UTF-8 without NUL, CSV when the name ends .csv or its first lines read as
// CSV (at least two records of the same two or more comma-separated
// fields), plain text otherwise. The rest of a text file is checked as it
// is stored (textCheck).
func Sniff(f io.ReaderAt, size int64, name string) (string, error) {
	head := make([]byte, min(size, sniffBytes))
	n, err := f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading the file's beginning: %w", err)
	}
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return TypePDF, nil
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return TypePNG, nil
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		return TypeJPEG, nil
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return sniffZip(f, size)
	}
	if isText(head, int64(len(head)) < size) {
		if strings.HasSuffix(strings.ToLower(name), ".csv") || readsAsCSV(head) {
			return TypeCSV, nil
		}
		return TypeText, nil
	}
	return "", refused(http.DetectContentType(head))
}

// sniffZip tells an XLSX workbook from any other ZIP archive by its parts,
// read from the archive's central directory (not its whole content).
func sniffZip(f io.ReaderAt, size int64) (string, error) {
	z, err := zip.NewReader(f, size)
	if err != nil {
		return "", refused("a damaged ZIP archive")
	}
	types, workbook := false, false
	for _, part := range z.File {
		switch {
		case part.Name == "[Content_Types].xml":
			types = true
		case strings.HasPrefix(part.Name, "xl/"):
			workbook = true
		}
	}
	if types && workbook {
		return TypeXLSX, nil
	}
	return "", refused("a ZIP archive that is not an XLSX workbook (application/zip)")
}

// isText reports whether head is UTF-8 without NUL. When more of the file
// follows (cut), a rune cut at head's end is not held against it.
func isText(head []byte, cut bool) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	if cut {
		head = head[:completeRunes(head)]
	}
	return utf8.Valid(head)
}

// completeRunes is the length of b without a rune cut at its end.
func completeRunes(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// readsAsCSV reports whether head's first complete lines parse as CSV: at
// least two records, each of the same number (two or more) of fields.
func readsAsCSV(head []byte) bool {
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1] // whole lines only: the last may be cut
	}
	r := csv.NewReader(bytes.NewReader(head))
	r.FieldsPerRecord = 0 // every record as long as the first
	records := 0
	for records < csvProbeLines {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil || len(rec) < 2 {
			return false
		}
		records++
	}
	return records >= 2
}

func refused(found string) error {
	return apperr.New(apperr.UnsupportedMediaType,
		"the file's content is %s; a document must be PDF, PNG, JPEG, CSV, XLSX or plain text", found)
}

// textCheck follows a text document as it is stored: the bytes after the
// sniffed beginning must be UTF-8 without NUL too. It fails the write (and
// so abandons it) at the first that is not.
type textCheck struct {
	// pending holds a rune cut between two writes.
	pending []byte
}

func (c *textCheck) Write(p []byte) (int, error) {
	b := append(c.pending, p...)
	whole := completeRunes(b)
	if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b[:whole]) {
		return 0, errNotText
	}
	c.pending = append(c.pending[:0], b[whole:]...)
	return len(p), nil
}

// close reports a rune left cut at the file's end.
func (c *textCheck) close() error {
	if len(c.pending) > 0 {
		return errNotText
	}
	return nil
}

var errNotText = refused("text that is not UTF-8 or holds NUL bytes (application/octet-stream)")
