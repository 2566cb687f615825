package graph_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/callevent"
	"github.com/lendingpipe/svc/ent/commissionpayment"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
)

// The naive oracle of the analytics reports: PRODUCT 2's definitions
// computed from the raw records with loops and maps, to compare with what
// the service answers. It uses neither analytics nor internal/period: a
// day is a local calendar date, read off each instant in the report's zone,
// and a range's edges are found by searching the instants themselves.

// report is the analytics query's answer, as the oracle writes it too.
type report struct {
	From        time.Time         `json:"from"`
	To          time.Time         `json:"to"`
	Timezone    string            `json:"timezone"`
	Interval    string            `json:"interval"`
	Pipeline    pipelineReport    `json:"pipeline"`
	Funding     fundingReport     `json:"funding"`
	Lenders     lendersReport     `json:"lenders"`
	Commissions commissionsReport `json:"commissions"`
	Dialer      dialerReport      `json:"dialer"`
}

type pipelineReport struct {
	Stages   []stageRow  `json:"stages"`
	Funnel   funnel      `json:"funnel"`
	BySource []sourceRow `json:"bySource"`
}

type stageRow struct {
	StageID      string `json:"stageId"`
	Label        string `json:"label"`
	SemanticSlot string `json:"semanticSlot"`
	Leads        int    `json:"leads"`
}

type funnel struct {
	Leads      int `json:"leads"`
	Applied    int `json:"applied"`
	Approved   int `json:"approved"`
	Funded     int `json:"funded"`
	Conversion struct {
		Applied  string `json:"applied"`
		Approved string `json:"approved"`
		Funded   string `json:"funded"`
		Overall  string `json:"overall"`
	} `json:"conversion"`
}

type sourceRow struct {
	Source       string `json:"source"`
	Leads        int    `json:"leads"`
	Funded       int    `json:"funded"`
	FundedAmount string `json:"fundedAmount"`
}

type fundingReport struct {
	Totals struct {
		Deals              int    `json:"deals"`
		FundedAmount       string `json:"fundedAmount"`
		AverageAmount      string `json:"averageAmount"`
		ExpectedCommission string `json:"expectedCommission"`
		RenewalDeals       int    `json:"renewalDeals"`
		RenewalAmount      string `json:"renewalAmount"`
	} `json:"totals"`
	Series    []fundingBucket `json:"series"`
	ByLender  []fundingGroup  `json:"byLender"`
	ByAdvisor []fundingGroup  `json:"byAdvisor"`
}

type fundingBucket struct {
	PeriodStart   string `json:"periodStart"`
	Deals         int    `json:"deals"`
	FundedAmount  string `json:"fundedAmount"`
	RenewalDeals  int    `json:"renewalDeals"`
	RenewalAmount string `json:"renewalAmount"`
}

type fundingGroup struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Deals        int    `json:"deals"`
	FundedAmount string `json:"fundedAmount"`
}

type lendersReport struct {
	Lenders []lenderRow `json:"lenders"`
}

type lenderRow struct {
	LenderID                string        `json:"lenderId"`
	Name                    string        `json:"name"`
	Submitted               int           `json:"submitted"`
	Approved                int           `json:"approved"`
	Declined                int           `json:"declined"`
	Withdrawn               int           `json:"withdrawn"`
	Funded                  int           `json:"funded"`
	ApprovalRate            string        `json:"approvalRate"`
	FundedAmount            string        `json:"fundedAmount"`
	MedianSecondsToDecision *int          `json:"medianSecondsToDecision"`
	DeclineCategories       []categoryRow `json:"declineCategories"`
}

type categoryRow struct {
	Category string `json:"category"`
	Count    int    `json:"count"`
}

type commissionsReport struct {
	Totals    commissionSums     `json:"totals"`
	Renewal   renewalSums        `json:"renewal"`
	Series    []commissionBucket `json:"series"`
	ByAdvisor []commissionGroup  `json:"byAdvisor"`
	ByLender  []commissionGroup  `json:"byLender"`
}

type commissionSums struct {
	Expected    string `json:"expected"`
	Paid        string `json:"paid"`
	Outstanding string `json:"outstanding"`
	ClawedBack  string `json:"clawedBack"`
}

