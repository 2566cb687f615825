package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/viewer"
)

// User is a person of the organization: an advisor who owns leads, a dialer
// agent who makes calls, or an admin.
type User struct{ ent.Schema }

func (User) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("A person of the organization: an advisor who owns leads, a dialer agent who makes calls, or an admin."),
		entgql.QueryField().Description("The organization's users."),
		entgql.RelayConnection(),
		entgql.Mutations(entgql.MutationCreate(), entgql.MutationUpdate()),
	}
}

func (User) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "users", LeadingIndexes: true}}
}

func (User) Fields() []ent.Field {
	return []ent.Field{
		field.String("first_name").Validate(runeLen(1, 100)).Annotations(entgql.OrderField("FIRST_NAME")).
			Comment("First name: 1 to 100 characters."),
		field.String("last_name").Validate(runeLen(1, 100)).Annotations(entgql.OrderField("LAST_NAME")).
			Comment("Last name: 1 to 100 characters."),
		field.String("email").Validate(email).
			Comment("Email address, unique within the organization."),
		field.Enum("role").Values(enum.UserRoles...).Default("advisor").
			Comment("What the user does in the organization (advisor by default).").
			Annotations(valueDocs(enum.UserRoleDocs)),
		field.UUID("team_id", uuidType).Optional().Nillable().
			Comment("The id of the user's team; null when in none. Setting it moves the user to that team."),
		// Signing in (PRODUCT 9.1). The sign-in email is the user's email,
		// lower-cased, held while the user may sign in (invited, active or
		// deactivated): unique across organizations, so an email names one
		// person to sign in.
		field.String("sign_in_email").Optional().Nillable().Unique().Annotations(entgql.Skip()),
		// An argon2id hash in PHC form, with the parameters it was made with.
		field.String("password_hash").Optional().Nillable().Sensitive().Annotations(entgql.Skip()),
		// The SHA-256 of the invitation token, while one is open.
		field.String("invitation_hash").Optional().Nillable().Unique().Sensitive().Annotations(entgql.Skip()),
		field.Time("invitation_expires_at").Optional().Nillable().Annotations(skipInputs()).
			Comment("When the open invitation stops working; null when none is open."),
		field.Time("deactivated_at").Optional().Nillable().Annotations(skipInputs()).
			Comment("When an admin deactivated the user's sign-in; null while it works."),
		field.Time("last_sign_in_at").Optional().Nillable().Annotations(skipInputs()).
			Comment("When the user last signed in; null for never."),
	}
}

func (User) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("team", Team.Type).Ref("members").Field("team_id").Unique().
			Comment("The user's team; null when in none."),
		edge.To("advised_leads", Lead.Type).Annotations(noInput, entgql.RelayConnection()).
			Comment("The leads whose primary advisor the user is."),
		edge.To("call_events", CallEvent.Type).Annotations(noInput, entgql.RelayConnection()).
			Comment("The call events of the user's calls as a dialer agent."),
		edge.To("presence", AgentPresence.Type).Unique().Annotations(noInput, entgql.Skip()),
	}
}

// skipInputs keeps a field out of the create and update inputs: only the
// sign-in flows set it.
func skipInputs() entgql.Annotation {
	return entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)
}

func (User) Indexes() []ent.Index {
	return []ent.Index{index.Fields("org_id", "email").Unique()}
}

func (User) Policy() ent.Policy { return orgPolicy("", viewer.ScopeAdmin) }
