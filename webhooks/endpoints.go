package webhooks

import (
	"context"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/token"
)

// The inbound endpoints' flows, behind GraphQL's createInboundEndpoint and
// updateInboundEndpoint (and so REST's /v1/inbound-endpoints). c writes as
// ctx's viewer.

// EndpointKeyPrefix starts every inbound endpoint key.
const EndpointKeyPrefix = "ibk_"

// newEndpointKey is an endpoint key: 20 random bytes in hex, an
// unguessable route.
func newEndpointKey() string { return token.New(EndpointKeyPrefix, 20, token.Hex) }

// CreateInboundEndpoint stores an endpoint with a new key and signing
// secret, and returns it with the secret, which is shown only now.
func CreateInboundEndpoint(ctx context.Context, c *ent.Client, name string, mapping map[string]string) (*ent.InboundEndpoint, string, error) {
	if err := CheckMapping(mapping); err != nil {
		return nil, "", err
	}
	secret := NewSecret()
	ep, err := c.InboundEndpoint.Create().SetName(name).SetMapping(mapping).
		SetEndpointKey(newEndpointKey()).SetSecret(secret).Save(ctx)
	if err != nil {
		return nil, "", err
	}
	return ep, secret, nil
}

// InboundEndpointPatch changes what is set of an endpoint; a mapping
// replaces the old one whole.
type InboundEndpointPatch struct {
	Name     *string
	Mapping  map[string]string
	IsActive *bool
}

// UpdateInboundEndpoint applies in to endpoint id.
func UpdateInboundEndpoint(ctx context.Context, c *ent.Client, id uuid.UUID, in InboundEndpointPatch) (*ent.InboundEndpoint, error) {
	u := c.InboundEndpoint.UpdateOneID(id).SetNillableName(in.Name).SetNillableIsActive(in.IsActive)
	if in.Mapping != nil {
		if err := CheckMapping(in.Mapping); err != nil {
			return nil, err
		}
		u.SetMapping(in.Mapping)
	}
	return u.Save(ctx)
}