type renewalSums struct {
	Expected string `json:"expected"`
	Paid     string `json:"paid"`
}

type commissionBucket struct {
	PeriodStart string `json:"periodStart"`
	Paid        string `json:"paid"`
	ClawedBack  string `json:"clawedBack"`
}

type commissionGroup struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Expected    string `json:"expected"`
	Paid        string `json:"paid"`
	ClawedBack  string `json:"clawedBack"`
	Outstanding string `json:"outstanding"`
}

type dialerReport struct {
	Agents []agentRow  `json:"agents"`
	Series []callCount `json:"series"`
}

type agentRow struct {
	UserID             string           `json:"userId"`
	Name               string           `json:"name"`
	Calls              int              `json:"calls"`
	Answered           int              `json:"answered"`
	TalkSeconds        int              `json:"talkSeconds"`
	AverageTalkSeconds int              `json:"averageTalkSeconds"`
	Dispositions       []dispositionRow `json:"dispositions"`
}

type dispositionRow struct {
	Code  string `json:"code"`
	Count int    `json:"count"`
}

type callCount struct {
	PeriodStart string `json:"periodStart"`
	Calls       int    `json:"calls"`
}

// analyticsDoc asks for every figure of every report.
const analyticsDoc = `query($from: String, $to: String, $tz: String, $interval: AnalyticsInterval, $advisor: ID, $team: ID) {
  analytics(from: $from, to: $to, timezone: $tz, interval: $interval, advisorId: $advisor, teamId: $team) {
    from to timezone interval
    pipeline {
      stages { stageId label semanticSlot leads }
      funnel { leads applied approved funded conversion { applied approved funded overall } }
      bySource { source leads funded fundedAmount }
    }
    funding {
      totals { deals fundedAmount averageAmount expectedCommission renewalDeals renewalAmount }
      series { periodStart deals fundedAmount renewalDeals renewalAmount }
      byLender { id name deals fundedAmount }
      byAdvisor { id name deals fundedAmount }
    }
    lenders {
      lenders { lenderId name submitted approved declined withdrawn funded approvalRate fundedAmount
        medianSecondsToDecision declineCategories { category count } }
    }
    commissions {
      totals { expected paid outstanding clawedBack }
      renewal { expected paid }
      series { periodStart paid clawedBack }
      byAdvisor { id name expected paid clawedBack outstanding }
      byLender { id name expected paid clawedBack outstanding }
    }
    dialer {
      agents { userId name calls answered talkSeconds averageTalkSeconds dispositions { code count } }
      series { periodStart calls }
    }
  }
}`

// query is one analytics request: its parameters as sent ("" when left
// out) and what the oracle needs besides them.
type query struct {
	From, To, Timezone, Interval, Advisor, Team string
	OrgZone                                     string    // the organization's setting when it runs
	Now                                         time.Time // the server's clock when it runs
}

func (q query) vars() map[string]any {
	v := map[string]any{}
	for name, s := range map[string]string{"from": q.From, "to": q.To, "tz": q.Timezone, "interval": q.Interval, "advisor": q.Advisor, "team": q.Team} {
		if s != "" {
			v[name] = s
		}
	}
	return v
}

// raw is every row of the database the reports read, as stored.
type raw struct {
	org         uuid.UUID
	users       map[uuid.UUID]*ent.User
	lenders     map[uuid.UUID]*ent.Lender
	stages      []*ent.PipelineStage
	leads       []*ent.Lead
	apps        []*ent.Application
	deals       []*ent.FundedDeal
	commissions []*ent.Commission
	payments    []*ent.CommissionPayment
	calls       []*ent.CallEvent
}

