package schema

import (
	"context"
	"fmt"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/privacy"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
)

// WebhookSubscription is an endpoint that receives signed event deliveries
// (SPEC 2.5). REST renders its id as whsub_<uuid>.
type WebhookSubscription struct{ ent.Schema }

func (WebhookSubscription) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("An https URL that receives signed deliveries of the events it lists. Its signing secret is shown " +
			"only by createWebhookSubscription."),
		entgql.QueryField().Description("The organization's webhook subscriptions (webhooks:manage scope)."),
		entgql.RelayConnection(),
		entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput),
	}
}

func (WebhookSubscription) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "webhook_subscriptions"}}
}

func (WebhookSubscription) Fields() []ent.Field {
	return []ent.Field{
		field.String("url").Validate(textLen(bounds.URL)).
			Comment(fmt.Sprintf("The https URL deliveries are POSTed to: at most %d,%03d characters.", bounds.URL.Max/1000, bounds.URL.Max%1000)),
		field.Strings("events").
			Comment("The event types delivered (webhook catalog types), or \"*\" for every type."),
		// The signing secret. Kept (not hashed): every delivery is signed
		// with it. Returned only by the create call.
		field.String("secret").Sensitive().Annotations(entgql.Skip()),
		field.Bool("is_active").Default(true).
			Comment("false while deliveries are paused: by updateWebhookSubscription, after 50 failed attempts " +
				"in a row, or on a 410 Gone answer."),
		field.String("paused_reason").Optional().Nillable().
			Comment("Why deliveries are paused (such as \"paused by request\" or \"50 consecutive delivery failures\"); " +
				"null while active."),
		field.Time("paused_at").Optional().Nillable().
			Comment("When deliveries were paused; null while active."),
		field.Int("consecutive_failures").Default(0).
			Comment("Failed delivery attempts in a row; a success or a resume sets it back to 0."),
		// The app installation whose token created the subscription: its
		// app.webhook_paused goes to the installation's other endpoints
		// only, and it is deleted once the app is uninstalled.
		field.UUID("installation_id", uuidType).Optional().Nillable().Immutable().Annotations(entgql.Skip()),
		// The API key whose scopes the subscription's deliveries follow
		// (PRODUCT 3, events follow scopes): the key that created it, moved
		// to the replacing key when that key is rotated. Null for an app
		// token's, whose installation_id says.
		field.UUID("key_id", uuidType).Optional().Nillable().Annotations(entgql.Skip()),
	}
}

func (WebhookSubscription) Edges() []ent.Edge {
	return []ent.Edge{
		// Deleting a subscription deletes its deliveries (and their attempts)
		// in the same statement, whatever the worker is doing meanwhile.
		edge.To("deliveries", WebhookDelivery.Type).Annotations(entgql.Skip(), entsql.OnDelete(entsql.Cascade)),
	}
}

// Subscriptions created, changed and deleted by a caller are in the audit
// log; the delivery worker's bookkeeping on them is not.
func (WebhookSubscription) Hooks() []ent.Hook {
	return []ent.Hook{stampInstallation, stampKey, audited("webhook_subscription", nil)}
}

// stampKey makes a subscription created with an API key name that key:
// its credential, whose scopes its deliveries follow.
func stampKey(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		km, ok := m.(interface{ SetKeyID(uuid.UUID) })
		if !m.Op().Is(ent.OpCreate) || !ok {
			return next.Mutate(ctx, m)
		}
		if v, ok := viewer.FromContext(ctx); ok && v.KeyID != uuid.Nil && v.InstallationID == uuid.Nil {
			km.SetKeyID(v.KeyID)
		}
		return next.Mutate(ctx, m)
	})
}

func (WebhookSubscription) Policy() ent.Policy {
	return orgPolicy(viewer.ScopeWebhooksManage, viewer.ScopeWebhooksManage)
}

// WebhookEvent is the transactional outbox: one row per event, written by
// the ent hooks in the same transaction as the change it reports, and fanned
// out to subscriptions by the delivery worker.
type WebhookEvent struct{ ent.Schema }

func (WebhookEvent) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

func (WebhookEvent) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}}
}

