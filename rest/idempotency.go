package rest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/idempotencyrecord"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Idempotency settings (SPEC 4 leaves replay and retention open; docs/api.md).
const (
	IdempotencyHeader   = "Idempotency-Key"
	IdempotencyRetained = 24 * time.Hour
	// DefaultIdempotencyLease: an in-flight claim older than this was
	// abandoned by a crashed server and may be taken over. It exceeds the
	// server's write timeout.
	DefaultIdempotencyLease = 2 * time.Minute
	maxIdempotencyKey       = 255
)

// idempotency makes a write safe to retry. The first request with a key
// claims it (a row under a unique index, so replicas agree); its response
// is stored in the same transaction as its changes, so a committed change
// always has its stored response and a rolled-back one never does.
type idempotency struct {
	client *ent.Client
	now    func() time.Time
	lease  time.Duration
}

func (h idempotency) wrap(next http.Handler) http.Handler {
	return errorHandler(func(w http.ResponseWriter, r *http.Request) error {
		if _, present := r.Header[IdempotencyHeader]; !present {
			next.ServeHTTP(w, r)
			return nil
		}
		key := r.Header.Get(IdempotencyHeader)
		if err := checkIdempotencyKey(key); err != nil {
			return err
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		v, _ := viewer.FromContext(r.Context())
		claimed, done, err := h.claim(r.Context(), v.KeyID, key, requestHash(r, body))
		switch {
		case err != nil:
			return err
		case done != nil:
			replay(w, done)
			return nil
		}
		return h.execute(w, r, next, claimed)
	})
}

// checkIdempotencyKey refuses a key that is present but unusable; an empty
// one too, which a client meant as a key (absent means none).
func checkIdempotencyKey(key string) error {
	if key == "" {
		return apperr.Invalid(IdempotencyHeader, "must not be empty; omit the header to send no key")
	}
	if len(key) > maxIdempotencyKey {
		return apperr.Invalid(IdempotencyHeader, "must be at most %d characters", maxIdempotencyKey)
	}
	for _, c := range key {
		if c < 0x21 || c > 0x7e {
			return apperr.Invalid(IdempotencyHeader, "must be printable ASCII without spaces")
		}
	}
	return nil
}

// requestHash identifies the request a key was first used for.
func requestHash(r *http.Request, body []byte) string {
	h := sha256.New()
	h.Write([]byte(r.Method + " " + r.URL.Path + "\n"))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// claim returns the record this request now owns, or the completed record
// to replay, or the error that the key's state calls for.
func (h idempotency) claim(ctx context.Context, keyID uuid.UUID, key, hash string) (claimed, done *ent.IdempotencyRecord, err error) {
	sys := rule.SystemContext(ctx)
	for range 5 {
		now := h.now()
		rec, err := h.client.IdempotencyRecord.Create().
			SetAPIKeyID(keyID).SetKey(key).SetRequestHash(hash).
			SetLockedUntil(now.Add(h.lease)).SetCreatedAt(now).SetExpiresAt(now.Add(IdempotencyRetained)).
			Save(sys)
		if err == nil {
			return rec, nil, nil
		}
		if !ent.IsConstraintError(err) {
			return nil, nil, err
		}
		existing, err := h.client.IdempotencyRecord.Query().
			Where(idempotencyrecord.APIKeyID(keyID), idempotencyrecord.Key(key)).Only(sys)
		switch {
		case ent.IsNotFound(err):
			continue // released or expired meanwhile: claim again
		case err != nil:
			return nil, nil, err
		case !existing.ExpiresAt.After(now):
			_, err = h.client.IdempotencyRecord.Delete().
				Where(idempotencyrecord.ID(existing.ID), idempotencyrecord.ExpiresAt(existing.ExpiresAt)).Exec(sys)
			if err != nil {
				return nil, nil, err
			}
			continue
		case existing.RequestHash != hash:
			return nil, nil, apperr.New(apperr.IdempotencyKeyReused,
				"this Idempotency-Key was used for a different request in the last 24 hours")
		case existing.State == idempotencyrecord.StateComplete:
			return nil, existing, nil
		case existing.LockedUntil.After(now):
			return nil, nil, apperr.New(apperr.IdempotencyKeyInUse,
				"a request with this Idempotency-Key is still being processed; retry later")
		}
		// Abandoned by a crashed server: take it over unless another request just did.
		n, err := h.client.IdempotencyRecord.Update().
			Where(idempotencyrecord.ID(existing.ID), idempotencyrecord.LockedUntil(existing.LockedUntil)).
			SetLockedUntil(now.Add(h.lease)).Save(sys)
		if err != nil {
			return nil, nil, err
		}
		if n == 1 {
			return existing, nil, nil
		}
	}
	return nil, nil, apperr.New(apperr.IdempotencyKeyInUse, "the Idempotency-Key is contended; retry later")
}

var errDiscard = errors.New("discard the transaction")

// execute runs next in a transaction and stores its response with it.
// A 2xx response commits the changes and the record together. Any other
// response rolls the changes back; a 4xx is still recorded (a retry gets
// the same answer), a 5xx releases the key so a retry can run afresh.
func (h idempotency) execute(w http.ResponseWriter, r *http.Request, next http.Handler, rec *ent.IdempotencyRecord) error {
	sys := rule.SystemContext(r.Context())
	keep := false
	defer func() {
		if !keep {
			_ = h.client.IdempotencyRecord.DeleteOneID(rec.ID).Exec(sys)
		}
	}()
	buf := newBufferedResponse()
	complete := func(ctx context.Context, c *ent.Client) error {
		return c.IdempotencyRecord.UpdateOneID(rec.ID).
			SetState(idempotencyrecord.StateComplete).SetResponseStatus(buf.status).
			SetResponseBody(buf.body.Bytes()).SetRequestID(RequestID(r.Context())).
			Exec(rule.SystemContext(ctx))
	}
	err := store.WithTx(r.Context(), h.client, func(ctx context.Context, tx *ent.Client) error {
		next.ServeHTTP(buf, r.WithContext(ctx))
		if buf.status < 200 || buf.status > 299 {
			return errDiscard
		}
		return complete(ctx, tx)
	})
	switch {
	case errors.Is(err, errDiscard) && buf.status < 500:
		if err := complete(r.Context(), h.client); err != nil {
			return err
		}
	case err != nil && !errors.Is(err, errDiscard):
		return err
	}
	keep = buf.status < 500
	buf.flush(w)
	return nil
}

// replay answers with the stored response of the first request.
func replay(w http.ResponseWriter, rec *ent.IdempotencyRecord) {
	w.Header().Set("Idempotent-Replayed", "true")
	if rec.RequestID != "" {
		w.Header().Set("X-Request-Id", rec.RequestID)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rec.ResponseStatus)
	_, _ = w.Write(rec.ResponseBody)
}

// bufferedResponse holds a response until its transaction has committed.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newBufferedResponse() *bufferedResponse { return &bufferedResponse{header: http.Header{}} }

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	b.WriteHeader(http.StatusOK)
	return b.body.Write(p)
}

func (b *bufferedResponse) flush(w http.ResponseWriter) {
	for k, v := range b.header {
		w.Header()[k] = v
	}
	w.WriteHeader(b.status)
	_, _ = w.Write(b.body.Bytes())
}