// readRaw reads every row of every organization; the oracle keeps org's.
func readRaw(t *testing.T, db *store.DB, org uuid.UUID) *raw {
	t.Helper()
	ctx := rule.SystemContext(context.Background())
	c := db.Client
	r := &raw{org: org, users: map[uuid.UUID]*ent.User{}, lenders: map[uuid.UUID]*ent.Lender{}}
	must := func(err error) {
		if err != nil {
			t.Fatalf("reading the raw records: %v", err)
		}
	}
	users, err := c.User.Query().All(ctx)
	must(err)
	for _, u := range users {
		r.users[u.ID] = u
	}
	lenders, err := c.Lender.Query().All(ctx)
	must(err)
	for _, l := range lenders {
		r.lenders[l.ID] = l
	}
	r.stages, err = c.PipelineStage.Query().All(ctx)
	must(err)
	r.leads, err = c.Lead.Query().All(ctx)
	must(err)
	r.apps, err = c.Application.Query().All(ctx)
	must(err)
	r.deals, err = c.FundedDeal.Query().All(ctx)
	must(err)
	r.commissions, err = c.Commission.Query().All(ctx)
	must(err)
	r.payments, err = c.CommissionPayment.Query().All(ctx)
	must(err)
	r.calls, err = c.CallEvent.Query().All(ctx)
	must(err)
	return r
}

// date is a calendar date, with no zone.
type date struct {
	y int
	m time.Month
	d int
}

func dateOf(t time.Time, loc *time.Location) date {
	y, m, d := t.In(loc).Date()
	return date{y, m, d}
}

// civil is the date as a UTC midnight: UTC has no daylight saving, so
// adding days and months to it is plain calendar arithmetic.
func (d date) civil() time.Time { return time.Date(d.y, d.m, d.d, 0, 0, 0, 0, time.UTC) }

func (d date) add(days int) date { return dateOf(d.civil().AddDate(0, 0, days), time.UTC) }

func (d date) String() string { return d.civil().Format("2006-01-02") }

func parseDate(s string) (date, bool) {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return date{}, false
	}
	return dateOf(t, time.UTC), true
}

// firstInstant is the first instant whose date in loc is d or later: a
// search over whole seconds (zones change at whole seconds), knowing only
// that every offset lies within 15 hours of UTC.
func firstInstant(d date, loc *time.Location) time.Time {
	lo, hi := d.civil().Add(-15*time.Hour).Unix(), d.civil().Add(15*time.Hour).Unix()
	for lo < hi { // the answer is in (lo, hi]
		mid := lo + (hi-lo)/2
		if dateOf(time.Unix(mid, 0), loc).civil().Before(d.civil()) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return time.Unix(lo, 0).UTC()
}

// window is the oracle's reading of a query's range: instants [start,
// end) and the zone.
type window struct {
	start, end time.Time
	loc        *time.Location
	interval   string
}

// windowOf reads q as PRODUCT 2 says: a date is a whole local day (both
// ends inclusive), a date-time an instant (from inclusive, to exclusive);
// without to the range ends with today, without from it is the 30 days
// ending with its last day.
func windowOf(t *testing.T, q query) window {
	t.Helper()
	zone := cmp.Or(q.Timezone, q.OrgZone, "UTC")
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatalf("zone %q: %v", zone, err)
	}
	w := window{loc: loc, interval: cmp.Or(q.Interval, "day")}
	switch d, isDate := parseDate(q.To); {
	case q.To == "":
		w.end = firstInstant(dateOf(q.Now, loc).add(1), loc)
	case isDate:
		w.end = firstInstant(d.add(1), loc)
	default:
		w.end = mustInstant(t, q.To)
	}
	lastDay := dateOf(w.end.Add(-time.Nanosecond), loc)
	switch d, isDate := parseDate(q.From); {
	case q.From == "":
		w.start = firstInstant(lastDay.add(-29), loc)
	case isDate:
		w.start = firstInstant(d, loc)
	default:
		w.start = mustInstant(t, q.From)
	}
	return w
}

func mustInstant(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("a date-time of the test: %v", err)
	}
	return at
}

func (w window) holds(t time.Time) bool { return !t.Before(w.start) && t.Before(w.end) }

// bucketOf is the periodStart of the bucket holding t: its local date,
// the Monday of that date's week, or the 1st of its month.
func (w window) bucketOf(t time.Time) string {
	d := dateOf(t, w.loc)
	switch w.interval {
	case "week":
		for d.civil().Weekday() != time.Monday {
			d = d.add(-1)
		}
	case "month":
		d.d = 1
	}
	return d.String()
}