func (WebhookEvent) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("org_id", uuidType).Immutable(),
		field.String("event_type").Immutable(),
		field.JSON("data", map[string]any{}).Immutable(),
		field.Time("occurred_at").Immutable(),
		// Set once the worker has created the event's deliveries.
		field.Bool("dispatched").Default(false),
		// How many automation runs led to the event (viewer.Depth); event
		// triggers stop at MaxAutomationDepth.
		field.Int("depth").Default(0).Immutable(),
		// For app.webhook_paused: the subscription that must not receive it.
		field.UUID("exclude_subscription_id", uuidType).Optional().Nillable().Immutable(),
		// For app.webhook_paused of an app's subscription: only the
		// subscriptions of this installation receive it.
		field.UUID("only_installation_id", uuidType).Optional().Nillable().Immutable(),
	}
}

func (WebhookEvent) Edges() []ent.Edge {
	return []ent.Edge{edge.To("deliveries", WebhookDelivery.Type).Annotations(entsql.OnDelete(entsql.Cascade))}
}

func (WebhookEvent) Indexes() []ent.Index {
	return []ent.Index{index.Fields("dispatched", "occurred_at"), index.Fields("org_id", "occurred_at")}
}

// Events are written by hooks on behalf of any writer and read only by the
// worker (system context).
func (WebhookEvent) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{privacy.AlwaysDenyRule()},
		Mutation: privacy.MutationPolicy{rule.DenyIfNoViewer(), privacy.AlwaysAllowRule()},
	}
}

// WebhookDelivery is one event on its way to one subscription. Its id is the
// X-Webhook-Id, the same on every retry.
type WebhookDelivery struct{ ent.Schema }

func (WebhookDelivery) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

func (WebhookDelivery) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}}
}

func (WebhookDelivery) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("org_id", uuidType).Immutable(),
		field.UUID("event_id", uuidType).Immutable(),
		field.UUID("subscription_id", uuidType).Immutable(),
		// pending: waiting for its next attempt; succeeded; dead: in the dead-letter queue.
		field.Enum("status").Values(enum.DeliveryStatuses...).Default("pending"),
		field.Int("attempts").Default(0),
		field.Time("next_attempt_at"),
		field.Int("last_status_code").Optional().Nillable(),
		field.String("last_error").Optional().Nillable(),
		field.Time("delivered_at").Optional().Nillable(),
		field.Time("dead_at").Optional().Nillable(),
	}
}

func (WebhookDelivery) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("event", WebhookEvent.Type).Ref("deliveries").Field("event_id").Unique().Required().Immutable(),
		edge.From("subscription", WebhookSubscription.Type).Ref("deliveries").Field("subscription_id").Unique().Required().Immutable(),
		edge.To("attempt_log", WebhookAttempt.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

func (WebhookDelivery) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("status", "next_attempt_at"),
		index.Fields("subscription_id", "created_at"),
		index.Fields("event_id", "subscription_id").Unique(),
	}
}

func (WebhookDelivery) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{rule.DenyIfNoViewer(), rule.RequireScope(viewer.ScopeWebhooksManage), rule.FilterOrg()},
		Mutation: privacy.MutationPolicy{privacy.AlwaysDenyRule()},
	}
}

// WebhookAttempt records one try of a delivery, for debugging a receiver.
type WebhookAttempt struct{ ent.Schema }

func (WebhookAttempt) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

func (WebhookAttempt) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}}
}

func (WebhookAttempt) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("delivery_id", uuidType).Immutable(),
		field.Time("attempted_at").Immutable(),
		field.Int("status_code").Optional().Nillable().Immutable(),
		field.Int("latency_ms").Immutable(),
		field.String("error").Optional().Nillable().Immutable(),
		// At most a few KB of the receiver's answer.
		field.String("response_excerpt").Optional().Nillable().Immutable(),
	}
}

func (WebhookAttempt) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("delivery", WebhookDelivery.Type).Ref("attempt_log").Field("delivery_id").Unique().Required().Immutable(),
	}
}

func (WebhookAttempt) Indexes() []ent.Index {
	return []ent.Index{index.Fields("delivery_id", "attempted_at")}
}

func (WebhookAttempt) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{rule.DenyIfNoViewer(), rule.RequireScope(viewer.ScopeWebhooksManage)},
		Mutation: privacy.MutationPolicy{privacy.AlwaysDenyRule()},
	}
}
