package analytics

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/lender"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/period"
)

// FundingReport covers the deals funded in the range.
type FundingReport struct {
	Totals    FundingTotals   `json:"totals"`
	Series    []FundingBucket `json:"series" description:"The deals by the bucket of their fundedAt: every bucket of the range, empty ones with zeros."`
	ByLender  []FundingGroup  `json:"byLender" description:"The deals by lender: most funded first, then by name and id."`
	ByAdvisor []FundingGroup  `json:"byAdvisor" description:"The deals by advisor, as byLender; deals without an advisor are left out."`
}

// FundingTotals sums the range's deals.
type FundingTotals struct {
	Deals              int          `json:"deals" openapi:"count" description:"The deals funded in the range."`
	FundedAmount       money.Amount `json:"fundedAmount" description:"Their funded amounts' sum."`
	AverageAmount      money.Amount `json:"averageAmount" description:"fundedAmount / deals, half-even to the cent; 0.00 without deals."`
	ExpectedCommission money.Amount `json:"expectedCommission" description:"Their expected commissions' sum."`
	RenewalDeals       int          `json:"renewalDeals" openapi:"count" description:"Of the deals, the renewals (isRenewal: funded from an application that renews an earlier deal of its lead)."`
	RenewalAmount      money.Amount `json:"renewalAmount" description:"The renewals' funded amounts' sum."`
}

// FundingBucket is one period of the funding series.
type FundingBucket struct {
	PeriodStart   string       `json:"periodStart" openapi:"date" description:"The bucket's first day in the report's time zone."`
	Deals         int          `json:"deals" openapi:"count" description:"Deals funded in the bucket."`
	FundedAmount  money.Amount `json:"fundedAmount" description:"Their funded amounts' sum."`
	RenewalDeals  int          `json:"renewalDeals" openapi:"count" description:"Of them, the renewals."`
	RenewalAmount money.Amount `json:"renewalAmount" description:"The renewals' funded amounts' sum."`
}

// FundingGroup is the deals of one lender or advisor.
type FundingGroup struct {
	ID           uuid.UUID    `json:"id" description:"The lender's or the advisor's id."`
	Name         string       `json:"name" description:"The lender's name, or the advisor's first and last name."`
	Deals        int          `json:"deals" openapi:"count" description:"Deals funded in the range."`
	FundedAmount money.Amount `json:"fundedAmount" description:"Their funded amounts' sum."`
}

// dealsIn are the organization's deals funded in the range that the
// people filter admits (by the deal's advisor).
func dealsIn(q *Request) []predicate.FundedDeal {
	ps := []predicate.FundedDeal{fundeddeal.OrgID(q.OrgID),
		fundeddeal.FundedAtGTE(q.Range.Start), fundeddeal.FundedAtLT(q.Range.End)}
	if q.People != nil {
		ps = append(ps, fundeddeal.AdvisorIDIn(q.People...))
	}
	return ps
}

// Funding computes the funding report.
func Funding(ctx context.Context, c *ent.Client, q *Request) (*FundingReport, error) {
	if days, ok := q.rolledUp(); ok {
		return fundingRolledUp(ctx, c, q, days)
	}
	totals, err := fundingTotals(ctx, c, q)
	if err != nil {
		return nil, err
	}
	r := &FundingReport{Totals: totals}
	if r.Series, err = fundingSeries(ctx, c, q); err != nil {
		return nil, err
	}
	if r.ByLender, err = fundingBy(ctx, c, q, fundeddeal.FieldLenderID, q.lenderNames); err != nil {
		return nil, err
	}
	if r.ByAdvisor, err = fundingBy(ctx, c, q, fundeddeal.FieldAdvisorID, q.userNames); err != nil {
		return nil, err
	}
	return r, nil
}

// fundingTotals sums the deals, renewals apart: a row per value of
// is_renewal, added up.
func fundingTotals(ctx context.Context, c *ent.Client, q *Request) (FundingTotals, error) {
	var rows []struct {
		Renewal    bool         `json:"is_renewal"`
		Deals      int          `json:"deals"`
		Funded     money.Amount `json:"funded"`
		Commission money.Amount `json:"commission"`
	}
	err := c.FundedDeal.Query().Where(dealsIn(q)...).GroupBy(fundeddeal.FieldIsRenewal).Aggregate(countAs("deals"),
		sumOf(fundeddeal.FieldFundedAmount, "funded"), sumOf(fundeddeal.FieldExpectedCommission, "commission")).
		Scan(sys(ctx), &rows)
	if err != nil {
		return FundingTotals{}, fmt.Errorf("summing the deals: %w", err)
	}
	var t FundingTotals
	for _, r := range rows {
		t.Deals += r.Deals
		t.FundedAmount += r.Funded
		t.ExpectedCommission += r.Commission
		if r.Renewal {
			t.RenewalDeals += r.Deals
			t.RenewalAmount += r.Funded
		}
	}
	t.AverageAmount = average(t.FundedAmount, t.Deals)
	return t, nil
}

