package analytics

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/dealday"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/leadday"
	"github.com/lendingpipe/svc/ent/paymentday"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/period"
)

// The rollups (ent/schema/rollup.go) hold per-day sums cut in the
// organization's rollup zone. A report for everyone in that zone reads
// them for the range's whole days and the records for the partial days at
// its ends (a date-time range), which are merged: every figure is a sum
// over disjoint parts. Any other report (another zone, an advisor or a
// team) reads the records alone.

// wholeDays is the part of a range the rollups answer: its whole local
// days [first, last); edges are the partial days at its ends, as requests
// that read the records.
type wholeDays struct {
	first, last int
	edges       []*Request
}

// rolledUp splits q's range when the rollups can answer it.
func (q *Request) rolledUp() (wholeDays, bool) {
	loc := q.Range.Loc
	if q.People != nil || q.RollupZone == "" || loc == nil || q.RollupZone != loc.String() {
		return wholeDays{}, false
	}
	w := wholeDays{first: period.LocalDay(q.Range.Start, loc), last: period.LocalDay(q.Range.End, loc)}
	first, last := period.DayStart(w.first, loc), period.DayStart(w.last, loc)
	if first.Before(q.Range.Start) {
		w.first++
		first = period.DayStart(w.first, loc)
	}
	if w.first >= w.last {
		return wholeDays{}, false // no whole day
	}
	if q.Range.Start.Before(first) {
		w.edges = append(w.edges, q.edge(q.Range.Start, first))
	}
	if last.Before(q.Range.End) {
		w.edges = append(w.edges, q.edge(last, q.Range.End))
	}
	return w, true
}

// edge is q over part of its range, read from the records.
func (q *Request) edge(start, end time.Time) *Request {
	e := *q
	e.Range = period.Range{Start: start.UTC(), End: end.UTC(), Loc: q.Range.Loc}
	e.RollupZone = ""
	return &e
}

// bucketOf is the index in buckets of the local day numbered day.
func (q *Request) bucketOf(buckets []period.Bucket, day int) int {
	return period.Index(buckets, period.DayStart(day, q.Range.Loc))
}

func pipelineRolledUp(ctx context.Context, c *ent.Client, q *Request, stages []PipelineStageCount, w wholeDays) (*PipelineReport, error) {
	var rows []struct {
		Source   lead.Source  `json:"source"`
		Leads    int          `json:"leads"`
		Applied  int          `json:"applied"`
		Approved int          `json:"approved"`
		Funded   int          `json:"funded"`
		Amount   money.Amount `json:"amount"`
	}
	err := c.LeadDay.Query().Where(leadday.OrgID(q.OrgID), leadday.DayGTE(w.first), leadday.DayLT(w.last)).
		GroupBy(leadday.FieldSource).
		Aggregate(sumOf(leadday.FieldLeads, "leads"), sumOf(leadday.FieldApplied, "applied"),
			sumOf(leadday.FieldApproved, "approved"), sumOf(leadday.FieldFunded, "funded"),
			sumOf(leadday.FieldFundedAmount, "amount")).
		Scan(sys(ctx), &rows)
	if err != nil {
		return nil, fmt.Errorf("summing the lead rollup: %w", err)
	}
	r := &PipelineReport{Stages: stages, BySource: make([]SourceCount, len(enum.LeadSources))}
	for i, s := range enum.LeadSources {
		r.BySource[i].Source = lead.Source(s)
	}
	for _, row := range rows {
		r.Funnel.add(Funnel{Leads: row.Leads, Applied: row.Applied, Approved: row.Approved, Funded: row.Funded})
		s := &r.BySource[sourceIndex(row.Source)]
		s.Leads += row.Leads
		s.Funded += row.Funded
		s.FundedAmount += row.Amount
	}
	for _, e := range w.edges {
		f, err := funnelOf(ctx, c, e)
		if err != nil {
			return nil, err
		}
		r.Funnel.add(f)
		bySource, err := sources(ctx, c, e)
		if err != nil {
			return nil, err
		}
		for i, s := range bySource {
			r.BySource[i].Leads += s.Leads
			r.BySource[i].Funded += s.Funded
			r.BySource[i].FundedAmount += s.FundedAmount
		}
	}
	r.Funnel.convert()
	return r, nil
}

