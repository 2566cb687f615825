// Package myday is a person's day (PRODUCT 10.4): their open tasks that
// are overdue and those due later today, today being the organization's
// day in its time zone, the renewals of their deals that are due and the
// approved applications of their leads still waiting on a stipulation.
// Of reads whose day it is and when; each section is a function of its
// own, read only when asked for, at most MaxItems items with the total.
//
// It imports ent, the privacy rules and the leaves.
package myday

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/organization"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/ent/task"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/period"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/renewals"
)

// MaxItems is the most items a section lists; its total counts them all.
const MaxItems = 100

// Day is whose day it is and its bounds: now, and the end of today in the
// organization's time zone.
type Day struct {
	UserID   uuid.UUID
	Timezone string
	// Date is today's date in the organization's time zone (2026-11-23).
	Date string
	Now  time.Time
	// End is when today ends: the start of tomorrow.
	End time.Time
}

// Tasks, Deals and Applications are a section's first MaxItems items and
// how many there are in all.
type (
	Tasks struct {
		Nodes []*ent.Task
		Total int
	}
	Deals struct {
		Nodes []*ent.FundedDeal
		Total int
	}
	Applications struct {
		Nodes []*ent.Application
		Total int
	}
)

// Of is the day of the user userID, the acting user when nil. Reading
// another user's day needs the admin scope; a key bound to no one must
// name the user.
func Of(ctx context.Context, c *ent.Client, userID *uuid.UUID) (*Day, error) {
	org, err := rule.RequireOrg(ctx, viewer.ScopeLeadsRead, "reading a day")
	if err != nil {
		return nil, err
	}
	v, _ := viewer.FromContext(ctx)
	who := v.UserID
	switch {
	case userID != nil:
		who = *userID
	case who == uuid.Nil:
		return nil, apperr.Invalid("userId", "name the user whose day to read: the caller is no user")
	}
	if who != v.UserID && !v.Can(viewer.ScopeAdmin) {
		return nil, apperr.New(apperr.Forbidden, "reading another user's day needs the admin scope")
	}
	sys := rule.SystemContext(ctx)
	exists, err := c.User.Query().Where(user.ID(who), user.OrgID(org)).Exist(sys)
	if err != nil || !exists {
		return nil, apperr.RefError(err, nil, "userId", "user")
	}
	o, err := c.Organization.Query().Where(organization.ID(org)).Select(organization.FieldTimezone).Only(sys)
	if err != nil {
		return nil, fmt.Errorf("reading the organization's time zone: %w", err)
	}
	return today(who, o.Timezone, apitime.Now(ctx))
}

// today is the user's day at now in the zone named: its local date and
// when it ends (the start of the next local day, which daylight saving
// may put 23 or 25 hours after this one's). The instants are UTC: SQLite
// compares the stored timestamps with a parameter as text, in the
// parameter's own offset.
func today(who uuid.UUID, zone string, now time.Time) (*Day, error) {
	loc, err := period.Location(zone)
	if err != nil {
		return nil, fmt.Errorf("reading the organization's time zone: %w", err)
	}
	day := period.LocalDay(now, loc)
	y, m, d := period.DayDate(day)
	return &Day{UserID: who, Timezone: zone, Date: time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Format(period.DateLayout),
		Now: now, End: period.DayStart(day+1, loc).UTC()}, nil
}

// Overdue is the user's open tasks due before now, the longest overdue
// first.
func Overdue(ctx context.Context, c *ent.Client, d *Day) (Tasks, error) {
	return openTasks(ctx, c, d, task.DueAtLT(d.Now))
}

// DueToday is the user's open tasks due from now to the end of today,
// soonest first: those due earlier today are overdue.
func DueToday(ctx context.Context, c *ent.Client, d *Day) (Tasks, error) {
	return openTasks(ctx, c, d, task.DueAtGTE(d.Now), task.DueAtLT(d.End))
}

// openTasks is the user's open tasks due when says, by due time then id.
func openTasks(ctx context.Context, c *ent.Client, d *Day, when ...predicate.Task) (Tasks, error) {
	q := c.Task.Query().Where(task.AssigneeID(d.UserID), task.StatusEQ(task.StatusOpen)).Where(when...)
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return Tasks{}, fmt.Errorf("counting the day's tasks: %w", err)
	}
	nodes, err := q.Order(task.ByDueAt(), task.ByID()).Limit(MaxItems).All(ctx)
	if err != nil {
		return Tasks{}, fmt.Errorf("reading the day's tasks: %w", err)
	}
	return Tasks{Nodes: nodes, Total: total}, nil
}

// RenewalsDue is the deals of the user's leads (their primary advisor's)
// whose renewal is due by now and may start (PRODUCT 12.2: the lead's
// latest deal, no application in play), earliest eligible first.
func RenewalsDue(ctx context.Context, c *ent.Client, d *Day) (Deals, error) {
	q := c.FundedDeal.Query().Where(fundeddeal.RenewalEligibleAtLTE(d.Now.UTC()), renewals.Renewable(),
		fundeddeal.HasLeadWith(lead.PrimaryAdvisorID(d.UserID)))
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return Deals{}, fmt.Errorf("counting the day's renewals: %w", err)
	}
	nodes, err := q.Order(fundeddeal.ByRenewalEligibleAt(), fundeddeal.ByID()).Limit(MaxItems).All(ctx)
	if err != nil {
		return Deals{}, fmt.Errorf("reading the day's renewals: %w", err)
	}
	return Deals{Nodes: nodes, Total: total}, nil
}

// WaitingOnStipulations is the approved applications of the user's leads
// (those they are the primary advisor of) with a stipulation outstanding
// (PRODUCT 11), the longest waiting first: by decision time, then id.
func WaitingOnStipulations(ctx context.Context, c *ent.Client, d *Day) (Applications, error) {
	q := c.Application.Query().Where(application.StatusEQ(application.StatusApproved),
		application.StipulationsOutstandingGT(0), application.HasLeadWith(lead.PrimaryAdvisorID(d.UserID)))
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return Applications{}, fmt.Errorf("counting the applications waiting on stipulations: %w", err)
	}
	nodes, err := q.Order(application.ByDecidedAt(), application.ByID()).Limit(MaxItems).All(ctx)
	if err != nil {
		return Applications{}, fmt.Errorf("reading the applications waiting on stipulations: %w", err)
	}
	return Applications{Nodes: nodes, Total: total}, nil
}
