package leadcsv

import (
	"bytes"
	"errors"
	"io"
	"unicode/utf8"
)

// ErrNotUTF8 is a file whose bytes are not UTF-8 text.
var ErrNotUTF8 = errors.New("the file is not UTF-8 text")

// UTF8Reader passes r's bytes through and fails with ErrNotUTF8 at the
// first byte that is not UTF-8, so a file is checked as it is stored. A
// character split across two reads is held back until its end arrives.
type UTF8Reader struct {
	r io.Reader
	// carry is the start of a character the last read ended inside.
	carry [utf8.UTFMax]byte
	n     int
}

// NewUTF8Reader checks r as it is read.
func NewUTF8Reader(r io.Reader) *UTF8Reader { return &UTF8Reader{r: r} }

func (u *UTF8Reader) Read(p []byte) (int, error) {
	if len(p) < 2*utf8.UTFMax {
		return 0, io.ErrShortBuffer
	}
	copy(p, u.carry[:u.n])
	held := u.n
	n, err := u.r.Read(p[held:])
	n += held
	ok := n
	if !errors.Is(err, io.EOF) {
		ok = completeUpTo(p[:n])
	}
	if !utf8.Valid(p[:ok]) {
		return 0, ErrNotUTF8
	}
	u.n = copy(u.carry[:], p[ok:n])
	if errors.Is(err, io.EOF) && u.n > 0 {
		return 0, ErrNotUTF8
	}
	return ok, err
}

// completeUpTo is the length of b without a character cut off at its end:
// a trailing start byte and fewer continuation bytes than it announces.
func completeUpTo(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		c := b[i]
		if c < utf8.RuneSelf {
			return len(b) // ASCII: nothing is cut
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			return len(b)
		}
	}
	return len(b)
}

// foreignMarks are the byte-order marks of the encodings other than UTF-8
// that spreadsheets save text in ("Unicode text" is UTF-16LE), UTF-32's
// first since UTF-32LE's begins with UTF-16LE's.
var foreignMarks = []struct {
	mark     string
	encoding string
}{
	{"\xff\xfe\x00\x00", "UTF-32LE"},
	{"\x00\x00\xfe\xff", "UTF-32BE"},
	{"\xff\xfe", "UTF-16LE"},
	{"\xfe\xff", "UTF-16BE"},
}

// ForeignEncoding names the encoding other than UTF-8 that a file's first
// bytes (head, up to four) show, or is "" when they show none: a UTF-16
// or UTF-32 byte-order mark, or a NUL among them, which is how UTF-16 and
// UTF-32 without a mark write a header's first ASCII characters (no CSV
// header of UTF-8 text starts with NUL).
func ForeignEncoding(head []byte) string {
	for _, m := range foreignMarks {
		if bytes.HasPrefix(head, []byte(m.mark)) {
			return m.encoding
		}
	}
	if bytes.IndexByte(head[:min(len(head), 4)], 0) >= 0 {
		return "UTF-16 or UTF-32"
	}
	return ""
}
