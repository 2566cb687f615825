// Package token makes the service's random credentials: signing secrets,
// inbound endpoint keys, API keys and connector tokens. Each is a prefix
// followed by random bytes in one of a few encodings; the formats are part
// of the API (clients recognise a credential by its prefix), so each
// caller names its own. A leaf: it imports nothing of this module.
package token

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// An Encoding writes random bytes as text.
type Encoding func([]byte) string

var (
	// Base64 is standard base64, padded.
	Base64 Encoding = base64.StdEncoding.EncodeToString
	// Hex is lower-case hexadecimal.
	Hex Encoding = hex.EncodeToString
	// Base32 is unpadded base32 in lower case: no look-alike ambiguity,
	// safe in URLs and headers.
	Base32 Encoding = func(b []byte) string {
		return strings.ToLower(strings.TrimRight(base32.StdEncoding.EncodeToString(b), "="))
	}
)

// New is prefix followed by n random bytes written in enc.
func New(prefix string, n int, enc Encoding) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return prefix + enc(b)
}
