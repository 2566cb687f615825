package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/privacy"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/events"
)

// Session is a person signed in (PRODUCT 9.2). The browser holds a random
// 256-bit token in the svc_session cookie; only its SHA-256 is stored, so
// a copy of the database signs no one in. Sessions live in the database so
// every replica honours them, and ending one (sign-out, a reset, a
// deactivation) deletes its row: the next request on any replica is
// refused.
type Session struct{ ent.Schema }

func (Session) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

func (Session) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}}
}

func (Session) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("org_id", uuidType).Immutable(),
		field.UUID("user_id", uuidType).Immutable(),
		field.String("token_hash").Unique().Immutable().Sensitive(),
		field.Time("created_at").Immutable(),
		// When the session was last used, written at most once a minute:
		// the idle timeout counts from it.
		field.Time("last_seen_at"),
		// The absolute end, whatever its use.
		field.Time("expires_at").Immutable(),
		// The CSRF token cookie requests that change anything must carry
		// (X-CSRF-Token). Random, and no credential by itself: it is
		// returned to the signed-in page, which cannot read the cookie.
		field.String("csrf_token").Immutable().Sensitive(),
		// How the person signed in: password or oidc.
		field.String("method").Immutable(),
		field.String("client_ip").Default("").Immutable(),
		field.String("user_agent").Default("").Immutable(),
	}
}

func (Session) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id"),
		// The purge of sessions past their absolute end.
		index.Fields("expires_at"),
	}
}

// A session's end (sign-out, a reset, a deactivation, a timeout) moves the
// store's keys version on once it commits, so this replica's session cache
// reads it again at once.
func (Session) Hooks() []ent.Hook { return []ent.Hook{events.BumpKeysOnCommit} }

// Only the sign-in flows, acting with the system context, read and write
// sessions.
func (Session) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{privacy.AlwaysDenyRule()},
		Mutation: privacy.MutationPolicy{privacy.AlwaysDenyRule()},
	}
}

// SignInFailure is one refused sign-in, kept for the lockout: after five
// for one email within 15 minutes, that email is refused for 15 minutes
// (PRODUCT 9.2). The email is stored as its SHA-256 alone, lower-cased, so
// emails nobody holds, typed by strangers, are not kept; the audit log
// names the email tried when it is a person's of an organization.
type SignInFailure struct{ ent.Schema }

func (SignInFailure) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

func (SignInFailure) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}}
}

func (SignInFailure) Fields() []ent.Field {
	return []ent.Field{
		field.String("email_hash").Immutable(),
		field.Time("at").Immutable(),
	}
}

func (SignInFailure) Indexes() []ent.Index {
	return []ent.Index{index.Fields("email_hash", "at"), index.Fields("at")}
}

func (SignInFailure) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{privacy.AlwaysDenyRule()},
		Mutation: privacy.MutationPolicy{privacy.AlwaysDenyRule()},
	}
}
