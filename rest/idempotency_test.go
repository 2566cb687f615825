package rest_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

func postIdem(e *resttest.Env, key, idemKey string, body any) *resttest.Response {
	return e.Do(resttest.Request{Method: "POST", Path: "/v1/leads", Key: key, Body: body,
		Header: map[string]string{"Idempotency-Key": idemKey}})
}

func leadTotal(t *testing.T, e *resttest.Env, key string) float64 {
	t.Helper()
	r := e.Get("/v1/leads", key)
	mustStatus(t, r, http.StatusOK)
	return r.Meta()["total"].(float64)
}

func TestIdempotentCreate(t *testing.T) {
	e := resttest.New(t)
	body := map[string]any{"businessName": "Acme"}
	first := postIdem(e, e.Key, "create-1", body)
	mustStatus(t, first, http.StatusCreated)
	if first.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("first response marked replayed")
	}
	t.Run("ReplaySameBody", func(t *testing.T) {
		again := postIdem(e, e.Key, "create-1", body)
		mustStatus(t, again, http.StatusCreated)
		if again.Header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("Idempotent-Replayed = %q", again.Header.Get("Idempotent-Replayed"))
		}
		if string(again.Raw) != string(first.Raw) {
			t.Errorf("replay differs:\n%s\n%s", again.Raw, first.Raw)
		}
		if again.Header.Get("X-Request-Id") != first.Meta()["requestId"] {
			t.Errorf("replay X-Request-Id %q != stored meta.requestId %v", again.Header.Get("X-Request-Id"), first.Meta()["requestId"])
		}
		if n := leadTotal(t, e, e.Key); n != 1 {
			t.Errorf("leads = %v, want 1", n)
		}
	})
	t.Run("ReuseWithOtherBody", func(t *testing.T) {
		mustError(t, postIdem(e, e.Key, "create-1", map[string]any{"businessName": "Other"}),
			http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED", "")
	})
	t.Run("ScopedToAPIKey", func(t *testing.T) {
		other := e.NewKey(e.Org.ID, viewer.ScopeLeadsWrite)
		r := postIdem(e, other, "create-1", body)
		mustStatus(t, r, http.StatusCreated)
		if r.Data()["id"] == first.Data()["id"] || r.Header.Get("Idempotent-Replayed") != "" {
			t.Errorf("another API key's request was replayed")
		}
	})
	t.Run("ValidationErrorIsReplayed", func(t *testing.T) {
		bad := map[string]any{"email": "nope"}
		mustError(t, postIdem(e, e.Key, "bad-1", bad), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "email")
		r := postIdem(e, e.Key, "bad-1", bad)
		mustError(t, r, http.StatusUnprocessableEntity, "VALIDATION_ERROR", "email")
		if r.Header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("4xx outcome not replayed")
		}
	})
	t.Run("ExpiresAfter24Hours", func(t *testing.T) {
		before := leadTotal(t, e, e.Key)
		e.Clock.Advance(24*time.Hour + time.Minute)
		r := postIdem(e, e.Key, "create-1", body)
		mustStatus(t, r, http.StatusCreated)
		if r.Header.Get("Idempotent-Replayed") != "" || r.Data()["id"] == first.Data()["id"] {
			t.Errorf("an expired key was replayed")
		}
		if n := leadTotal(t, e, e.Key); n != before+1 {
			t.Errorf("leads = %v, want %v", n, before+1)
		}
	})
	t.Run("BadKey", func(t *testing.T) {
		before := leadTotal(t, e, e.Key)
		for name, key := range map[string]string{"Space": "has space", "Empty": "", "TooLong": strings.Repeat("k", 256)} {
			t.Run(name, func(t *testing.T) {
				mustError(t, postIdem(e, e.Key, key, body), http.StatusUnprocessableEntity, "VALIDATION_ERROR", "Idempotency-Key")
			})
		}
		if n := leadTotal(t, e, e.Key); n != before {
			t.Errorf("refused keys created %v leads", n-before)
		}
	})
}

