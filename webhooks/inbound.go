package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/theory/jsonpath"

	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/bounds"
)

// Inbound signature headers (SPEC 5.5): X-svc-Signature, or X-Webhook-Signature.
const (
	HeaderInboundSignature = "X-svc-Signature"
	maxMappingEntries      = 50
)

// InboundVerdict is what the signature check found.
type InboundVerdict struct {
	Valid           bool
	TimestampSigned bool   // the signature covered "<timestamp>.<body>"
	Reason          string // why it is not valid
	// Signature is the valid signature in lower-case hex, whatever case or
	// prefix it came in: the same value means the same signed bytes.
	Signature string
}

// VerifyInbound checks an inbound request's HMAC-SHA256 in constant time.
// The value is hex, with or without "sha256=". With X-Webhook-Timestamp the
// signed bytes are "<timestamp>.<raw body>" and the timestamp must be within
// Tolerance (so this service's own deliveries verify as inbound requests);
// without it, the raw body alone.
func VerifyInbound(secret string, h http.Header, body []byte, now time.Time) InboundVerdict {
	sig := h.Get(HeaderInboundSignature)
	if sig == "" {
		sig = h.Get(HeaderSignature)
	}
	if sig == "" {
		return InboundVerdict{Reason: "missing signature header"}
	}
	got, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(sig), "sha256="))
	if err != nil {
		return InboundVerdict{Reason: "signature is not hex"}
	}
	ts := h.Get(HeaderTimestamp)
	if ts == "" {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write(body)
		return verdict(got, hmac.Equal(got, m.Sum(nil)), false)
	}
	secs, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return InboundVerdict{TimestampSigned: true, Reason: "timestamp is not Unix seconds"}
	}
	if d := now.Sub(time.Unix(secs, 0)); d > Tolerance || d < -Tolerance {
		return InboundVerdict{TimestampSigned: true, Reason: "timestamp outside the 300-second tolerance"}
	}
	return verdict(got, hmac.Equal(got, mac(secret, ts, body)), true)
}

func verdict(sig []byte, ok, timestamped bool) InboundVerdict {
	if ok {
		return InboundVerdict{Valid: true, TimestampSigned: timestamped, Signature: hex.EncodeToString(sig)}
	}
	return InboundVerdict{TimestampSigned: timestamped, Reason: "signature does not match"}
}

// CheckMapping validates a mapping when it is saved: each target names a
// field, each expression parses as RFC 9535 JSONPath. A bad one is 422
// naming "mapping.<target>".
func CheckMapping(m map[string]string) error {
	if len(m) > maxMappingEntries {
		return apperr.Invalid("mapping", "at most %d entries", maxMappingEntries)
	}
	for target, expr := range m {
		if n := utf8.RuneCountInString(target); n < 1 || n > 100 {
			return apperr.Invalid("mapping", "target names must be 1 to 100 characters")
		}
		if err := bounds.Text("mapping."+target, expr, bounds.MaxJSONPath); err != nil {
			return err
		}
		if _, err := jsonpath.Parse(expr); err != nil {
			return apperr.Invalid("mapping."+target, "is not a valid JSONPath expression: %s", err)
		}
	}
	return nil
}

// ApplyMapping evaluates each expression against payload. A path that
// selects nothing leaves its target unset; one node gives its value; several
// give them as an array.
func ApplyMapping(m map[string]string, payload any) (map[string]any, error) {
	out := map[string]any{}
	for target, expr := range m {
		p, err := jsonpath.Parse(expr)
		if err != nil {
			return nil, fmt.Errorf("mapping %s: %w", target, err)
		}
		nodes := p.Select(payload)
		switch len(nodes) {
		case 0:
		case 1:
			out[target] = nodes[0]
		default:
			out[target] = []any(nodes)
		}
	}
	return out, nil
}
