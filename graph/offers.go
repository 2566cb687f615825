package graph

import (
	"context"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/lending"
)

// LeadOffers is the lead's approved offers side by side, as Lead.offers
// reads them (REST GET /v1/leads/{id}/offers).
func (r *Resolver) LeadOffers(ctx context.Context, leadID uuid.UUID) ([]*lending.Offer, error) {
	return lending.Offers(ctx, r.client(ctx), leadID)
}
