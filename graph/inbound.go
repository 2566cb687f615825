package graph

import (
	"context"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/inboundendpoint"
	"github.com/lendingpipe/svc/ent/inboundrequest"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/webhooks"
)

// The inbound endpoints' mutations call their flows in webhooks.

func (r *Resolver) createInbound(ctx context.Context, in NewInboundEndpoint) (*CreatedInboundEndpoint, error) {
	mapping, err := mappingIn(in.Mapping)
	if err != nil {
		return nil, err
	}
	ep, secret, err := webhooks.CreateInboundEndpoint(ctx, r.client(ctx), in.Name, mapping)
	if err != nil {
		return nil, err
	}
	return &CreatedInboundEndpoint{Endpoint: ep, Secret: secret}, nil
}

func (r *Resolver) updateInbound(ctx context.Context, id uuid.UUID, in InboundEndpointPatch) (*ent.InboundEndpoint, error) {
	patch := webhooks.InboundEndpointPatch{Name: in.Name, IsActive: in.IsActive}
	if in.Mapping != nil {
		var err error
		if patch.Mapping, err = mappingIn(in.Mapping); err != nil {
			return nil, err
		}
	}
	return webhooks.UpdateInboundEndpoint(ctx, r.client(ctx), id, patch)
}

// mappingIn reads a mapping of target → JSONPath string (never nil);
// webhooks checks the paths.
func mappingIn(m map[string]any) (map[string]string, error) {
	out := make(map[string]string, len(m))
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			return nil, apperr.Invalid("mapping."+k, "must be a JSONPath string")
		}
		out[k] = s
	}
	return out, nil
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