func (f *Funnel) add(o Funnel) {
	f.Leads += o.Leads
	f.Applied += o.Applied
	f.Approved += o.Approved
	f.Funded += o.Funded
}

// dealGroup is a DealDay sum of one lender or advisor.
type dealGroup struct {
	Dimension  dealday.Dimension `json:"dimension"`
	SubjectID  uuid.UUID         `json:"subject_id"`
	Deals      int               `json:"deals"`
	Funded     money.Amount      `json:"funded"`
	Expected   money.Amount      `json:"expected"`
	Paid       money.Amount      `json:"paid"`
	ClawedBack money.Amount      `json:"clawed_back"`
	Owed       money.Amount      `json:"owed"`
	// The renewals among the deals (renewalAggregates).
	RenewalDeals    int          `json:"renewal_deals"`
	RenewalAmount   money.Amount `json:"renewal_amount"`
	RenewalExpected money.Amount `json:"renewal_expected"`
	RenewalPaid     money.Amount `json:"renewal_paid"`
}

// addRenewals adds o's renewal figures, times sign (a span's rows added or
// taken away).
func (g *dealGroup) addRenewals(o dealGroup, sign int) {
	g.RenewalDeals += sign * o.RenewalDeals
	g.RenewalAmount += money.Amount(sign) * o.RenewalAmount
	g.RenewalExpected += money.Amount(sign) * o.RenewalExpected
	g.RenewalPaid += money.Amount(sign) * o.RenewalPaid
}

// renewalAggregates sum the renewal columns of DealDay rows as dealGroup
// reads them.
func renewalAggregates() []ent.AggregateFunc {
	return []ent.AggregateFunc{sumOf(dealday.FieldRenewalDeals, "renewal_deals"), sumOf(dealday.FieldRenewalAmount, "renewal_amount"),
		sumOf(dealday.FieldRenewalExpected, "renewal_expected"), sumOf(dealday.FieldRenewalPaid, "renewal_paid")}
}

// rowSpan is a run of a rollup's rows of one grain: days, months or years
// numbered [lo, hi), added to a report (sign 1) or taken away (sign -1).
type rowSpan struct {
	grain  period.Grain
	lo, hi int
	sign   int
}

var dealGrains = map[period.Grain]dealday.Grain{
	period.DayGrain: dealday.GrainDay, period.MonthGrain: dealday.GrainMonth, period.YearGrain: dealday.GrainYear}

// where selects the span's rows of the deal rollup.
func (s rowSpan) where(q *Request) []predicate.DealDay {
	return []predicate.DealDay{dealday.OrgID(q.OrgID), dealday.GrainEQ(dealGrains[s.grain]), dealday.DayGTE(s.lo), dealday.DayLT(s.hi)}
}

// firstDay is the number of the first day of the span's n-th day, month
// or year.
func (s rowSpan) firstDay(n int) int { return s.grain.FirstDay(n) }

// spans covers the whole days with the fewest rows of grains up to
// coarsest (period.Cover): the whole years and months among them, the
// days around those, or a year or month less its parts outside the range.
func (w wholeDays) spans(coarsest period.Grain) []rowSpan {
	var out []rowSpan
	for _, b := range period.Cover(w.first, w.last, coarsest) {
		out = append(out, rowSpan{b.Grain, b.Lo, b.Hi, b.Sign})
	}
	return out
}

