package webhooks

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/webhookdelivery"
	"github.com/lendingpipe/svc/ent/webhooksubscription"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/token"
	"github.com/lendingpipe/svc/internal/viewer"
)

// The subscriptions' flows, behind GraphQL's createWebhookSubscription,
// updateWebhookSubscription and deleteWebhookSubscription (and so REST's
// /v1/app-webhooks). c writes as ctx's viewer, whose organization's
// subscriptions alone it finds; a viewer without webhooks:manage is
// FORBIDDEN by the privacy rules.

// SecretPrefix starts every generated signing secret.
const SecretPrefix = "whsec_"

// NewSecret is a signing secret: 32 random bytes, base64 (SPEC 4.3:
// generated when omitted).
func NewSecret() string { return token.New(SecretPrefix, 32, token.Base64) }

// NewSubscription is a subscription to create; Secret is generated when nil.
type NewSubscription struct {
	URL    string
	Events []string
	Secret *string
}

// SubscriptionPatch changes what is set of a subscription.
type SubscriptionPatch struct {
	URL      *string
	Events   []string
	IsActive *bool // false pauses, true resumes
}

// CreateSubscription stores a subscription and returns it with its signing
// secret, which is shown only now.
func CreateSubscription(ctx context.Context, c *ent.Client, cfg Config, in NewSubscription) (*ent.WebhookSubscription, string, error) {
	if err := checkSubscription(ctx, cfg, &in.URL, in.Events); err != nil {
		return nil, "", err
	}
	secret := NewSecret()
	if in.Secret != nil {
		if n, l := utf8.RuneCountInString(*in.Secret), bounds.SubscriptionSecret; n < l.Min || n > l.Max {
			return nil, "", apperr.Invalid("secret", "must be %d to %d characters", l.Min, l.Max)
		}
		secret = *in.Secret
	}
	sub, err := c.WebhookSubscription.Create().SetURL(in.URL).SetEvents(in.Events).SetSecret(secret).Save(ctx)
	if err != nil {
		return nil, "", err
	}
	return sub, secret, nil
}

// checkSubscription validates a URL and an event list, either of which
// may be absent: each event type known, and one the caller's credential
// may read (PRODUCT 3; FORBIDDEN naming the type otherwise).
func checkSubscription(ctx context.Context, cfg Config, url *string, events []string) error {
	if url != nil {
		if err := CheckURL(*url, cfg); err != nil {
			return apperr.Invalid("url", "%s", err)
		}
	}
	if events == nil {
		return nil
	}
	if len(events) == 0 {
		return apperr.Invalid("events", "must name at least one event type, or \"*\"")
	}
	for _, e := range events {
		if e != event.All && !event.Known(e) {
			return apperr.Invalid("events", "unknown event type %s (see GET /v1/webhooks/catalog)", apperr.Quote(e))
		}
	}
	if v, ok := viewer.FromContext(ctx); ok {
		return CheckReadable(v, events)
	}
	return nil // the system's own subscriptions
}

// UpdateSubscription changes URL and events, pauses, or resumes: resuming
// clears the automatic pause and resets the failure count (SPEC 3.3), and
// wakes the worker once c commits, as deliveries held while it was paused
// are due again.
func UpdateSubscription(ctx context.Context, c *ent.Client, cfg Config, id uuid.UUID, in SubscriptionPatch, now time.Time) (*ent.WebhookSubscription, error) {
	if err := checkSubscription(ctx, cfg, in.URL, in.Events); err != nil {
		return nil, err
	}
	if in.Events != nil {
		// The caller may list only what it reads, and the subscription
		// only what its own credential reads: its deliveries follow that.
		sub, err := c.WebhookSubscription.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := CheckSubscriptionTypes(ctx, c, sub, in.Events, now); err != nil {
			return nil, err
		}
	}
	u := c.WebhookSubscription.UpdateOneID(id).SetNillableURL(in.URL)
	if in.Events != nil {
		u.SetEvents(in.Events)
	}
	if in.IsActive != nil {
		if *in.IsActive {
			u.SetIsActive(true).SetConsecutiveFailures(0).ClearPausedReason().ClearPausedAt()
		} else {
			u.SetIsActive(false).SetPausedReason("paused by request").SetPausedAt(now.UTC())
		}
	}
	sub, err := u.Save(ctx)
	if err == nil && in.IsActive != nil && *in.IsActive {
		events.AfterCommit(ctx, c.Signals.Wake)
	}
	return sub, err
}

// DeleteSubscription removes a subscription of the viewer's organization;
// the database cascades to its deliveries and their attempts.
func DeleteSubscription(ctx context.Context, c *ent.Client, id uuid.UUID) error {
	// Its deliveries first, then the subscription: the order the delivery
	// worker takes their rows in (it records outcomes, then counts the
	// subscription's failures). Deleting the subscription first would lock
	// it and wait on deliveries the worker holds while the worker waits on
	// it: a deadlock, under a burst of deliveries, at every retry.
	// Deliveries are the system's rows; the subscription, read as the
	// viewer, says they are the viewer's organization's to remove.
	mine, err := c.WebhookSubscription.Query().Where(webhooksubscription.ID(id)).Exist(ctx)
	if err != nil {
		return err
	}
	if mine {
		_, err := c.WebhookDelivery.Delete().Where(webhookdelivery.SubscriptionID(id)).Exec(rule.SystemContext(ctx))
		if err != nil {
			return fmt.Errorf("deleting the subscription's deliveries: %w", err)
		}
	}
	return c.WebhookSubscription.DeleteOneID(id).Exec(ctx)
}
