package lending

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/lender"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
)

// MatchQuery is what the lender matches are asked for: the lead, and the
// deal it would be sent with, each nil when not given (the amount is then
// the lead's requestedAmount; the product is not checked).
type MatchQuery struct {
	LeadID  uuid.UUID
	Product *application.Product
	Amount  *money.Amount
}

// Match is one active lender of the organization as a place to send the
// lead's deal (PRODUCT 13): whether its box takes the deal and what
// misses, the facts the lead lacks, and the organization's record with
// it. Score and Components are nil when the basis is none.
type Match struct {
	LenderID   uuid.UUID
	LenderName string
	Eligible   bool
	Misses     []lendingrules.Miss
	Unknown    []string
	Score      *money.Ratio
	Basis      lendingrules.Basis
	Components *lendingrules.Components
}

// Matches ranks the organization's active lenders for the lead: eligible
// ones first, then by score (none last), then by name ignoring case
// (then as written, then id). A lead of another organization, or none, is
// NOT_FOUND; an amount of 0 is VALIDATION_ERROR on amount. The caller
// needs lending:read.
//
// The records are read twice at most: the applications in the lead's
// amount band and industry, of every lender at once (store.MatchRecords),
// then, when some lender has fewer than lendingrules.MinSimilar similar
// ones, every lender's whole window as the lenders report sums it
// (analytics.LenderRecords).
func Matches(ctx context.Context, c *ent.Client, q MatchQuery) ([]*Match, error) {
	org, err := rule.RequireOrg(ctx, viewer.ScopeLendingRead, "reading a lead's lender matches")
	if err != nil {
		return nil, err
	}
	if q.Amount != nil && *q.Amount <= 0 {
		return nil, apperr.Invalid("amount", "must be more than 0")
	}
	if q.Product != nil {
		if err := application.ProductValidator(*q.Product); err != nil {
			return nil, apperr.Invalid("product", "must be one of %s", strings.Join(enum.LenderProducts, ", "))
		}
	}
	sys := rule.SystemContext(ctx)
	l, err := c.Lead.Query().Where(lead.ID(q.LeadID), lead.OrgID(org)).
		Select(lead.FieldRequestedAmount, lead.FieldMonthlyRevenue, lead.FieldIndustry, lead.FieldCustomFields).Only(sys)
	if err != nil {
		if ent.IsNotFound(err) {
			return nil, apperr.New(apperr.NotFound, "lead not found")
		}
		return nil, fmt.Errorf("reading the lead: %w", err)
	}
	amount := q.Amount
	if amount == nil && l.RequestedAmount != nil {
		if a, err := money.RoundDecimal(*l.RequestedAmount); err == nil && a > 0 {
			amount = &a
		}
	}
	lenders, err := c.Lender.Query().Where(lender.OrgID(org), lender.IsActive(true)).All(sys)
	if err != nil {
		return nil, fmt.Errorf("reading the lenders: %w", err)
	}
	open, err := c.Application.Query().
		Where(application.LeadID(q.LeadID), application.StatusIn(openStatuses()...)).
		Select(application.FieldLenderID).All(sys)
	if err != nil {
		return nil, fmt.Errorf("reading the lead's open applications: %w", err)
	}
	records, err := matchRecords(ctx, c, org, amount, l.Industry, lenders)
	if err != nil {
		return nil, err
	}
	file := fileOf(l, amount, q.Product)
	out := make([]*Match, 0, len(lenders))
	for _, ld := range lenders {
		file.OpenApplication = slices.ContainsFunc(open, func(a *ent.Application) bool { return a.LenderID == ld.ID })
		check := boxOf(ld).Check(file)
		m := &Match{LenderID: ld.ID, LenderName: ld.Name, Eligible: check.Eligible(),
			Misses: check.Misses, Unknown: check.Unknown, Basis: lendingrules.BasisNone}
		r := records[ld.ID]
		basis, record := lendingrules.ChooseBasis(r.similar, r.all)
		if basis != lendingrules.BasisNone {
			score, comps, err := record.Score()
			if err != nil {
				return nil, fmt.Errorf("scoring the lender %s: %w", ld.ID, err)
			}
			m.Score, m.Basis, m.Components = &score, basis, &comps
		}
		out = append(out, m)
	}
	slices.SortFunc(out, betterMatchFirst)
	return out, nil
}

// lenderRecords are a lender's similar applications and all of them in
// the window (all only read when the similar ones are too few).
type lenderRecords struct{ similar, all lendingrules.Record }

// matchRecords reads the lenders' records of the window ending now:
// submitted at or after now - lendingrules.MatchWindow. Without an amount
// or an industry no application is similar.
func matchRecords(ctx context.Context, c *ent.Client, org uuid.UUID, amount *money.Amount, industry *string,
	lenders []*ent.Lender) (map[uuid.UUID]*lenderRecords, error) {
	now := apitime.Now(ctx)
	since := now.Add(-lendingrules.MatchWindow)
	out := make(map[uuid.UUID]*lenderRecords, len(lenders))
	for _, ld := range lenders {
		out[ld.ID] = &lenderRecords{}
	}
	if key := lendingrules.IndustryKey(industry); amount != nil && key != nil {
		similar, err := store.MatchRecords(ctx, c, org, since, lendingrules.AmountBand(*amount), *key)
		if err != nil {
			return nil, err
		}
		for id, r := range similar {
			if rec, ok := out[id]; ok {
				rec.similar = *r
			}
		}
	}
	few := []uuid.UUID{}
	for _, ld := range lenders {
		if out[ld.ID].similar.Sample < lendingrules.MinSimilar {
			few = append(few, ld.ID)
		}
	}
	if len(few) == 0 {
		return out, nil
	}
	// Their whole windows: the lenders report's figures over it, which its
	// rollups keep.
	all, err := analytics.LenderRecords(ctx, c, org, since, now, few)
	if err != nil {
		return nil, err
	}
	for id, r := range all {
		if rec, ok := out[id]; ok {
			rec.all = *r
		}
	}
	return out, nil
}

// betterMatchFirst orders matches: eligible first, then by score (higher
// first, none last), then by lender name ignoring case, then as written,
// then by id, so the order is the same on every read.
func betterMatchFirst(a, b *Match) int {
	score := func(m *Match) int64 {
		if m.Score == nil {
			return -1
		}
		return int64(*m.Score)
	}
	eligible := func(m *Match) int {
		if m.Eligible {
			return 0
		}
		return 1
	}
	return cmp.Or(cmp.Compare(eligible(a), eligible(b)), cmp.Compare(score(b), score(a)),
		cmp.Compare(strings.ToLower(a.LenderName), strings.ToLower(b.LenderName)),
		cmp.Compare(a.LenderName, b.LenderName), cmp.Compare(a.LenderID.String(), b.LenderID.String()))
}

func openStatuses() []application.Status {
	out := make([]application.Status, 0, len(lendingrules.Open))
	for _, s := range lendingrules.Open {
		out = append(out, application.Status(s))
	}
	return out
}
