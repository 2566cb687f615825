package token

import (
	"regexp"
	"testing"
)

func TestNewKeepsEachFormat(t *testing.T) {
	for _, c := range []struct {
		name   string
		got    string
		format string
	}{
		{"base64", New("whsec_", 32, Base64), `^whsec_[A-Za-z0-9+/]{43}=$`},
		{"hex", New("ibk_", 20, Hex), `^ibk_[0-9a-f]{40}$`},
		{"base32", New("conn_", 32, Base32), `^conn_[a-z2-7]{52}$`},
	} {
		if !regexp.MustCompile(c.format).MatchString(c.got) {
			t.Errorf("%s: %q does not match %s", c.name, c.got, c.format)
		}
	}
	if New("", 32, Hex) == New("", 32, Hex) {
		t.Error("two tokens are equal")
	}
}