func TestIdempotencyConcurrent(t *testing.T) {
	e := resttest.New(t)
	const n = 20
	var wg sync.WaitGroup
	responses := make([]*resttest.Response, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			responses[i] = postIdem(e, e.Key, "burst", map[string]any{"businessName": "Burst Co"})
		}()
	}
	wg.Wait()
	ids := map[any]bool{}
	for _, r := range responses {
		switch r.Status {
		case http.StatusCreated:
			ids[r.Data()["id"]] = true
		case http.StatusConflict:
			if code, _ := r.Error(); code != "IDEMPOTENCY_KEY_IN_USE" {
				t.Errorf("409 with code %s", code)
			}
		default:
			t.Errorf("unexpected status %d: %s", r.Status, r.Raw)
		}
	}
	if len(ids) != 1 {
		t.Errorf("responses name %d different leads, want 1", len(ids))
	}
	if got := leadTotal(t, e, e.Key); got != 1 {
		t.Errorf("leads = %v, want exactly 1", got)
	}
}

// A claim held by a request still running is 409; one abandoned by a
// crashed server (its lease passed) is taken over.
func TestIdempotencyInFlight(t *testing.T) {
	e := resttest.New(t)
	body := map[string]any{"businessName": "Acme"}
	raw, _ := json.Marshal(body)
	v, err := (&store.KeyCache{}).Authenticate(context.Background(), e.DB.Client, e.Key, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(append([]byte("POST /v1/leads\n"), raw...))
	now := e.Clock.Now()
	_, err = e.DB.Client.IdempotencyRecord.Create().
		SetAPIKeyID(v.KeyID).SetKey("running").SetRequestHash(hex.EncodeToString(sum[:])).
		SetLockedUntil(now.Add(time.Minute)).SetCreatedAt(now).SetExpiresAt(now.Add(24 * time.Hour)).
		Save(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	mustError(t, postIdem(e, e.Key, "running", body), http.StatusConflict, "IDEMPOTENCY_KEY_IN_USE", "")
	if n := leadTotal(t, e, e.Key); n != 0 {
		t.Fatalf("leads = %v while the key is in flight", n)
	}
	e.Clock.Advance(5 * time.Minute)
	r := postIdem(e, e.Key, "running", body)
	mustStatus(t, r, http.StatusCreated)
	again := postIdem(e, e.Key, "running", body)
	if again.Header.Get("Idempotent-Replayed") != "true" || again.Data()["id"] != r.Data()["id"] {
		t.Errorf("taken-over key not completed: %s", again.Raw)
	}
}

func TestIdempotentPatch(t *testing.T) {
	e := resttest.New(t)
	id := createLead(t, e, e.Key, map[string]any{"businessName": "Acme"})
	patch := func(body any) *resttest.Response {
		return e.Do(resttest.Request{Method: "PATCH", Path: "/v1/leads/" + id, Key: e.Key, Body: body,
			Header: map[string]string{"Idempotency-Key": "patch-1"}})
	}
	first := patch(map[string]any{"industry": "Trucking"})
	mustStatus(t, first, http.StatusOK)
	// Another change in between: the replay returns the stored response,
	// it does not apply the patch again.
	mustStatus(t, e.Patch("/v1/leads/"+id, e.Key, map[string]any{"industry": "Freight"}), http.StatusOK)
	again := patch(map[string]any{"industry": "Trucking"})
	if again.Header.Get("Idempotent-Replayed") != "true" || again.Attr("industry") != "Trucking" {
		t.Errorf("replay = %s", again.Raw)
	}
	if got := e.Get("/v1/leads/"+id, e.Key).Attr("industry"); got != "Freight" {
		t.Errorf("industry = %v: the replay re-applied the patch", got)
	}
	mustError(t, patch(map[string]any{"industry": "Other"}), http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED", "")
}

// Expired idempotency keys go, and the server answers as before. (The
// retention of webhook events: webhooks' TestRetention.)
func TestIdempotencyRetention(t *testing.T) {
	e := resttest.New(t)
	mustStatus(t, postIdem(e, e.Key, "old-key", map[string]any{"businessName": "Old"}), http.StatusCreated)
	if n, err := e.DB.PurgeIdempotency(context.Background(), time.Now().Add(25*time.Hour)); err != nil || n != 1 {
		t.Errorf("idempotency purge = %d, %v; want 1", n, err)
	}
	mustStatus(t, e.Get("/v1/leads", e.Key), http.StatusOK)
}
