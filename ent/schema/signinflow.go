package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/privacy"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// SignInFlow is a single sign-on begun at GET /auth/oidc/start and not yet
// finished (PRODUCT 9.6). It lives in the database, not in the process, so
// the provider may send the browser back to any replica; the callback
// deletes the row it finishes with, conditionally, so a state and its code
// serve once. The state is stored as its SHA-256 alone: the browser holds
// it (in the svc_oidc cookie and the callback's query), and a copy of the
// database must not finish anyone's flow.
type SignInFlow struct{ ent.Schema }

func (SignInFlow) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

func (SignInFlow) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}}
}

func (SignInFlow) Fields() []ent.Field {
	return []ent.Field{
		field.String("state_hash").Unique().Immutable().Sensitive(),
		// The nonce the ID token must carry: it ties the token to this flow.
		field.String("nonce").Immutable().Sensitive(),
		// The PKCE code verifier the code is exchanged with.
		field.String("verifier").Immutable().Sensitive(),
		field.Time("created_at").Immutable(),
		// Ten minutes after the start: a flow not finished by then is refused.
		field.Time("expires_at").Immutable(),
	}
}

func (SignInFlow) Indexes() []ent.Index {
	// The purge of flows never finished.
	return []ent.Index{index.Fields("expires_at")}
}

// Only the sign-in flows, acting with the system context, read and write
// them.
func (SignInFlow) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{privacy.AlwaysDenyRule()},
		Mutation: privacy.MutationPolicy{privacy.AlwaysDenyRule()},
	}
}
