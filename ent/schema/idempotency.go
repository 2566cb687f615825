package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/privacy"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// IdempotencyRecord remembers the outcome of a request sent with an
// Idempotency-Key, so a retry replays it instead of acting twice. The unique
// index on (api_key_id, key) is what makes concurrent retries safe across
// server replicas.
type IdempotencyRecord struct{ ent.Schema }

func (IdempotencyRecord) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

func (IdempotencyRecord) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}}
}

func (IdempotencyRecord) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("api_key_id", uuidType).Immutable(),
		field.String("key").Immutable(),
		// SHA-256 of method, path and body: a retry must send the same request.
		field.String("request_hash").Immutable(),
		field.Enum("state").Values("in_flight", "complete").Default("in_flight"),
		field.Int("response_status").Optional(),
		field.Bytes("response_body").Optional(),
		// X-Request-Id of the first request, which a replay answers with.
		field.String("request_id").Default(""),
		// An in-flight record older than this was abandoned (a crash) and may be taken over.
		field.Time("locked_until"),
		field.Time("created_at").Immutable(),
		field.Time("expires_at"),
	}
}

func (IdempotencyRecord) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("api_key_id", "key").Unique(),
		index.Fields("expires_at"),
	}
}

// Only the idempotency layer, acting with the system context, touches these.
func (IdempotencyRecord) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{privacy.AlwaysDenyRule()},
		Mutation: privacy.MutationPolicy{privacy.AlwaysDenyRule()},
	}
}
