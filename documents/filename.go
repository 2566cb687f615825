package documents

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxFilename is the longest filename kept, in bytes, as most file
// systems allow.
const maxFilename = 255

// maxExtension is the longest extension a shortened name keeps.
const maxExtension = 16

// defaultFilename names a file sent without a usable name.
const defaultFilename = "document"

// SanitizeFilename makes a client's filename safe to store and to send
// back in a Content-Disposition header: its base name only (after the
// last / or \), without control or formatting characters (a right-to-left
// override could disguise its extension) or invalid UTF-8, trimmed of
// spaces, at most 255 bytes (cut on a rune boundary, keeping a short
// extension), and "document" when nothing is left.
func SanitizeFilename(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.ToValidUTF8(name, "")
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	if name == "" || name == "." || name == ".." {
		return defaultFilename
	}
	return shorten(name)
}

// shorten cuts name to maxFilename bytes on a rune boundary, keeping its
// extension when it is short, so a long report.pdf stays a .pdf.
func shorten(name string) string {
	if len(name) <= maxFilename {
		return name
	}
	ext := ""
	if i := strings.LastIndexByte(name, '.'); i > 0 && len(name)-i <= maxExtension {
		name, ext = name[:i], name[i:]
	}
	return cutRunes(name, maxFilename-len(ext)) + ext
}

// cutRunes is the longest prefix of s of at most n bytes that ends on a
// rune boundary.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
