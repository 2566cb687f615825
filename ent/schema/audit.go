package schema

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/privacy"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
)

// AuditEvent records one administrative action: who did it, when, to what,
// under which request. It is written by the action's own hooks in the
// action's transaction (audited), so an action rolled back leaves none,
// and it names the fields an action set, never their values: no secret
// reaches it.
type AuditEvent struct{ ent.Schema }

func (AuditEvent) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("An administrative action: an API key created, rotated or revoked; a webhook subscription, " +
			"inbound endpoint or automation created, changed or deleted; an app registered, installed or uninstalled."),
		entgql.QueryField().Description("The organization's audit log, newest first by default (admin scope)."),
		entgql.RelayConnection(),
		entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput),
	}
}

func (AuditEvent) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, OrgMixin{Ref: "audit_events", LeadingIndexes: true}}
}

func (AuditEvent) Fields() []ent.Field {
	return []ent.Field{
		field.Time("occurred_at").Default(now).Immutable().
			Comment("When the action was made.").
			Annotations(entgql.OrderField("OCCURRED_AT")),
		field.String("actor").Immutable().
			Comment("Who acted: user:<id> for a person (signed in, or through a key bound to them), the API key's id, " +
				"automation:<id>, anonymous for a sign-in that failed, or system (the command line, the service)."),
		field.String("action").Immutable().
			Comment("What was done: <target>.<verb>, such as api_key.created, api_key.rotated, api_key.revoked, " +
				"webhook_subscription.updated, automation.deleted, app.registered, app_installation.installed, " +
				"app_installation.uninstalled, user.invited, user.sign_in_reset, user.deactivated, user.signed_in, " +
				"user.sign_in_failed or user.signed_out."),
		field.String("target_type").Immutable().
			Comment("The kind of record acted on: api_key, webhook_subscription, inbound_endpoint, automation, app, " +
				"app_installation or user."),
		field.UUID("target_id", uuid.UUID{}).Immutable().
			Comment("The id of the record acted on."),
		field.String("request_id").Optional().Nillable().Immutable().
			Comment("The X-Request-Id of the request that acted; null for the command line and the service's workers."),
		field.Strings("fields").Optional().Immutable().
			Comment("The fields the action set, by name; never their values."),
		field.String("email").Optional().Nillable().Immutable().
			Comment("For sign-in events, the email tried; never a password or token."),
		field.String("client_ip").Optional().Nillable().Immutable().
			Comment("For sign-in events, the address the attempt came from."),
	}
}

func (AuditEvent) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields(orgColumn, "occurred_at"),
		index.Fields(orgColumn, "target_id"),
		// The hourly purge of what is past the retention.
		index.Fields("occurred_at"),
	}
}

// Only the audited hooks write the log, with the system context; admins
// read their organization's.
func (AuditEvent) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{rule.DenyIfNoViewer(), rule.RequireScope(viewer.ScopeAdmin), rule.FilterOrg()},
		Mutation: privacy.MutationPolicy{privacy.AlwaysDenyRule()},
	}
}

// auditedMutation is what the audited hook reads of a mutation of an
// organization's record.
type auditedMutation interface {
	gen.Mutation
	orgMutation
	ID() (uuid.UUID, bool)
	IDs(context.Context) ([]uuid.UUID, error)
	Client() *gen.Client
}

// audited records each change m makes to a record of targetType in the
// audit log, in the change's transaction: one row per record, after the
// change succeeded. verb names an update from its fields (an API key's
// revocation, say); nil names it "updated". A change made with no caller
// and no organization named is the service's own bookkeeping (a delivery's
// outcome on its subscription, a key's lastUsedAt), not an administrative
// action, and is not recorded.
func audited(targetType string, verb func(fields []string) string) ent.Hook {
	return auditedAs(targetType, "created", verb)
}

// auditedAs is audited naming a create createVerb (an app is registered,
// an installation installed) rather than created.
func auditedAs(targetType, createVerb string, verb func(fields []string) string) ent.Hook {
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			am, ok := m.(auditedMutation)
			if !ok {
				return nil, fmt.Errorf("auditing %s: mutation %T has no ids", targetType, m)
			}
			org, known := mutationOrgOf(ctx, am)
			if !known {
				return next.Mutate(ctx, m)
			}
			var ids []uuid.UUID
			if !m.Op().Is(ent.OpCreate) {
				var err error
				if ids, err = am.IDs(ctx); err != nil {
					return nil, fmt.Errorf("auditing %s: %w", targetType, err)
				}
			}
			v, err := next.Mutate(ctx, m)
			if err != nil {
				return v, err
			}
			if m.Op().Is(ent.OpCreate) {
				id, ok := am.ID()
				if !ok {
					return nil, fmt.Errorf("auditing %s: the created record has no id", targetType)
				}
				ids = []uuid.UUID{id}
			}
			return v, writeAudit(ctx, am, org, targetType+"."+auditVerb(m, createVerb, verb), ids)
		})
	}
}

// auditVerb names what m does.
func auditVerb(m ent.Mutation, createVerb string, verb func([]string) string) string {
	switch {
	case m.Op().Is(ent.OpCreate):
		return createVerb
	case m.Op().Is(ent.OpDelete | ent.OpDeleteOne):
		return "deleted"
	case verb != nil:
		return verb(m.Fields())
	}
	return "updated"
}

// writeAudit writes one audit row of action per id, in org.
func writeAudit(ctx context.Context, m auditedMutation, org uuid.UUID, action string, ids []uuid.UUID) error {
	if len(ids) == 0 {
		return nil
	}
	// Set, cleared and added to: what the action changed.
	fields := slices.Concat(m.Fields(), m.ClearedFields(), m.AddedFields())
	slices.Sort(fields)
	fields = slices.Compact(fields)
	for i, f := range fields {
		fields[i] = apperr.FieldName(f)
	}
	c := m.Client()
	at := apitime.Now(ctx)
	target, _, _ := strings.Cut(action, ".")
	rows := make([]*gen.AuditEventCreate, len(ids))
	for i, id := range ids {
		rows[i] = c.AuditEvent.Create().SetOrgID(org).SetOccurredAt(at).SetActor(*events.Actor(ctx)).
			SetAction(action).SetTargetType(target).SetTargetID(id).
			SetNillableRequestID(viewer.RequestIDOf(ctx)).SetFields(fields)
	}
	if err := c.AuditEvent.CreateBulk(rows...).Exec(rule.SystemContext(ctx)); err != nil {
		return fmt.Errorf("writing the audit log: %w", err)
	}
	return nil
}
