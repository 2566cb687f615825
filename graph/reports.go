package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/organization"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/period"
	"github.com/lendingpipe/svc/internal/viewer"
)

// ReportParams are the analytics reports' shared parameters as sent: both
// surfaces (GraphQL analytics, REST /v1/analytics/{report}) pass them here.
type ReportParams struct {
	From, To, Timezone *string
	Interval           *analytics.Interval
	AdvisorID, TeamID  *uuid.UUID
}

// RangeBound reads one end of a record filter's range as period.Bound
// does, a date in the organization's time zone.
func (r *Resolver) RangeBound(ctx context.Context, field, s string, end bool) (time.Time, error) {
	v, ok := viewer.FromContext(ctx)
	if !ok {
		return time.Time{}, apperr.New(apperr.Unauthorized, "no API key")
	}
	org, err := r.client(ctx).Organization.Query().Where(organization.ID(v.OrgID)).Only(ctx)
	if err != nil {
		return time.Time{}, err
	}
	loc, err := period.Location(org.Timezone)
	if err != nil {
		return time.Time{}, fmt.Errorf("the organization's time zone: %w", err)
	}
	return period.Bound(field, s, loc, end)
}

// CheckRange refuses a record filter's range whose end is not after its
// start, naming the end as the caller's surface names it (fundedTo,
// createdTo, createdAtLT): such a range is a mistake, not a filter that
// silently matches nothing.
func CheckRange(from, to *time.Time, fromName, toName string) error {
	if from != nil && to != nil && !to.After(*from) {
		return apperr.Invalid(toName, "must be after %s", fromName)
	}
	return nil
}

// ReportRequest checks the caller may read analytics (the reports read
// with the system context, see package analytics) and resolves the
// parameters: the range in the given zone or the organization's, the
// interval (day unless given), and the people filter. GraphQL's analytics
// field and REST's GET /v1/analytics/{report} both start here, and then
// compute the report with the Analytics resolver.
func (r *Resolver) ReportRequest(ctx context.Context, p ReportParams) (*analytics.Request, error) {
	v, ok := viewer.FromContext(ctx)
	if !ok || !v.Can(viewer.ScopeAnalyticsRead) {
		return nil, apperr.New(apperr.Forbidden, "API key lacks the %s scope", viewer.ScopeAnalyticsRead)
	}
	org, err := r.client(ctx).Organization.Query().Where(organization.ID(v.OrgID)).Only(ctx)
	if err != nil {
		return nil, err
	}
	rng, err := period.Parse(period.Params{From: deref(p.From), To: deref(p.To), TimeZone: deref(p.Timezone)},
		org.Timezone, apitime.Now(ctx))
	if err != nil {
		return nil, err
	}
	q := &analytics.Request{OrgID: v.OrgID, Range: rng, Interval: period.Day, Dialect: r.db.Dialect}
	if org.RollupZone != nil {
		q.RollupZone = *org.RollupZone
	}
	if p.Interval != nil {
		q.Interval = *p.Interval
	}
	filter := analytics.Filter{AdvisorID: p.AdvisorID, TeamID: p.TeamID}
	if q.People, err = filter.People(ctx, r.client(ctx), v.OrgID); err != nil {
		return nil, err
	}
	return q, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// updateOrganization changes the caller's organization's settings; the
// privacy policy admits admin keys, for their own organization only.
func (r *Resolver) updateOrganization(ctx context.Context, in UpdateOrganizationInput) (*ent.Organization, error) {
	v, _ := viewer.FromContext(ctx)
	return r.client(ctx).Organization.UpdateOneID(v.OrgID).
		SetNillableName(in.Name).SetNillableTimezone(in.Timezone).SetNillableCurrency(in.Currency).Save(ctx)
}
