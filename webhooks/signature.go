package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// Delivery headers (SPEC 6.1).
const (
	HeaderID        = "X-Webhook-Id"
	HeaderTimestamp = "X-Webhook-Timestamp"
	HeaderSignature = "X-Webhook-Signature"
	// Tolerance is how far a receiver should let a timestamp stray (SPEC 5.6).
	Tolerance = 300 * time.Second
)

// Sign returns the X-Webhook-Signature value for body sent at ts (SPEC 5.6):
// sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">.
func Sign(secret string, ts time.Time, body []byte) string {
	return "sha256=" + hex.EncodeToString(mac(secret, strconv.FormatInt(ts.Unix(), 10), body))
}

func mac(secret, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte("."))
	m.Write(body)
	return m.Sum(nil)
}

// Verify checks a signature the way a receiver should: the timestamp within
// Tolerance of now, and the HMAC compared in constant time.
func Verify(secret, timestamp, signature string, body []byte, now time.Time) bool {
	secs, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return false
	}
	if d := now.Sub(time.Unix(secs, 0)); d > Tolerance || d < -Tolerance {
		return false
	}
	got, err := hex.DecodeString(strings.TrimPrefix(signature, "sha256="))
	return err == nil && hmac.Equal(got, mac(secret, timestamp, body))
}
