package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	"github.com/lendingpipe/svc/internal/viewer"
)

// APIKey is a bearer credential, svc_{live|at}_{secret} (SPEC 5). Only a
// SHA-256 of the whole key is stored: the secret has 256 bits of entropy,
// so a fast hash is enough and lookups stay a single indexed read.
type APIKey struct{ ent.Schema }

func (APIKey) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

func (APIKey) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "api_keys"}}
}

func (APIKey) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Default(""),
		field.Enum("kind").Values("live", "at").Default("live"),
		// The first characters of the key, safe to show in listings.
		field.String("display_prefix").Immutable(),
		field.String("hash").Unique().Immutable().Sensitive(),
		field.Strings("scopes"),
		field.Time("last_used_at").Optional().Nillable(),
		field.Time("expires_at").Optional().Nillable(),
		field.Time("revoked_at").Optional().Nillable(),
	}
}

func (APIKey) Policy() ent.Policy { return orgPolicy(viewer.ScopeAdmin, viewer.ScopeAdmin) }