// fundingSeries buckets the deals by fundedAt in the report's zone.
func fundingSeries(ctx context.Context, c *ent.Client, q *Request) ([]FundingBucket, error) {
	var deals []struct {
		FundedAt time.Time    `json:"funded_at"`
		Amount   money.Amount `json:"funded_amount"`
		Renewal  bool         `json:"is_renewal"`
	}
	err := c.FundedDeal.Query().Where(dealsIn(q)...).
		Select(fundeddeal.FieldFundedAt, fundeddeal.FieldFundedAmount, fundeddeal.FieldIsRenewal).Scan(sys(ctx), &deals)
	if err != nil {
		return nil, fmt.Errorf("reading the deals' times: %w", err)
	}
	buckets := q.Range.Buckets(string(q.Interval))
	out := make([]FundingBucket, len(buckets))
	for i, b := range buckets {
		out[i].PeriodStart = b.Date()
	}
	for _, d := range deals {
		if i := period.Index(buckets, d.FundedAt); i >= 0 {
			out[i].Deals++
			out[i].FundedAmount += d.Amount
			if d.Renewal {
				out[i].RenewalDeals++
				out[i].RenewalAmount += d.Amount
			}
		}
	}
	return out, nil
}

type namer func(context.Context, *ent.Client, []uuid.UUID) (map[uuid.UUID]string, error)

// fundingBy groups the deals by a column (lender or advisor), most funded
// first; rows without one are left out.
func fundingBy(ctx context.Context, c *ent.Client, q *Request, column string, names namer) ([]FundingGroup, error) {
	var rows []struct {
		ID     *uuid.UUID   `json:"id"`
		Deals  int          `json:"deals"`
		Funded money.Amount `json:"funded"`
	}
	err := c.FundedDeal.Query().Where(dealsIn(q)...).Modify(func(s *sql.Selector) {
		s.Select(sql.As(s.C(column), "id"), countAs("deals")(s), sumOf(fundeddeal.FieldFundedAmount, "funded")(s)).
			GroupBy(s.C(column))
	}).Scan(sys(ctx), &rows)
	if err != nil {
		return nil, fmt.Errorf("grouping the deals by %s: %w", column, err)
	}
	groups := map[uuid.UUID]*FundingGroup{}
	for _, r := range rows {
		if r.ID != nil {
			groups[*r.ID] = &FundingGroup{ID: *r.ID, Deals: r.Deals, FundedAmount: r.Funded}
		}
	}
	return fundingGroups(ctx, c, groups, names)
}

// fundingGroups names and orders the groups: most funded first.
func fundingGroups(ctx context.Context, c *ent.Client, groups map[uuid.UUID]*FundingGroup, names namer) ([]FundingGroup, error) {
	ids := make([]uuid.UUID, 0, len(groups))
	for id := range groups {
		ids = append(ids, id)
	}
	name, err := names(ctx, c, ids)
	if err != nil {
		return nil, err
	}
	out := make([]FundingGroup, 0, len(ids))
	for _, id := range ids {
		g := *groups[id]
		g.Name = name[id]
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b FundingGroup) int {
		return cmp.Or(cmp.Compare(b.FundedAmount, a.FundedAmount), cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID.String(), b.ID.String()))
	})
	return out, nil
}

// lenderNames are the names of the lenders ids.
func (q *Request) lenderNames(ctx context.Context, c *ent.Client, ids []uuid.UUID) (map[uuid.UUID]string, error) {
	out := make(map[uuid.UUID]string, len(ids))
	var (
		id   uuid.UUID
		name string
	)
	err := q.eachByID(ctx, c, lender.Table, ids, []any{&id, &name}, func() { out[id] = name }, lender.FieldID, lender.FieldName)
	if err != nil {
		return nil, fmt.Errorf("reading lenders' names: %w", err)
	}
	return out, nil
}
