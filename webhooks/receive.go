package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/lendingpipe/svc/internal/signals"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/inboundendpoint"
	"github.com/lendingpipe/svc/ent/inboundrequest"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
)

// DedupWindow is how long a repeated X-Webhook-Id, or a repeated
// signature, is answered without being processed again.
const DedupWindow = 24 * time.Hour

// Receive verifies, maps and durably stores one inbound request. It returns
// only after the request is committed, so the caller's 200 is never sent for
// a request that could be lost. A request whose X-Webhook-Id or signature
// was seen within DedupWindow is acknowledged again and stored nothing: the
// same signature means the same signed bytes, a replay (a body-only
// signature never expires otherwise). Failures come back
// as *apperr.Error: 404 for an unknown or inactive key, 401 for a bad
// signature, 400 for a body that is not JSON or repeats a member name in an
// object; none of them stores anything.
func Receive(ctx context.Context, c *ent.Client, runsQueued *signals.Signal, key string, h http.Header, body []byte, now time.Time) (*ent.InboundRequest, error) {
	sys := rule.SystemContext(ctx)
	ep, err := c.InboundEndpoint.Query().Where(inboundendpoint.EndpointKey(key), inboundendpoint.IsActive(true)).Only(sys)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "unknown inbound endpoint")
	}
	if err != nil {
		return nil, err
	}
	v := VerifyInbound(ep.Secret, h, body, now)
	if !v.Valid {
		return nil, apperr.New(apperr.Unauthorized, "invalid signature: %s", v.Reason)
	}
	var payload any
	if err := json.Unmarshal(body, &payload); err != nil {
		return nil, apperr.New(apperr.BadRequest, "the body must be JSON")
	}
	// A repeated member makes what the mapping reads depend on the parser
	// (ours keeps the last): the partner hears of it instead.
	if path := bounds.DuplicateMember(body); path != "" {
		return nil, bounds.DuplicateError(path)
	}
	mapped, err := ApplyMapping(ep.Mapping, payload)
	if err != nil {
		return nil, err
	}
	return storeRequest(sys, c, runsQueued, ep, h.Get(HeaderID), payload, mapped, v, now)
}

// dedupKeys are a request's keys that make a repeat an acknowledged no-op.
type dedupKeys struct {
	webhookID, signature *string
}

// held finds a request of ep holding one of keys.
func (k dedupKeys) held(ctx context.Context, c *ent.Client, epID uuid.UUID) (*ent.InboundRequest, error) {
	var or []predicate.InboundRequest
	if k.webhookID != nil {
		or = append(or, inboundrequest.DedupKey(*k.webhookID))
	}
	if k.signature != nil {
		or = append(or, inboundrequest.ReplayKey(*k.signature))
	}
	return c.InboundRequest.Query().Where(inboundrequest.EndpointID(epID), inboundrequest.Or(or...)).
		Order(inboundrequest.ByReceivedAt()).First(ctx)
}

// seen returns the request that received one of keys within DedupWindow;
// requests that hold them from before the window give them up (through tx).
func (k dedupKeys) seen(ctx context.Context, tx *ent.Client, epID uuid.UUID, now time.Time) (*ent.InboundRequest, error) {
	for {
		prev, err := k.held(ctx, tx, epID)
		switch {
		case ent.IsNotFound(err):
			return nil, nil
		case err != nil:
			return nil, err
		case now.Sub(prev.ReceivedAt) < DedupWindow:
			return prev, nil
		}
		// Outside the window: the old row keeps its log, not the keys.
		if err := tx.InboundRequest.UpdateOne(prev).ClearDedupKey().ClearReplayKey().Exec(ctx); err != nil {
			return nil, err
		}
	}
}

// Outcomes of storeRequest's transaction that roll it back without failing.
var (
	errAlreadyReceived = errors.New("already received")
	errLostRace        = errors.New("another connection stored the same request")
)

// storeRequest stores one verified request and queues its automation runs
// in one transaction, unless a request with the same keys is already held.
func storeRequest(ctx context.Context, c *ent.Client, runsQueued *signals.Signal, ep *ent.InboundEndpoint, webhookID string, payload any, mapped map[string]any, v InboundVerdict, now time.Time) (*ent.InboundRequest, error) {
	keys := dedupKeys{signature: &v.Signature}
	if webhookID != "" {
		keys.webhookID = &webhookID
	}
	var prev *ent.InboundRequest
	// The transaction is in ctx: the runs it queues wake the runner once it
	// commits.
	req, err := store.WithTxValue(ctx, c, func(ctx context.Context, tx *ent.Client) (*ent.InboundRequest, error) {
		var err error
		if prev, err = keys.seen(ctx, tx, ep.ID, now); err != nil {
			return nil, err
		}
		if prev != nil {
			// Roll back: the keys older requests gave up in seen stay theirs.
			return nil, errAlreadyReceived
		}
		return insertRequest(ctx, tx, runsQueued, ep, keys, payload, mapped, v, now)
	})
	switch {
	case errors.Is(err, errAlreadyReceived):
		return prev, nil // acknowledge, do nothing twice
	case errors.Is(err, errLostRace):
		// PostgreSQL has aborted the transaction: read outside it.
		return keys.held(ctx, c, ep.ID)
	}
	return req, err
}

// insertRequest stores the request through tx and queues its runs; a
// request with nothing to run is processed once stored.
func insertRequest(ctx context.Context, tx *ent.Client, runsQueued *signals.Signal, ep *ent.InboundEndpoint, keys dedupKeys, payload any, mapped map[string]any, v InboundVerdict, now time.Time) (*ent.InboundRequest, error) {
	obj, _ := payload.(map[string]any)
	if obj == nil {
		obj = map[string]any{"value": payload}
	}
	req, err := tx.InboundRequest.Create().SetOrgID(ep.OrgID).SetEndpointID(ep.ID).SetReceivedAt(now.UTC()).
		SetNillableDedupKey(keys.webhookID).SetNillableReplayKey(keys.signature).
		SetSignatureValid(v.Valid).SetTimestampSigned(v.TimestampSigned).
		SetPayload(obj).SetMapped(mapped).Save(ctx)
	if ent.IsConstraintError(err) {
		// The same X-Webhook-Id or signature raced in on another connection
		// and won.
		return nil, errLostRace
	}
	if err != nil {
		return nil, err
	}
	n, err := enqueueForRequest(ctx, tx, runsQueued, req, now.UTC())
	if err != nil {
		return nil, err
	}
	if n == 0 {
		// Nothing to run: the request is done with once stored.
		return tx.InboundRequest.UpdateOne(req).SetStatus(inboundrequest.StatusProcessed).Save(ctx)
	}
	return req, nil
}
