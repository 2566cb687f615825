package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/privacy"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
)

// InboundEndpoint receives signed webhooks from an external system at
// /v1/webhooks/inbound/{endpointKey} and maps their payload with JSONPath.
type InboundEndpoint struct{ ent.Schema }

func (InboundEndpoint) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("Receives signed JSON from an external system at POST /v1/webhooks/inbound/{endpointKey} " +
			"and maps it with JSONPath into the input of the automations it triggers."),
		entgql.QueryField().Description("The organization's inbound endpoints (admin scope)."),
		entgql.RelayConnection(),
		entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput),
	}
}

func (InboundEndpoint) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "inbound_endpoints"}}
}

func (InboundEndpoint) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Validate(runeLen(1, bounds.MaxName)).
			Comment("The endpoint's name: 1 to 100 characters."),
		// Routes requests; random, so it cannot be guessed from anything else.
		field.String("endpoint_key").Unique().Immutable().
			Comment("The random key in the endpoint's URL (ibk_...), set at creation."),
		// The shared HMAC secret, shown once at creation.
		field.String("secret").Sensitive().Annotations(entgql.Skip()),
		// Target field → RFC 9535 JSONPath expression, validated when saved.
		field.JSON("mapping", map[string]string{}).Default(map[string]string{}).Annotations(entgql.Skip()),
		field.Bool("is_active").Default(true).
			Comment("false answers the endpoint's requests with 404 and stores nothing; true by default."),
	}
}

func (InboundEndpoint) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("requests", InboundRequest.Type).Annotations(entgql.Skip(), entsql.OnDelete(entsql.Cascade)),
		edge.To("automations", Automation.Type).Annotations(entgql.Skip()),
	}
}

func (InboundEndpoint) Policy() ent.Policy { return orgPolicy(viewer.ScopeAdmin, viewer.ScopeAdmin) }

// InboundRequest is the run log: one row per accepted inbound request, with
// its payload and what the mapping made of it.
type InboundRequest struct{ ent.Schema }

func (InboundRequest) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

func (InboundRequest) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}}
}

func (InboundRequest) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("org_id", uuidType).Immutable(),
		field.UUID("endpoint_id", uuidType).Immutable(),
		field.Time("received_at").Immutable(),
		// The sender's X-Webhook-Id while it deduplicates (24 h); cleared after.
		field.String("dedup_key").Optional().Nillable(),
		// The verified signature (hex) while it deduplicates (24 h); cleared
		// after. The same signature is the same signed bytes: a replay.
		field.String("replay_key").Optional().Nillable(),
		field.Bool("signature_valid").Immutable(),
		field.Bool("timestamp_signed").Immutable(),
		field.JSON("payload", map[string]any{}).Optional(),
		field.JSON("mapped", map[string]any{}).Optional(),
		field.Enum("status").Values(enum.InboundRequestStatuses...).Default("received"),
		field.String("error").Optional().Nillable(),
		// The failing run's errorCode; null unless a run failed.
		field.String("error_code").Optional().Nillable(),
	}
}

func (InboundRequest) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("endpoint", InboundEndpoint.Type).Ref("requests").Field("endpoint_id").Unique().Required().Immutable(),
	}
}

func (InboundRequest) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("endpoint_id", "dedup_key").Unique(),
		index.Fields("endpoint_id", "replay_key").Unique(),
		index.Fields("endpoint_id", "received_at"),
	}
}

// Written by the receiver (system context); read by the organization's admins.
func (InboundRequest) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{rule.DenyIfNoViewer(), rule.RequireScope(viewer.ScopeAdmin), rule.FilterOrg()},
		Mutation: privacy.MutationPolicy{privacy.AlwaysDenyRule()},
	}
}
