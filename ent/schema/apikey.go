package schema

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/events"
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
		// The key that replaced this one when it was rotated; this one
		// then works until its expires_at, the rotation's grace period.
		field.UUID("replaced_by", uuid.UUID{}).Optional().Nillable(),
		// The app installation an app token (kind at) belongs to; its
		// uninstallation revokes the token.
		field.UUID("installation_id", uuid.UUID{}).Optional().Nillable().Immutable(),
		// The person a key acts as (PRODUCT 9.4): authorship, "my" and the
		// actor are theirs, with the key's own scopes. A deactivated
		// user's keys stop working.
		field.UUID("user_id", uuid.UUID{}).Optional().Nillable().Immutable(),
	}
}

// Every change to a key an admin makes is in the audit log: created,
// rotated (replaced_by set), revoked (revoked_at set).
func (APIKey) Hooks() []ent.Hook {
	return []ent.Hook{appTokenOfAnInstallation, events.BumpKeysOnCommit, audited("api_key", func(fields []string) string {
		switch {
		case slices.Contains(fields, "revoked_at"):
			return "revoked"
		case slices.Contains(fields, "replaced_by"):
			return "rotated"
		}
		return "updated"
	})}
}

func (APIKey) Policy() ent.Policy { return orgPolicy(viewer.ScopeAdmin, viewer.ScopeAdmin) }

// errOrphanAppToken refuses an app token without an installation.
var errOrphanAppToken = errors.New("an app token (svc_at_) is made only by installing an app, for its installation")

// appTokenOfAnInstallation holds PRODUCT 3 on every writer: every app
// token belongs to an installation (uninstalling it is what cuts the
// token off), and an API key belongs to none.
func appTokenOfAnInstallation(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		if !m.Op().Is(ent.OpCreate) {
			return next.Mutate(ctx, m)
		}
		kind, _ := m.Field("kind")
		_, installed := m.Field("installation_id")
		switch {
		case fmt.Sprint(kind) == "at" && !installed:
			return nil, errOrphanAppToken
		case fmt.Sprint(kind) != "at" && installed:
			return nil, errors.New("an API key (svc_live_) belongs to no app installation")
		}
		return next.Mutate(ctx, m)
	})
}