// buckets lists the periodStart of every bucket from the range's first
// instant to its last.
func (w window) buckets() []string {
	first, last := w.bucketOf(w.start), w.bucketOf(w.end.Add(-time.Nanosecond))
	var out []string
	for d, _ := parseDate(first); ; {
		out = append(out, d.String())
		if d.String() == last {
			return out
		}
		switch w.interval {
		case "day":
			d = d.add(1)
		case "week":
			d = d.add(7)
		default:
			d = dateOf(d.civil().AddDate(0, 1, 0), time.UTC)
		}
	}
}

// cents writes an amount of cents as the API does.
func cents(c int64) string {
	if c < 0 {
		return "-" + cents(-c)
	}
	return fmt.Sprintf("%d.%02d", c/100, c%100)
}

// ratio writes num/den with four decimals, half-even; 0.0000 over 0.
func ratio(num, den int64) string {
	if den == 0 {
		return "0.0000"
	}
	q, r := num*10000/den, num*10000%den
	if 2*r > den || (2*r == den && q%2 == 1) {
		q++
	}
	return fmt.Sprintf("%d.%04d", q/10000, q%10000)
}

// halfEvenDiv is a/b rounded half-even, for a >= 0 and b > 0.
func halfEvenDiv(a, b int64) int64 {
	q, r := a/b, a%b
	if 2*r > b || (2*r == b && q%2 == 1) {
		q++
	}
	return q
}

func name(u *ent.User) string { return u.FirstName + " " + u.LastName }

// oracle computes every report of q over r.
func oracle(t *testing.T, r *raw, q query) report {
	t.Helper()
	w := windowOf(t, q)
	out := report{From: w.start, To: w.end, Timezone: w.loc.String(), Interval: w.interval}
	// admits is the people filter: a record counts when its person is the
	// advisor and (or) a member of the team.
	admits := func(id *uuid.UUID) bool {
		if q.Advisor == "" && q.Team == "" {
			return true
		}
		if id == nil {
			return false
		}
		u := r.users[*id]
		if u == nil || u.OrgID != r.org {
			return false
		}
		if q.Advisor != "" && u.ID.String() != q.Advisor {
			return false
		}
		if q.Team != "" && (u.TeamID == nil || u.TeamID.String() != q.Team) {
			return false
		}
		return true
	}
	out.Pipeline = oraclePipeline(r, w, admits)
	out.Funding = oracleFunding(r, w, admits)
	out.Lenders = oracleLenders(r, w, admits)
	out.Commissions = oracleCommissions(r, w, admits)
	out.Dialer = oracleDialer(r, w, admits)
	return out
}

// wasApproved: now approved or funded, or withdrawn with the offer the
// lender approved it with.
func wasApproved(a *ent.Application) bool {
	switch a.Status {
	case application.StatusApproved, application.StatusFunded:
		return true
	case application.StatusWithdrawn:
		return a.ApprovedAmount != nil
	}
	return false
}

var leadSources = []string{"manual", "csv_import", "api", "web_form", "referral", "dialer"}

