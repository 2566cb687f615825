package schema

import (
	"fmt"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Lead is a potential borrower (SPEC 2.2).
type Lead struct{ ent.Schema }

func (Lead) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("A potential borrower: a business and its contact person, moving through the organization's pipeline stages."),
		entgql.QueryField().Description("The organization's leads, newest first unless orderBy says otherwise. " +
			"Without where, totalCount is the organization's lead count (as the REST list's total)."),
		entgql.RelayConnection(),
		entgql.Mutations(entgql.MutationCreate(), entgql.MutationUpdate()),
	}
}

func (Lead) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "leads", LeadingIndexes: true}}
}

func (Lead) Fields() []ent.Field {
	optional := func(name, doc string, check func(string) error) ent.Field {
		return field.String(name).Optional().Nillable().Validate(check).Comment(doc)
	}
	return []ent.Field{
		field.String("business_name").Optional().Nillable().Validate(all(textLen(bounds.BusinessName), noHTML)).
			Comment(fmt.Sprintf("The borrowing business's name: %d to %d characters, no HTML; null when not given.",
				bounds.BusinessName.Min, bounds.BusinessName.Max)).
			Annotations(entgql.OrderField("BUSINESS_NAME")),
		optional("contact_first_name", atMost("The contact person's first name", bounds.PersonName), textLen(bounds.PersonName)),
		optional("contact_last_name", atMost("The contact person's last name", bounds.PersonName), textLen(bounds.PersonName)),
		optional("email", fmt.Sprintf("The contact's email address (a bare address, at most %d characters); null when not given.",
			bounds.Email.Max), email),
		optional("phone", atMost("The contact's phone number as given", bounds.Phone), textLen(bounds.Phone)),
		optional("industry", atMost("The business's industry", bounds.Industry), textLen(bounds.Industry)),
		optional("monthly_revenue", "The business's monthly revenue: a non-negative decimal string (up to 15 digits, "+
			"4 after the point, such as \"12500.00\"), so no precision is lost; null when not given.", numeric),
		optional("requested_amount", "The amount the business asks to borrow, a decimal string like monthlyRevenue; "+
			"null when not given.", numeric),
		field.Enum("source").Values(enum.LeadSources...).Default("manual").Immutable().
			Comment("How the lead reached the pipeline: set on create (manual by default), never changed.").
			Annotations(valueDocs(enum.LeadSourceDocs)),
		field.Enum("priority").Values(enum.LeadPriorities...).Default("normal").
			Comment("How urgently the lead should be worked (normal by default).").
			Annotations(entgql.OrderField("PRIORITY"), valueDocs(enum.LeadPriorityDocs)),
		field.Bool("is_do_not_call").Default(false).Annotations(noInput).
			Comment("true when the lead must not be called: set by markDoNotCall or a do_not_call disposition."),
		field.Strings("tags").Default([]string{}).
			Comment(fmt.Sprintf("Free labels: at most %d, each %d to %d characters; empty when none.", bounds.MaxTags, bounds.Tag.Min, bounds.Tag.Max)),
		field.JSON("custom_fields", map[string]any{}).Default(map[string]any{}).Annotations(entgql.Type("Map")).
			Comment(fmt.Sprintf("The organization's own attributes as a JSON object: at most %d keys, %d levels, %d KB; {} when none.",
				bounds.CustomFields.Keys, bounds.CustomFields.Depth, bounds.CustomFields.Bytes>>10)),
		// Set on create (partners' own ids, matched by automations); not by PATCH.
		field.JSON("external_ids", map[string]any{}).Default(map[string]any{}).
			Comment(fmt.Sprintf("Other systems' ids for the lead, as a JSON object of at most %d strings or numbers; ", bounds.MaxExternalIDs)+
				"set on create only, matched by automations' update_lead; {} when none.").
			Annotations(entgql.Type("Map"), entgql.Skip(entgql.SkipMutationUpdateInput)),
		field.Int("lead_score").Optional().Nillable().Range(0, 100).Annotations(noInput).
			Comment("A score from 0 to 100 set by scoring; null until scored."),
		// Optional only in the input: the lead hook defaults it to the first stage.
		field.UUID("stage_id", uuidType).Optional().
			Comment("The id of the lead's pipeline stage. On create, the first stage when omitted; " +
				"afterwards it changes through moveLeadToStage."),
		field.UUID("primary_advisor_id", uuidType).Optional().Nillable().
			Comment("The id of the lead's primary advisor (a user); null when unassigned. " +
				"After create it changes through assignLead."),
		field.UUID("contact_id", uuidType).Optional().Nillable().
			Comment("The id of the linked contact; null when none."),
		field.Time("last_contacted_at").Optional().Nillable().Annotations(noInput).
			Comment("The latest occurredAt of the lead's call events and dispositions; null before the first."),
		field.Time("stage_changed_at").Annotations(noInput).
			Comment("When the lead entered its current stage."),
		field.String("dnc_reason").Optional().Nillable().Validate(textLen(bounds.DNCReason)).Annotations(noInput).
			Comment("Why the lead is do-not-call (the reason given, or the disposition's notes or code); null otherwise."),
		field.Time("dnc_at").Optional().Nillable().Annotations(noInput).
			Comment("When the lead was marked do-not-call; null otherwise."),
		field.Time("converted_at").Optional().Nillable().Annotations(noInput).
			Comment("When the lead converted into a customer account; null until then."),
		field.UUID("converted_account_id", uuidType).Optional().Nillable().Annotations(noInput).
			Comment("The id of the account the lead converted into; null until then."),
		field.UUID("converted_contact_id", uuidType).Optional().Nillable().Annotations(noInput).
			Comment("The id of the contact the conversion created; null until then."),
		field.UUID("import_job_id", uuidType).Optional().Nillable().Immutable().Annotations(noInput).
			Comment("The id of the CSV import that created the lead; null for other sources."),
		field.String("created_by").Optional().Nillable().Immutable().Annotations(noInput).
			Comment("Who created the lead: the id of the API key, or automation:<id> for an automation; null when unknown."),
	}
}

