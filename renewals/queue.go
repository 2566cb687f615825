// Package renewals is the renewal of funded deals (PRODUCT 12.2): the
// queue of deals whose merchant may now renew, and the sweep that
// announces each deal's renewal once, when it comes due. When a deal comes
// due is lendingrules.RenewalEligibleAt, set as it is funded.
//
// A deal is in the queue while it is its lead's latest deal and the lead
// has no application in play: a renewal started (an application
// submitted), or a later deal funded, takes it out. The announcement does
// not wait for that: every deal's renewal is announced once, as it comes
// due, whatever its lead has done since, so a subscriber hears of each
// deal exactly once.
//
// It imports ent, the outbox, notifications, the store and the leaves.
package renewals

import (
	"context"
	"fmt"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Filter is renewalQueue(where:): every filter given must hold.
type Filter struct {
	// AdvisorID keeps the deals credited to this user.
	AdvisorID *uuid.UUID `json:"advisorId"`
	// DueBefore keeps the deals eligible at or before it; now when nil.
	DueBefore *time.Time `json:"dueBefore"`
}

// Entry is one deal of the queue.
type Entry struct {
	DealID            uuid.UUID
	LeadID            uuid.UUID
	BusinessName      *string
	LenderID          uuid.UUID
	LenderName        string
	AdvisorID         *uuid.UUID
	FundedAmount      money.Amount
	FundedAt          time.Time
	RenewalEligibleAt time.Time
}

// Page is one offset page of the queue and how many deals it holds in
// all.
type Page struct {
	Entries []Entry
	Total   int
}

// Queue reads the queue's entries skip..skip+limit that f keeps, earliest
// eligible first (then by id), with the exact total. It needs
// lending:read; the privacy policy keeps it to the caller's organization.
func Queue(ctx context.Context, c *ent.Client, f Filter, skip, limit int) (Page, error) {
	if _, err := rule.RequireOrg(ctx, viewer.ScopeLendingRead, "reading the renewal queue"); err != nil {
		return Page{}, err
	}
	due := apitime.Now(ctx)
	if f.DueBefore != nil {
		due = f.DueBefore.UTC() // in UTC, as stored: SQLite compares the text
	}
	q := c.FundedDeal.Query().Where(fundeddeal.RenewalEligibleAtLTE(due), Renewable())
	if f.AdvisorID != nil {
		q = q.Where(fundeddeal.AdvisorID(*f.AdvisorID))
	}
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return Page{}, fmt.Errorf("counting the renewal queue: %w", err)
	}
	deals, err := q.Order(fundeddeal.ByRenewalEligibleAt(), fundeddeal.ByID()).Offset(skip).Limit(limit).All(ctx)
	if err != nil {
		return Page{}, fmt.Errorf("reading the renewal queue: %w", err)
	}
	entries, err := entriesOf(ctx, c, deals)
	if err != nil {
		return Page{}, err
	}
	return Page{Entries: entries, Total: total}, nil
}

// entriesOf is the deals as entries, with their leads' business names
// read in one query.
func entriesOf(ctx context.Context, c *ent.Client, deals []*ent.FundedDeal) ([]Entry, error) {
	ids := make([]uuid.UUID, len(deals))
	for i, d := range deals {
		ids[i] = d.LeadID
	}
	names := map[uuid.UUID]*string{}
	if len(ids) > 0 {
		leads, err := c.Lead.Query().Where(lead.IDIn(ids...)).Select(lead.FieldID, lead.FieldBusinessName).All(rule.SystemContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("reading the renewals' leads: %w", err)
		}
		for _, l := range leads {
			names[l.ID] = l.BusinessName
		}
	}
	out := make([]Entry, len(deals))
	for i, d := range deals {
		out[i] = Entry{DealID: d.ID, LeadID: d.LeadID, BusinessName: names[d.LeadID], LenderID: d.LenderID, LenderName: d.LenderName,
			AdvisorID: d.AdvisorID, FundedAmount: d.FundedAmount, FundedAt: d.FundedAt, RenewalEligibleAt: *d.RenewalEligibleAt}
	}
	return out, nil
}

// Renewable keeps the deals a renewal may start from: the lead's latest
// deal (none funded after it), of a lead with no application in play. The
// schema's hooks keep that as the deal's renewal_superseded flag in the
// transaction of every change that moves it, so a page walks the index
// (org_id, renewal_superseded, renewal_eligible_at, id) in order and its
// exact total is counted from that index alone. The comparison is written
// out: ent writes a boolean equality as NOT column, which SQLite cannot
// answer from the index.
func Renewable() predicate.FundedDeal {
	return func(s *sql.Selector) {
		s.Where(sql.P(func(b *sql.Builder) {
			b.Ident(s.C(fundeddeal.FieldRenewalSuperseded)).WriteOp(sql.OpEQ).Arg(false)
		}))
	}
}