// dealGroups sums the deal rollup over the whole days by lender and by
// advisor.
func dealGroups(ctx context.Context, c *ent.Client, q *Request, w wholeDays) ([]dealGroup, error) {
	type key struct {
		dim     dealday.Dimension
		subject uuid.UUID
	}
	sums := map[key]*dealGroup{}
	var out []dealGroup
	for _, s := range w.spans(period.YearGrain) {
		var rows []dealGroup
		err := c.DealDay.Query().Where(s.where(q)...).
			GroupBy(dealday.FieldDimension, dealday.FieldSubjectID).
			Aggregate(append([]ent.AggregateFunc{sumOf(dealday.FieldDeals, "deals"), sumOf(dealday.FieldFundedAmount, "funded"),
				sumOf(dealday.FieldExpectedCommission, "expected"), sumOf(dealday.FieldPaid, "paid"),
				sumOf(dealday.FieldClawedBack, "clawed_back"), sumOf(dealday.FieldOutstanding, "owed")}, renewalAggregates()...)...).
			Scan(sys(ctx), &rows)
		if err != nil {
			return nil, fmt.Errorf("summing the deal rollup: %w", err)
		}
		for _, r := range rows {
			g := sums[key{r.Dimension, r.SubjectID}]
			if g == nil {
				out = append(out, dealGroup{Dimension: r.Dimension, SubjectID: r.SubjectID})
				g = &dealGroup{Dimension: r.Dimension, SubjectID: r.SubjectID}
				sums[key{r.Dimension, r.SubjectID}] = g
			}
			sign := money.Amount(s.sign)
			g.Deals += s.sign * r.Deals
			g.Funded += sign * r.Funded
			g.Expected += sign * r.Expected
			g.Paid += sign * r.Paid
			g.ClawedBack += sign * r.ClawedBack
			g.Owed += sign * r.Owed
			g.addRenewals(r, s.sign)
		}
	}
	// A group is a lender's or advisor's deals in the range: none when the
	// rows taken away cancel those added.
	groups := out[:0]
	for _, r := range out {
		if g := sums[key{r.Dimension, r.SubjectID}]; g.Deals != 0 {
			groups = append(groups, *g)
		}
	}
	return groups, nil
}

func fundingRolledUp(ctx context.Context, c *ent.Client, q *Request, w wholeDays) (*FundingReport, error) {
	groups, err := dealGroups(ctx, c, q, w)
	if err != nil {
		return nil, err
	}
	buckets := q.Range.Buckets(string(q.Interval))
	series := make([]FundingBucket, len(buckets))
	for i, b := range buckets {
		series[i].PeriodStart = b.Date()
	}
	// A month's buckets take the months' rows; days and weeks the days'.
	spans := []rowSpan{{period.DayGrain, w.first, w.last, 1}}
	if q.Interval == period.Month {
		spans = w.spans(period.MonthGrain) // a month's rows, or a month's less its days outside
	}
	for _, s := range spans {
		var days []struct {
			Day     int          `json:"day"`
			Deals   int          `json:"deals"`
			Funded  money.Amount `json:"funded"`
			Renewal int          `json:"renewal_deals"`
			Renewed money.Amount `json:"renewal_amount"`
		}
		err = c.DealDay.Query().Where(append(s.where(q), dealday.DimensionEQ(dealday.DimensionLender))...).
			GroupBy(dealday.FieldDay).Aggregate(sumOf(dealday.FieldDeals, "deals"), sumOf(dealday.FieldFundedAmount, "funded"),
			sumOf(dealday.FieldRenewalDeals, "renewal_deals"), sumOf(dealday.FieldRenewalAmount, "renewal_amount")).
			Scan(sys(ctx), &days)
		if err != nil {
			return nil, fmt.Errorf("summing the deal rollup by day: %w", err)
		}
		for _, d := range days {
			if i := q.bucketOf(buckets, s.firstDay(d.Day)); i >= 0 {
				series[i].Deals += s.sign * d.Deals
				series[i].FundedAmount += money.Amount(s.sign) * d.Funded
				series[i].RenewalDeals += s.sign * d.Renewal
				series[i].RenewalAmount += money.Amount(s.sign) * d.Renewed
			}
		}
	}
	var totals FundingTotals
	lenders, advisors := map[uuid.UUID]*FundingGroup{}, map[uuid.UUID]*FundingGroup{}
	for _, g := range groups {
		row := FundingGroup{ID: g.SubjectID, Deals: g.Deals, FundedAmount: g.Funded}
		if g.Dimension == dealday.DimensionAdvisor {
			addFunding(advisors, row)
			continue
		}
		addFunding(lenders, row)
		totals.Deals += g.Deals
		totals.FundedAmount += g.Funded
		totals.ExpectedCommission += g.Expected
		totals.RenewalDeals += g.RenewalDeals
		totals.RenewalAmount += g.RenewalAmount
	}
	for _, e := range w.edges {
		er, err := Funding(ctx, c, e)
		if err != nil {
			return nil, err
		}
		totals.Deals += er.Totals.Deals
		totals.FundedAmount += er.Totals.FundedAmount
		totals.ExpectedCommission += er.Totals.ExpectedCommission
		totals.RenewalDeals += er.Totals.RenewalDeals
		totals.RenewalAmount += er.Totals.RenewalAmount
		for _, b := range er.Series {
			for i := range series {
				if series[i].PeriodStart == b.PeriodStart {
					series[i].Deals += b.Deals
					series[i].FundedAmount += b.FundedAmount
					series[i].RenewalDeals += b.RenewalDeals
					series[i].RenewalAmount += b.RenewalAmount
				}
			}
		}
		for _, g := range er.ByLender {
			addFunding(lenders, g)
		}
		for _, g := range er.ByAdvisor {
			addFunding(advisors, g)
		}
	}
	totals.AverageAmount = average(totals.FundedAmount, totals.Deals)
	r := &FundingReport{Totals: totals, Series: series}
	if r.ByLender, err = fundingGroups(ctx, c, lenders, q.lenderNames); err != nil {
		return nil, err
	}
	if r.ByAdvisor, err = fundingGroups(ctx, c, advisors, q.userNames); err != nil {
		return nil, err
	}
	return r, nil
}

