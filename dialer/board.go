package dialer

import (
	"context"
	"fmt"
	"time"
	_ "time/tzdata" // organization time zones resolve on machines without zoneinfo

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/agentpresence"
	"github.com/lendingpipe/svc/ent/callevent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/organization"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/rule"
)

// AgentStatus is an agent's presence enriched for the board (SPEC 2.4):
// the agent's name, the current lead's name and today's call statistics.
type AgentStatus struct {
	// ID is the presence record's id, which is the agent's user id (one
	// record per agent), so it is stable before the first report too.
	ID               uuid.UUID            `json:"id"`
	UserID           uuid.UUID            `json:"userId"`
	FirstName        string               `json:"firstName"`
	LastName         string               `json:"lastName"`
	Email            string               `json:"email"`
	Status           agentpresence.Status `json:"status" enum:"PresenceStatus"`
	CurrentCallID    *string              `json:"currentCallId"`
	CurrentLeadID    *uuid.UUID           `json:"currentLeadId"`
	CurrentLeadName  *string              `json:"currentLeadName"`
	CallStartedAt    *apitime.Time        `json:"callStartedAt"`
	StatusChangedAt  *apitime.Time        `json:"statusChangedAt"`
	CallsToday       int                  `json:"callsToday" openapi:"count"`
	DispositionCount int                  `json:"dispositionCount" openapi:"count"`
	CampaignName     *string              `json:"campaignName"`
	StatusTimeSec    int                  `json:"statusTimeSec" openapi:"count"`
	orgID            uuid.UUID
}

// Today is the [start, end) of the day containing now in loc.
func Today(now time.Time, loc *time.Location) (time.Time, time.Time) {
	t := now.In(loc)
	start := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
	return start.UTC(), start.AddDate(0, 0, 1).UTC()
}

// Location is the organization's time zone, UTC when unset or unknown.
func Location(ctx context.Context, c *ent.Client, orgID uuid.UUID) *time.Location {
	org, err := c.Organization.Query().Where(organization.ID(orgID)).Only(rule.SystemContext(ctx))
	if err != nil {
		return time.UTC
	}
	loc, err := time.LoadLocation(org.Timezone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// Enrich builds the board rows of users (agents of orgID) in four queries,
// whatever their number: presences, the calls of agents on a call whose
// dialer did not name it, current leads' names, today's counts.
func Enrich(ctx context.Context, c *ent.Client, orgID uuid.UUID, users []*ent.User, now time.Time) ([]*AgentStatus, error) {
	if len(users) == 0 {
		return []*AgentStatus{}, nil
	}
	ids := make([]uuid.UUID, len(users))
	for i, u := range users {
		ids[i] = u.ID
	}
	// The board is the dialer's: a dialer:write key may see the agents'
	// state and their current lead's name without holding leads:read, so
	// these reads name the organization themselves.
	sys := rule.SystemContext(ctx)
	presences, err := c.AgentPresence.Query().Where(agentpresence.OrgID(orgID), agentpresence.UserIDIn(ids...)).All(sys)
	if err != nil {
		return nil, fmt.Errorf("loading presences: %w", err)
	}
	if err := fillCurrentCalls(sys, c, orgID, presences); err != nil {
		return nil, err
	}
	byUser := make(map[uuid.UUID]*ent.AgentPresence, len(presences))
	var leadIDs []uuid.UUID
	for _, p := range presences {
		byUser[p.UserID] = p
		if p.CurrentLeadID != nil {
			leadIDs = append(leadIDs, *p.CurrentLeadID)
		}
	}
	names, err := leadNames(sys, c, orgID, leadIDs)
	if err != nil {
		return nil, err
	}
	counts, err := todayCounts(sys, c, orgID, ids, now)
	if err != nil {
		return nil, err
	}
	out := make([]*AgentStatus, len(users))
	for i, u := range users {
		out[i] = row(u, byUser[u.ID], names, counts[u.ID], now)
	}
	return out, nil
}

func row(u *ent.User, p *ent.AgentPresence, names map[uuid.UUID]string, n dayCount, now time.Time) *AgentStatus {
	a := &AgentStatus{
		ID: u.ID, UserID: u.ID, FirstName: u.FirstName, LastName: u.LastName, Email: u.Email,
		Status: agentpresence.StatusOffline, CallsToday: n.Calls, DispositionCount: n.Dispositions,
		orgID: u.OrgID,
	}
	if p == nil {
		return a
	}
	a.Status, a.CurrentCallID, a.CurrentLeadID = p.Status, p.CurrentCallID, p.CurrentLeadID
	a.CallStartedAt, a.StatusChangedAt, a.CampaignName = apitime.OfPtr(p.CallStartedAt), apitime.OfPtr(&p.StatusChangedAt), p.CampaignName
	a.StatusTimeSec = max(0, int(now.Sub(p.StatusChangedAt).Seconds()))
	if p.CurrentLeadID != nil {
		if name, ok := names[*p.CurrentLeadID]; ok {
			a.CurrentLeadName = &name
		}
	}
	return a
}

// leadNames names each lead by its business, or its contact when it has none.
func leadNames(ctx context.Context, c *ent.Client, orgID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]string, error) {
	names := map[uuid.UUID]string{}
	if len(ids) == 0 {
		return names, nil
	}
	leads, err := c.Lead.Query().Where(lead.OrgID(orgID), lead.IDIn(ids...)).
		Select(lead.FieldBusinessName, lead.FieldContactFirstName, lead.FieldContactLastName).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("loading lead names: %w", err)
	}
	for _, l := range leads {
		names[l.ID] = LeadName(l)
	}
	return names, nil
}

// LeadName is how a lead is named on the board.
func LeadName(l *ent.Lead) string {
	if l.BusinessName != nil && *l.BusinessName != "" {
		return *l.BusinessName
	}
	var first, last string
	if l.ContactFirstName != nil {
		first = *l.ContactFirstName
	}
	if l.ContactLastName != nil {
		last = *l.ContactLastName
	}
	if first == "" || last == "" {
		return first + last
	}
	return first + " " + last
}

type dayCount struct {
	UserID       uuid.UUID `json:"user_id"`
	Calls        int       `json:"calls"`
	Dispositions int       `json:"dispositions"`
}

// todayCounts counts, per agent, today's distinct calls and dispositions,
// "today" being the organization's calendar day.
func todayCounts(ctx context.Context, c *ent.Client, orgID uuid.UUID, ids []uuid.UUID, now time.Time) (map[uuid.UUID]dayCount, error) {
	start, end := Today(now, Location(ctx, c, orgID))
	var rows []dayCount
	// ids are users of orgID (read through the privacy filter), so no org
	// predicate here: with one, SQLite prefers the org_id index and scans
	// the whole floor's day instead of seeking each agent's.
	err := c.CallEvent.Query().
		Where(callevent.OccurredAtGTE(start), callevent.OccurredAtLT(end), callevent.UserIDIn(ids...)).
		GroupBy(callevent.FieldUserID).
		Aggregate(
			func(s *sql.Selector) string {
				return sql.As(sql.Count(sql.Distinct(s.C(callevent.FieldExternalCallID))), "calls")
			},
			func(s *sql.Selector) string {
				return sql.As("SUM(CASE WHEN "+s.C(callevent.FieldEventType)+" = 'disposition' THEN 1 ELSE 0 END)", "dispositions")
			},
		).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("counting today's calls: %w", err)
	}
	out := make(map[uuid.UUID]dayCount, len(rows))
	for _, r := range rows {
		out[r.UserID] = r
	}
	return out, nil
}
