package documents_test

import (
	"archive/zip"
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lendingpipe/svc/documents"
	"github.com/lendingpipe/svc/internal/apperr"
)

// zipOf is a ZIP archive holding the named (empty) parts.
func zipOf(t testing.TB, names ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, n := range names {
		w, err := z.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte("<x/>"))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSniff(t *testing.T) {
	long := strings.Repeat("é", 40_000) // past the sniffed 64 KiB, a rune cut at its edge
	for _, tc := range []struct {
		name, filename string
		content        []byte
		want           string // "" for refused
	}{
		{"PDF", "a.txt", []byte("%PDF-1.7\n%âãÏÓ\n"), documents.TypePDF},
		{"PNG", "a.pdf", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), documents.TypePNG},
		{"JPEG", "a", []byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 'J', 'F', 'I', 'F'}, documents.TypeJPEG},
		{"XLSX", "book.xlsx", zipOf(t, "[Content_Types].xml", "_rels/.rels", "xl/workbook.xml", "xl/worksheets/sheet1.xml"), documents.TypeXLSX},
		{"DOCX refused", "letter.docx", zipOf(t, "[Content_Types].xml", "_rels/.rels", "word/document.xml"), ""},
		{"ZIP refused", "a.zip", zipOf(t, "xl/workbook.xml"), ""},
		{"damaged ZIP refused", "a.xlsx", []byte("PK\x03\x04 not really"), ""},
		{"CSV by name", "list.CSV", []byte("just one line"), documents.TypeCSV},
		{"CSV by content", "list.txt", []byte("name,amount\nAcme,100\nBeta,200\n"), documents.TypeCSV},
		{"CSV with quotes", "export", []byte("\"a, b\",c\nd,e\n"), documents.TypeCSV},
		{"text of one column", "notes", []byte("first line\nsecond line\n"), documents.TypeText},
		{"text of ragged commas", "notes", []byte("Hello, world\nno comma here\n"), documents.TypeText},
		{"text with a BOM", "notes", []byte("\xEF\xBB\xBFhello\n"), documents.TypeText},
		{"long text", "long", []byte(long), documents.TypeText},
		{"NUL refused", "a.txt", []byte("abc\x00def"), ""},
		{"Latin-1 refused", "a.txt", []byte("caf\xe9 au lait"), ""},
		{"GIF refused", "a.png", []byte("GIF89a\x01\x00\x01\x00"), ""},
		{"executable refused", "a.pdf", []byte("MZ\x90\x00\x03\x00\x00\x00"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := documents.Sniff(bytes.NewReader(tc.content), int64(len(tc.content)), tc.filename)
			if tc.want == "" {
				e, ok := apperr.As(err)
				if !ok || e.Code != apperr.UnsupportedMediaType {
					t.Fatalf("Sniff = %q, %v; want UNSUPPORTED_MEDIA_TYPE", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Sniff = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// The refusal names what was found.
func TestSniffNamesWhatItFound(t *testing.T) {
	_, err := documents.Sniff(bytes.NewReader([]byte("GIF89a\x01\x00")), 8, "a.gif")
	if err == nil || !strings.Contains(err.Error(), "image/gif") {
		t.Fatalf("err = %v, want it to name image/gif", err)
	}
	_, err = documents.Sniff(bytes.NewReader(zipOf(t, "word/document.xml")), int64(len(zipOf(t, "word/document.xml"))), "a.docx")
	if err == nil || !strings.Contains(err.Error(), "not an XLSX") {
		t.Fatalf("err = %v, want it to say the ZIP is not an XLSX", err)
	}
}

func TestSanitizeFilename(t *testing.T) {
	long := strings.Repeat("a", 300) + ".pdf"
	wide := strings.Repeat("é", 200) // 400 bytes
	for _, tc := range []struct{ in, want string }{
		{"statement.pdf", "statement.pdf"},
		{"../../etc/passwd", "passwd"},
		{`C:\Users\ada\bank statement.pdf`, "bank statement.pdf"},
		{"dir/", "document"},
		{"", "document"},
		{"..", "document"},
		{"  spaced.pdf  ", "spaced.pdf"},
		{"tab\tand\nnewline.csv", "tabandnewline.csv"},
		{"invoice\u202Efdp.exe", "invoicefdp.exe"}, // a right-to-left override
		{"zero\u200Bwidth.png", "zerowidth.png"},
		{"bad\xffutf8.txt", "badutf8.txt"},
		{"Überweisung №5.pdf", "Überweisung №5.pdf"},
		{long, strings.Repeat("a", 251) + ".pdf"},
		{wide, strings.Repeat("é", 127)},
	} {
		got := documents.SanitizeFilename(tc.in)
		if got != tc.want {
			t.Errorf("SanitizeFilename(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Whatever a client sends, the name kept is valid UTF-8 of 1 to 255 bytes
// with no separator or control character.
func FuzzSanitizeFilename(f *testing.F) {
	for _, s := range []string{"a.pdf", "../x", "\x00", strings.Repeat("ü", 200) + ".xlsx", "a\\b/c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := documents.SanitizeFilename(in)
		if got == "" || len(got) > 255 || !utf8.ValidString(got) || strings.ContainsAny(got, "/\\\x00\r\n") {
			t.Fatalf("SanitizeFilename(%q) = %q", in, got)
		}
		if documents.SanitizeFilename(got) != got {
			t.Fatalf("not idempotent: %q -> %q -> %q", in, got, documents.SanitizeFilename(got))
		}
	})
}

// Whatever the bytes, the sniffer answers a type of the allow-list or a
// coded refusal, never another error or a panic.
func FuzzSniff(f *testing.F) {
	for _, s := range [][]byte{[]byte("%PDF-"), []byte("a,b\nc,d\n"), []byte("PK\x03\x04"), {0xFF, 0xD8, 0xFF}, []byte("é")} {
		f.Add(s, "x.csv")
	}
	f.Fuzz(func(t *testing.T, content []byte, name string) {
		got, err := documents.Sniff(bytes.NewReader(content), int64(len(content)), name)
		if err != nil {
			if e, ok := apperr.As(err); !ok || e.Code != apperr.UnsupportedMediaType {
				t.Fatalf("Sniff: %v", err)
			}
			return
		}
		found := false
		for _, ty := range documents.Types {
			found = found || ty == got
		}
		if !found {
			t.Fatalf("Sniff = %q, not on the allow-list", got)
		}
	})
}