func addFunding(m map[uuid.UUID]*FundingGroup, row FundingGroup) {
	g := m[row.ID]
	if g == nil {
		g = &FundingGroup{ID: row.ID}
		m[row.ID] = g
	}
	g.Deals += row.Deals
	g.FundedAmount += row.FundedAmount
}

func commissionsRolledUp(ctx context.Context, c *ent.Client, q *Request, w wholeDays) (*CommissionsReport, error) {
	groups, err := dealGroups(ctx, c, q, w)
	if err != nil {
		return nil, err
	}
	var totals CommissionTotals
	var renewal RenewalCommissions
	lenders, advisors := map[uuid.UUID]*CommissionTotals{}, map[uuid.UUID]*CommissionTotals{}
	for _, g := range groups {
		row := CommissionTotals{Expected: g.Expected, Paid: g.Paid, ClawedBack: g.ClawedBack, Outstanding: g.Owed}
		if g.Dimension == dealday.DimensionAdvisor {
			tally(advisors, g.SubjectID, row)
			continue
		}
		tally(lenders, g.SubjectID, row)
		totals.add(row)
		renewal.add(RenewalCommissions{Expected: g.RenewalExpected, Paid: g.RenewalPaid})
	}
	var days []struct {
		Day        int          `json:"day"`
		Paid       money.Amount `json:"paid"`
		ClawedBack money.Amount `json:"clawed_back"`
	}
	err = c.PaymentDay.Query().Where(paymentday.OrgID(q.OrgID), paymentday.DayGTE(w.first), paymentday.DayLT(w.last)).
		Select(paymentday.FieldDay, paymentday.FieldPaid, paymentday.FieldClawedBack).Scan(sys(ctx), &days)
	if err != nil {
		return nil, fmt.Errorf("reading the payment rollup: %w", err)
	}
	buckets := q.Range.Buckets(string(q.Interval))
	series := make([]CommissionBucket, len(buckets))
	for i, b := range buckets {
		series[i].PeriodStart = b.Date()
	}
	for _, d := range days {
		if i := q.bucketOf(buckets, d.Day); i >= 0 {
			series[i].Paid += d.Paid
			series[i].ClawedBack += d.ClawedBack
		}
	}
	for _, e := range w.edges {
		er, err := Commissions(ctx, c, e)
		if err != nil {
			return nil, err
		}
		totals.add(er.Totals)
		renewal.add(er.Renewal)
		for _, b := range er.Series {
			for i := range series {
				if series[i].PeriodStart == b.PeriodStart {
					series[i].Paid += b.Paid
					series[i].ClawedBack += b.ClawedBack
				}
			}
		}
		for _, g := range er.ByLender {
			tally(lenders, g.ID, g.Totals())
		}
		for _, g := range er.ByAdvisor {
			tally(advisors, g.ID, g.Totals())
		}
	}
	r := &CommissionsReport{Totals: totals, Renewal: renewal, Series: series}
	if r.ByAdvisor, err = commissionGroups(ctx, c, advisors, q.userNames); err != nil {
		return nil, err
	}
	if r.ByLender, err = commissionGroups(ctx, c, lenders, q.lenderNames); err != nil {
		return nil, err
	}
	return r, nil
}