func oraclePipeline(r *raw, w window, admits func(*uuid.UUID) bool) pipelineReport {
	var p pipelineReport
	var stages []*ent.PipelineStage
	for _, s := range r.stages {
		if s.OrgID == r.org {
			stages = append(stages, s)
		}
	}
	slices.SortFunc(stages, func(a, b *ent.PipelineStage) int { return cmp.Compare(a.Position, b.Position) })
	for _, s := range stages {
		row := stageRow{StageID: s.ID.String(), Label: s.StageLabel, SemanticSlot: string(s.SemanticSlot)}
		for _, l := range r.leads {
			if l.OrgID == r.org && admits(l.PrimaryAdvisorID) && l.StageID == s.ID {
				row.Leads++
			}
		}
		p.Stages = append(p.Stages, row)
	}
	bySource := map[string]*sourceRow{}
	var fundedCents = map[string]int64{}
	for _, s := range leadSources {
		bySource[s] = &sourceRow{Source: s}
	}
	f := &p.Funnel
	for _, l := range r.leads {
		if l.OrgID != r.org || !admits(l.PrimaryAdvisorID) || !w.holds(l.CreatedAt) {
			continue
		}
		f.Leads++
		src := bySource[string(l.Source)]
		src.Leads++
		applied, approved := false, false
		for _, a := range r.apps {
			if a.LeadID == l.ID {
				applied = true
				approved = approved || wasApproved(a)
			}
		}
		funded := false
		for _, d := range r.deals {
			if d.LeadID == l.ID {
				funded = true
				fundedCents[src.Source] += int64(d.FundedAmount)
			}
		}
		if applied {
			f.Applied++
		}
		if approved {
			f.Approved++
		}
		if funded {
			f.Funded++
			src.Funded++
		}
	}
	f.Conversion.Applied = ratio(int64(f.Applied), int64(f.Leads))
	f.Conversion.Approved = ratio(int64(f.Approved), int64(f.Applied))
	f.Conversion.Funded = ratio(int64(f.Funded), int64(f.Approved))
	f.Conversion.Overall = ratio(int64(f.Funded), int64(f.Leads))
	for _, s := range leadSources {
		row := bySource[s]
		row.FundedAmount = cents(fundedCents[s])
		p.BySource = append(p.BySource, *row)
	}
	return p
}

func oracleFunding(r *raw, w window, admits func(*uuid.UUID) bool) fundingReport {
	var f fundingReport
	var total, commission, renewed int64
	type group struct {
		deals int
		sum   int64
	}
	lenders, advisors := map[uuid.UUID]*group{}, map[uuid.UUID]*group{}
	add := func(m map[uuid.UUID]*group, id uuid.UUID, amount int64) {
		if m[id] == nil {
			m[id] = &group{}
		}
		m[id].deals++
		m[id].sum += amount
	}
	seriesDeals, seriesCents := map[string]int{}, map[string]int64{}
	renewalDeals, renewalCents := map[string]int{}, map[string]int64{}
	for _, d := range r.deals {
		if d.OrgID != r.org || !admits(d.AdvisorID) || !w.holds(d.FundedAt) {
			continue
		}
		f.Totals.Deals++
		total += int64(d.FundedAmount)
		commission += int64(d.ExpectedCommission)
		b := w.bucketOf(d.FundedAt)
		seriesDeals[b]++
		seriesCents[b] += int64(d.FundedAmount)
		if d.RenewalOfDealID != nil {
			f.Totals.RenewalDeals++
			renewed += int64(d.FundedAmount)
			renewalDeals[b]++
			renewalCents[b] += int64(d.FundedAmount)
		}
		add(lenders, d.LenderID, int64(d.FundedAmount))
		if d.AdvisorID != nil {
			add(advisors, *d.AdvisorID, int64(d.FundedAmount))
		}
	}
	f.Totals.FundedAmount = cents(total)
	f.Totals.ExpectedCommission = cents(commission)
	f.Totals.RenewalAmount = cents(renewed)
	f.Totals.AverageAmount = cents(0)
	if f.Totals.Deals > 0 {
		f.Totals.AverageAmount = cents(halfEvenDiv(total, int64(f.Totals.Deals)))
	}
	for _, b := range w.buckets() {
		f.Series = append(f.Series, fundingBucket{PeriodStart: b, Deals: seriesDeals[b], FundedAmount: cents(seriesCents[b]),
			RenewalDeals: renewalDeals[b], RenewalAmount: cents(renewalCents[b])})
	}
	f.ByLender = []fundingGroup{}
	for id, g := range lenders {
		f.ByLender = append(f.ByLender, fundingGroup{ID: id.String(), Name: r.lenders[id].Name, Deals: g.deals, FundedAmount: cents(g.sum)})
	}
	f.ByAdvisor = []fundingGroup{}
	for id, g := range advisors {
		f.ByAdvisor = append(f.ByAdvisor, fundingGroup{ID: id.String(), Name: name(r.users[id]), Deals: g.deals, FundedAmount: cents(g.sum)})
	}
	return f
}

