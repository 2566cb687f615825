package graph

import (
	"context"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/inboundendpoint"
	"github.com/lendingpipe/svc/ent/inboundrequest"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/token"
	"github.com/lendingpipe/svc/webhooks"
)

// EndpointKeyPrefix starts every inbound endpoint key.
const EndpointKeyPrefix = "ibk_"

// newKey is an endpoint key: 20 random bytes in hex, an unguessable route.
func newKey() string { return token.New(EndpointKeyPrefix, 20, token.Hex) }

func (r *Resolver) createInbound(ctx context.Context, in NewInboundEndpoint) (*CreatedInboundEndpoint, error) {
	mapping, err := mappingIn(in.Mapping)
	if err != nil {
		return nil, err
	}
	secret := newSecret()
	ep, err := r.client(ctx).InboundEndpoint.Create().SetName(in.Name).SetMapping(mapping).
		SetEndpointKey(newKey()).SetSecret(secret).Save(ctx)
	if err != nil {
		return nil, err
	}
	return &CreatedInboundEndpoint{Endpoint: ep, Secret: secret}, nil
}

func (r *Resolver) updateInbound(ctx context.Context, id uuid.UUID, in InboundEndpointPatch) (*ent.InboundEndpoint, error) {
	u := r.client(ctx).InboundEndpoint.UpdateOneID(id).SetNillableName(in.Name).SetNillableIsActive(in.IsActive)
	if in.Mapping != nil {
		mapping, err := mappingIn(in.Mapping)
		if err != nil {
			return nil, err
		}
		u.SetMapping(mapping)
	}
	return u.Save(ctx)
}

// mappingIn reads a mapping of target → JSONPath string and validates it.
func mappingIn(m map[string]any) (map[string]string, error) {
	out := make(map[string]string, len(m))
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			return nil, apperr.Invalid("mapping."+k, "must be a JSONPath string")
		}
		out[k] = s
	}
	return out, webhooks.CheckMapping(out)
}

func mappingOut(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// inboundRequests pages through an endpoint's run log, newest first.
func (r *Resolver) inboundRequests(ctx context.Context, endpointID uuid.UUID, pageArg, limitArg *int) (*InboundRequestPage, error) {
	s, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	c := r.client(ctx)
	if _, err := c.InboundEndpoint.Get(ctx, endpointID); err != nil {
		return nil, err
	}
	q := c.InboundRequest.Query().Where(inboundrequest.EndpointID(endpointID)).
		Order(inboundrequest.ByReceivedAt(sql.OrderDesc()), inboundrequest.ByID(sql.OrderDesc()))
	return answer[InboundRequestPage](readPage(ctx, q, s))
}

// ListInboundEndpoints is every inbound endpoint of the viewer's
// organization, oldest first (REST GET /v1/inbound-endpoints).
func (r *Resolver) ListInboundEndpoints(ctx context.Context) ([]*ent.InboundEndpoint, error) {
	return r.client(ctx).InboundEndpoint.Query().Order(inboundendpoint.ByCreatedAt(), inboundendpoint.ByID()).All(ctx)
}
