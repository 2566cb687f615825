package leadcsv

import "testing"

func TestForeignEncoding(t *testing.T) {
	for head, want := range map[string]string{
		"\xff\xfeC\x00":     "UTF-16LE",
		"\xfe\xff\x00C":     "UTF-16BE",
		"\xff\xfe\x00\x00":  "UTF-32LE",
		"\x00\x00\xfe\xff":  "UTF-32BE",
		"C\x00o\x00":        "UTF-16 or UTF-32",
		"\x00C\x00o":        "UTF-16 or UTF-32",
		"\xef\xbb\xbfC":     "",
		"Comp":              "",
		"C":                 "",
		"":                  "",
		"Caf\xe9":           "", // not UTF-8, but no other encoding's mark: the UTF-8 check refuses it
		"Name,\x00":         "",
		"\xff\xfe":          "UTF-16LE",
		"\xfe\xffAnything?": "UTF-16BE",
	} {
		if got := ForeignEncoding([]byte(head)); got != want {
			t.Errorf("ForeignEncoding(%q) = %q, want %q", head, got, want)
		}
	}
}
