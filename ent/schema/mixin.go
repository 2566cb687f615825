package schema

import (
	"context"
	"fmt"
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/privacy"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"entgo.io/ent/schema/mixin"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
)

// IDMixin gives an entity a time-ordered UUID primary key (v7 keeps
// B-tree inserts local on PostgreSQL).
type IDMixin struct{ mixin.Schema }

func (IDMixin) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(newID).Immutable().
			Comment("The record's unique id, a UUID."),
	}
}

func newID() uuid.UUID { return uuid.Must(uuid.NewV7()) }

// TimeMixin records creation and last change.
type TimeMixin struct{ mixin.Schema }

func (TimeMixin) Fields() []ent.Field {
	return []ent.Field{
		field.Time("created_at").Default(now).Immutable().
			Comment("When the record was created.").
			Annotations(entgql.OrderField("CREATED_AT"), noInput),
		field.Time("updated_at").Default(now).UpdateDefault(now).
			Comment("When the record last changed.").
			Annotations(entgql.OrderField("UPDATED_AT"), noInput),
	}
}

// now is the default without a clock in the context: UTC to the
// millisecond, as every timestamp is stored (apitime.StoreMillis).
func now() time.Time { return apitime.Truncate(time.Now()) }

func (TimeMixin) Hooks() []ent.Hook {
	return []ent.Hook{stampTimes}
}

// stampTimes takes created_at and updated_at from the clock the request or
// worker runs by (apitime.WithClock, the server's injected clock), so a
// row's times agree with the events and records stamped beside it; without
// one the field defaults stand.
func stampTimes(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		if !apitime.HasClock(ctx) || m.Op().Is(ent.OpDelete|ent.OpDeleteOne) {
			return next.Mutate(ctx, m)
		}
		at := apitime.Now(ctx)
		if m.Op().Is(ent.OpCreate) {
			if err := m.SetField("created_at", at); err != nil {
				return nil, fmt.Errorf("stamping created_at: %w", err)
			}
		}
		if err := m.SetField("updated_at", at); err != nil {
			return nil, fmt.Errorf("stamping updated_at: %w", err)
		}
		return next.Mutate(ctx, m)
	})
}

// orgColumn is the organization's column of every OrgMixin table.
const orgColumn = "org_id"

// OrgMixin makes an entity belong to one organization. Rows are stamped with
// the viewer's organization on create and filtered by it on every read,
// update and delete (rule.FilterOrg), so neither API surface can reach
// another organization's data.
type OrgMixin struct {
	mixin.Schema
	// Ref is the name of the organization's edge to this entity.
	Ref string
	// LeadingIndexes says the schema's own indexes begin with org_id, so a
	// separate org_id index would only cost every insert another b-tree.
	LeadingIndexes bool
}

func (OrgMixin) Fields() []ent.Field {
	return []ent.Field{
		field.UUID(orgColumn, uuid.UUID{}).Immutable().Annotations(entgql.Skip()),
	}
}

func (m OrgMixin) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("organization", Organization.Type).Ref(m.Ref).Field(orgColumn).
			Unique().Required().Immutable().Annotations(entgql.Skip()),
	}
}

func (m OrgMixin) Indexes() []ent.Index {
	if m.LeadingIndexes {
		return nil
	}
	return []ent.Index{index.Fields(orgColumn)}
}

func (OrgMixin) Hooks() []ent.Hook {
	return []ent.Hook{stampOrg}
}

// orgMutation is implemented by the generated mutation of every OrgMixin schema.
type orgMutation interface {
	OrgID() (uuid.UUID, bool)
	SetOrgID(uuid.UUID)
}

// stampOrg sets org_id of a new row to the viewer's organization, and denies
// a create that names another organization.
func stampOrg(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		if !m.Op().Is(ent.OpCreate) {
			return next.Mutate(ctx, m)
		}
		om, ok := m.(orgMutation)
		if !ok {
			return nil, fmt.Errorf("%T does not carry an organization", m)
		}
		v, ok := viewer.FromContext(ctx)
		if !ok {
			// System context: the caller must have named the organization.
			return next.Mutate(ctx, m)
		}
		if id, set := om.OrgID(); set && id != v.OrgID {
			return nil, privacy.Denyf("cannot create rows for another organization")
		}
		om.SetOrgID(v.OrgID)
		return next.Mutate(ctx, m)
	})
}

// orgPolicy is the policy of tenant-owned data: reads need readScope,
// writes need writeScope, and both see only the viewer's organization.
func orgPolicy(readScope, writeScope string) ent.Policy {
	read := []privacy.QueryRule{rule.DenyIfNoViewer()}
	if readScope != "" {
		read = append(read, rule.RequireScope(readScope))
	}
	return privacy.Policy{
		Query: append(read, rule.FilterOrg()),
		Mutation: privacy.MutationPolicy{
			rule.DenyIfNoViewer(),
			rule.RequireScope(writeScope),
			rule.FilterOrg(),
		},
	}
}
