package webhooks_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lendingpipe/svc/webhooks"
)

// Any header values and body: verification never panics, and accepts a
// body only with the right signature; this service's own signature of any
// body always verifies.
func FuzzVerifyInbound(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	f.Add("sha256=00ff", "", []byte(`{"a":1}`))
	f.Add("zz", "1800000000", []byte(""))
	f.Add("sha256=", "-1", []byte("\x00\xff"))
	f.Fuzz(func(t *testing.T, sig, ts string, body []byte) {
		const secret = "whsec_fuzz_secret_0123456789"
		h := http.Header{}
		h.Set(webhooks.HeaderInboundSignature, sig)
		if ts != "" {
			h.Set(webhooks.HeaderTimestamp, ts)
		}
		if webhooks.VerifyInbound(secret, h, body, now).Valid && !oracle(secret, sig, ts, body) {
			t.Fatalf("accepted a forged signature %q (timestamp %q)", sig, ts)
		}
		good := http.Header{}
		good.Set(webhooks.HeaderSignature, webhooks.Sign(secret, now, body))
		good.Set(webhooks.HeaderTimestamp, fmt.Sprint(now.Unix()))
		if !webhooks.VerifyInbound(secret, good, body, now).Valid {
			t.Fatal("our own signature did not verify")
		}
	})
}

// oracle recomputes the signature independently of the code under test.
func oracle(secret, sig, ts string, body []byte) bool {
	m := hmac.New(sha256.New, []byte(secret))
	if ts != "" {
		m.Write([]byte(ts + "."))
	}
	m.Write(body)
	want := hex.EncodeToString(m.Sum(nil))
	return strings.EqualFold(strings.TrimPrefix(strings.TrimSpace(sig), "sha256="), want)
}

// Any mapping and payload: checking and applying never panic, and a
// mapping that passes the check applies without error to any JSON value.
func FuzzJSONPathMapping(f *testing.F) {
	f.Add("businessName", "$.company.name", []byte(`{"company":{"name":"Acme"}}`))
	f.Add("phone", "$.contacts[?@.type=='work'].phone", []byte(`{"contacts":[{"type":"work","phone":"1"}]}`))
	f.Add("x", "$..*", []byte(`[1,2,[3]]`))
	f.Add("", "$[", []byte(`null`))
	f.Fuzz(func(t *testing.T, target, path string, payload []byte) {
		m := map[string]string{target: path}
		if err := webhooks.CheckMapping(m); err != nil {
			return
		}
		var v any
		if json.Unmarshal(payload, &v) != nil {
			return
		}
		if _, err := webhooks.ApplyMapping(m, v); err != nil {
			t.Fatalf("a checked mapping failed to apply: %v", err)
		}
	})
}