func oracleLenders(r *raw, w window, admits func(*uuid.UUID) bool) lendersReport {
	type tally struct {
		row      lenderRow
		funded   int64
		seconds  []int
		declines map[string]int
	}
	leads := map[uuid.UUID]*ent.Lead{}
	for _, l := range r.leads {
		leads[l.ID] = l
	}
	byLender := map[uuid.UUID]*tally{}
	for _, a := range r.apps {
		if a.OrgID != r.org || !admits(leads[a.LeadID].PrimaryAdvisorID) || !w.holds(a.SubmittedAt) {
			continue
		}
		t := byLender[a.LenderID]
		if t == nil {
			t = &tally{declines: map[string]int{}}
			byLender[a.LenderID] = t
		}
		t.row.Submitted++
		decided := false
		if wasApproved(a) {
			t.row.Approved++
			decided = true
		}
		switch a.Status {
		case application.StatusDeclined:
			t.row.Declined++
			decided = true
			cat := "other"
			if a.DeclineCategory != nil {
				cat = string(*a.DeclineCategory)
			}
			t.declines[cat]++
		case application.StatusWithdrawn:
			t.row.Withdrawn++
		case application.StatusFunded:
			t.row.Funded++
			for _, d := range r.deals {
				if d.ApplicationID == a.ID {
					t.funded += int64(d.FundedAmount)
				}
			}
		}
		if decided {
			t.seconds = append(t.seconds, int(a.DecidedAt.Sub(a.SubmittedAt).Milliseconds()/1000))
		}
	}
	out := lendersReport{Lenders: []lenderRow{}}
	for id, t := range byLender {
		row := t.row
		row.LenderID, row.Name = id.String(), r.lenders[id].Name
		row.ApprovalRate = ratio(int64(row.Approved), int64(row.Approved+row.Declined))
		row.FundedAmount = cents(t.funded)
		if len(t.seconds) > 0 {
			slices.Sort(t.seconds)
			m := t.seconds[(len(t.seconds)-1)/2]
			row.MedianSecondsToDecision = &m
		}
		row.DeclineCategories = []categoryRow{}
		for c, n := range t.declines {
			row.DeclineCategories = append(row.DeclineCategories, categoryRow{Category: c, Count: n})
		}
		out.Lenders = append(out.Lenders, row)
	}
	// The API lists them by name (names are unique in an organization).
	slices.SortFunc(out.Lenders, func(a, b lenderRow) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

func oracleCommissions(r *raw, w window, admits func(*uuid.UUID) bool) commissionsReport {
	var c commissionsReport
	deals := map[uuid.UUID]*ent.FundedDeal{}
	for _, d := range r.deals {
		deals[d.ID] = d
	}
	type sums struct{ expected, paid, clawed, outstanding int64 }
	var total, renewal sums
	advisors, lenders := map[uuid.UUID]*sums{}, map[uuid.UUID]*sums{}
	add := func(m map[uuid.UUID]*sums, id uuid.UUID, s sums) {
		if m[id] == nil {
			m[id] = &sums{}
		}
		g := m[id]
		g.expected += s.expected
		g.paid += s.paid
		g.clawed += s.clawed
		g.outstanding += s.outstanding
	}
	for _, cm := range r.commissions {
		if cm.OrgID != r.org || !admits(cm.AdvisorID) || !w.holds(deals[cm.DealID].FundedAt) {
			continue
		}
		s := sums{expected: int64(cm.ExpectedAmount)}
		for _, p := range r.payments {
			if p.CommissionID != cm.ID {
				continue
			}
			if p.Kind == commissionpayment.KindClawback {
				s.clawed += int64(p.Amount)
			} else {
				s.paid += int64(p.Amount)
			}
		}
		s.outstanding = max(s.expected-(s.paid-s.clawed), 0)
		total.expected += s.expected
		total.paid += s.paid
		total.clawed += s.clawed
		total.outstanding += s.outstanding
		if cm.RenewalOfDealID != nil {
			renewal.expected += s.expected
			renewal.paid += s.paid
		}
		add(lenders, cm.LenderID, s)
		if cm.AdvisorID != nil {
			add(advisors, *cm.AdvisorID, s)
		}
	}
	c.Totals = commissionSums{Expected: cents(total.expected), Paid: cents(total.paid),
		Outstanding: cents(total.outstanding), ClawedBack: cents(total.clawed)}
	c.Renewal = renewalSums{Expected: cents(renewal.expected), Paid: cents(renewal.paid)}
	commissions := map[uuid.UUID]*ent.Commission{}
	for _, cm := range r.commissions {
		commissions[cm.ID] = cm
	}
	paid, clawed := map[string]int64{}, map[string]int64{}
	for _, p := range r.payments {
		if p.OrgID != r.org || !w.holds(p.PaidAt) || !admits(commissions[p.CommissionID].AdvisorID) {
			continue
		}
		if p.Kind == commissionpayment.KindClawback {
			clawed[w.bucketOf(p.PaidAt)] += int64(p.Amount)
		} else {
			paid[w.bucketOf(p.PaidAt)] += int64(p.Amount)
		}
	}
	for _, b := range w.buckets() {
		c.Series = append(c.Series, commissionBucket{PeriodStart: b, Paid: cents(paid[b]), ClawedBack: cents(clawed[b])})
	}
	group := func(id uuid.UUID, name string, s *sums) commissionGroup {
		return commissionGroup{ID: id.String(), Name: name, Expected: cents(s.expected), Paid: cents(s.paid),
			ClawedBack: cents(s.clawed), Outstanding: cents(s.outstanding)}
	}
	c.ByAdvisor, c.ByLender = []commissionGroup{}, []commissionGroup{}
	for id, s := range advisors {
		c.ByAdvisor = append(c.ByAdvisor, group(id, name(r.users[id]), s))
	}
	for id, s := range lenders {
		c.ByLender = append(c.ByLender, group(id, r.lenders[id].Name, s))
	}
	return c
}

func oracleDialer(r *raw, w window, admits func(*uuid.UUID) bool) dialerReport {
	type tally struct {
		calls, answered map[string]bool
		talk            int
		dispositions    map[string]int
	}
	agents := map[uuid.UUID]*tally{}
	first := map[string]time.Time{}
	for _, e := range r.calls {
		if e.OrgID != r.org || !admits(&e.UserID) || !w.holds(e.OccurredAt) {
			continue
		}
		t := agents[e.UserID]
		if t == nil {
			t = &tally{calls: map[string]bool{}, answered: map[string]bool{}, dispositions: map[string]int{}}
			agents[e.UserID] = t
		}
		t.calls[e.ExternalCallID] = true
		switch e.EventType {
		case callevent.EventTypeCallAnswered:
			t.answered[e.ExternalCallID] = true
		case callevent.EventTypeCallEnded:
			if e.DurationSeconds != nil {
				t.talk += *e.DurationSeconds
			}
		case callevent.EventTypeDisposition:
			if e.Disposition != nil {
				t.dispositions[*e.Disposition]++
			}
		}
		if at, seen := first[e.ExternalCallID]; !seen || e.OccurredAt.Before(at) {
			first[e.ExternalCallID] = e.OccurredAt
		}
	}
	out := dialerReport{Agents: []agentRow{}}
	for id, t := range agents {
		row := agentRow{UserID: id.String(), Name: name(r.users[id]), Calls: len(t.calls), Answered: len(t.answered),
			TalkSeconds: t.talk, Dispositions: []dispositionRow{}}
		if row.Answered > 0 {
			row.AverageTalkSeconds = row.TalkSeconds / row.Answered
		}
		for code, n := range t.dispositions {
			row.Dispositions = append(row.Dispositions, dispositionRow{Code: code, Count: n})
		}
		out.Agents = append(out.Agents, row)
	}
	// The API lists them by name (the book's names are distinct).
	slices.SortFunc(out.Agents, func(a, b agentRow) int { return cmp.Compare(a.Name, b.Name) })
	calls := map[string]int{}
	for _, at := range first {
		calls[w.bucketOf(at)]++
	}
	for _, b := range w.buckets() {
		out.Series = append(out.Series, callCount{PeriodStart: b, Calls: calls[b]})
	}
	return out
}