func (Lead) Edges() []ent.Edge {
	return []ent.Edge{
		// Stage and advisor change through moveLeadToStage and assignLead, which
		// emit their own events, never through a plain update.
		edge.From("stage", PipelineStage.Type).Ref("leads").Field("stage_id").Unique().
			Comment("The lead's pipeline stage.").
			Annotations(entgql.Skip(entgql.SkipMutationUpdateInput)),
		edge.From("primary_advisor", User.Type).Ref("advised_leads").Field("primary_advisor_id").Unique().
			Comment("The lead's primary advisor; null when unassigned.").
			Annotations(entgql.Skip(entgql.SkipMutationUpdateInput)),
		edge.From("contact", Contact.Type).Ref("leads").Field("contact_id").Unique().
			Comment("The linked contact; null when none.").
			Annotations(entgql.Skip(entgql.SkipMutationUpdateInput)),
		edge.To("call_events", CallEvent.Type).Annotations(noInput, entgql.RelayConnection()).
			Comment("The call events reported for the lead."),
		edge.To("presences", AgentPresence.Type).Annotations(noInput, entgql.Skip()),
		edge.To("applications", Application.Type).Annotations(noInput).
			Comment("The lead's applications to lenders, oldest first."),
		edge.To("funded_deals", FundedDeal.Type).Annotations(noInput).
			Comment("The lead's funded deals."),
	}
}

func (Lead) Indexes() []ent.Index {
	return []ent.Index{
		// GET /v1/leads: newest first within an organization.
		index.Fields("org_id", "created_at", "id"),
		index.Fields("org_id", "email"),
		// A pipeline board's column: a stage's newest leads. Without it a
		// column walks the organization's newest leads past every other
		// stage's (most of them, for a stage few leads reach).
		index.Fields("org_id", "stage_id", "created_at", "id"),
	}
}

func (Lead) Policy() ent.Policy { return orgPolicy(viewer.ScopeLeadsRead, viewer.ScopeLeadsWrite) }
