package graph

import (
	"context"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/webhooksubscription"
	"github.com/lendingpipe/svc/webhooks"
)

// The subscriptions' mutations call their flows in webhooks.

func (r *Resolver) createSubscription(ctx context.Context, in NewWebhookSubscription) (*CreatedWebhookSubscription, error) {
	sub, secret, err := webhooks.CreateSubscription(ctx, r.client(ctx), r.webhooks,
		webhooks.NewSubscription{URL: in.URL, Events: in.Events, Secret: in.Secret})
	if err != nil {
		return nil, err
	}
	return &CreatedWebhookSubscription{Subscription: sub, Secret: secret}, nil
}

func (r *Resolver) updateSubscription(ctx context.Context, id uuid.UUID, in WebhookSubscriptionPatch) (*ent.WebhookSubscription, error) {
	return webhooks.UpdateSubscription(ctx, r.client(ctx), r.webhooks, id,
		webhooks.SubscriptionPatch{URL: in.URL, Events: in.Events, IsActive: in.IsActive}, r.now())
}

func (r *Resolver) deleteSubscription(ctx context.Context, id uuid.UUID) error {
	return webhooks.DeleteSubscription(ctx, r.client(ctx), id)
}

// ListWebhookSubscriptions is every subscription of the viewer's
// organization, oldest first (REST GET /v1/app-webhooks; GraphQL pages them
// with webhookSubscriptions).
func (r *Resolver) ListWebhookSubscriptions(ctx context.Context) ([]*ent.WebhookSubscription, error) {
	return r.client(ctx).WebhookSubscription.Query().Order(webhooksubscription.ByCreatedAt(), webhooksubscription.ByID()).All(ctx)
}
