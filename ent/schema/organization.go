package schema

import (
	"errors"
	"strings"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/privacy"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"golang.org/x/text/currency"

	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/period"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
)

// ianaZone accepts the IANA time zone names the reports cut days in.
func ianaZone(name string) error {
	if name == "" {
		return errors.New("must be an IANA time zone name such as America/New_York")
	}
	if _, err := period.Zone(name, ""); err != nil {
		if e, ok := apperr.As(err); ok {
			return errors.New(e.Message)
		}
		return err
	}
	return nil
}

// isoCurrency accepts the ISO 4217 codes of currencies in use (USD, EUR,
// GBP, CAD, ...), in capitals.
func isoCurrency(code string) error {
	if len(code) != 3 || strings.ToUpper(code) != code {
		return errors.New("must be an ISO 4217 currency code in capitals, such as USD")
	}
	if _, err := currency.ParseISO(code); err != nil {
		return errors.New("must be an ISO 4217 currency code in capitals, such as USD")
	}
	return nil
}

// Organization is a tenant: a broker shop. Everything else belongs to one.
type Organization struct{ ent.Schema }

func (Organization) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

func (Organization) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}}
}

func (Organization) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Validate(runeLen(1, 200)),
		// The IANA zone the organization's days are cut in: the reports'
		// default, "today" in dialer statistics.
		field.String("timezone").Default("UTC").Validate(ianaZone),
		// The ISO 4217 currency its amounts are in: what the console
		// writes beside every amount. Amounts carry no currency of their
		// own; this names the organization's.
		field.String("currency").Default("USD").Validate(isoCurrency),
		// The zone the analytics rollups' days are cut in (see
		// ent/schema/rollup.go): a new organization's own, then the zone
		// of their last rebuild. Null until an organization that predates
		// the rollups gets them built; reports in any other zone read the
		// records.
		field.String("rollup_zone").Optional().Nillable().Validate(ianaZone),
		// SHA-256 of the dialer connector token; the token itself is shown once.
		field.String("connector_token_hash").Unique().Sensitive(),
	}
}

func (Organization) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("api_keys", APIKey.Type),
		edge.To("users", User.Type),
		edge.To("teams", Team.Type),
		edge.To("stages", PipelineStage.Type),
		edge.To("contacts", Contact.Type),
		edge.To("leads", Lead.Type),
		edge.To("call_events", CallEvent.Type),
		edge.To("presences", AgentPresence.Type),
		edge.To("webhook_subscriptions", WebhookSubscription.Type),
		edge.To("inbound_endpoints", InboundEndpoint.Type),
		edge.To("automations", Automation.Type),
		edge.To("lenders", Lender.Type),
		edge.To("applications", Application.Type),
		edge.To("funded_deals", FundedDeal.Type),
		edge.To("commissions", Commission.Type),
		edge.To("commission_payments", CommissionPayment.Type),
		edge.To("audit_events", AuditEvent.Type).Annotations(entgql.Skip()),
		edge.To("apps", App.Type).Annotations(entgql.Skip()),
		edge.To("app_installations", AppInstallation.Type).Annotations(entgql.Skip()),
		edge.To("documents", Document.Type).Annotations(entgql.Skip()),
		edge.To("import_jobs", ImportJob.Type).Annotations(entgql.Skip()),
		edge.To("activities", Activity.Type).Annotations(entgql.Skip()),
		edge.To("notes", Note.Type).Annotations(entgql.Skip()),
		edge.To("tasks", Task.Type).Annotations(entgql.Skip()),
		edge.To("stipulations", Stipulation.Type).Annotations(entgql.Skip()),
		edge.To("notifications", Notification.Type).Annotations(entgql.Skip()),
		edge.To("saved_views", SavedView.Type).Annotations(entgql.Skip()),
	}
}

// Organizations are created and changed only by trusted code (the command
// line, start-up); a viewer reads its own.
func (Organization) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{rule.DenyIfNoViewer(), rule.FilterOwnOrg()},
		// An admin key may change its own organization's settings
		// (updateOrganization); the command line creates organizations.
		Mutation: privacy.MutationPolicy{rule.DenyIfNoViewer(), rule.RequireScope(viewer.ScopeAdmin), rule.FilterOwnOrg()},
	}
}
