package analytics_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/callevent"
	"github.com/lendingpipe/svc/ent/commission"
	"github.com/lendingpipe/svc/ent/commissionpayment"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/internal/period"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/seed"
)

const testZone = "America/New_York"

// seedOrg creates an organization in testZone with a seeded lending book
// of n leads and about k call events of four agents, and builds its rollups.
func seedOrg(t *testing.T, db *store.DB, name string, n, k int) uuid.UUID {
	t.Helper()
	ctx := viewer.WithBulkLoad(context.Background())
	org, _, err := store.CreateOrganization(ctx, db.Client, name)
	must(t, err)
	must(t, db.Client.Organization.UpdateOneID(org.ID).SetTimezone(testZone).Exec(rule.SystemContext(ctx)))
	_, err = seed.LeadsWithLending(ctx, db, org.ID, n, nil)
	must(t, err)
	agents, err := seed.Agents(ctx, db, org.ID, 4)
	must(t, err)
	leads, err := seed.SomeLeadIDs(ctx, db, org.ID, 50)
	must(t, err)
	must(t, seed.CallEvents(ctx, db, org.ID, agents, leads, k, nil))
	must(t, analytics.RebuildRollups(ctx, db.Client, org.ID))
	return org.ID
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Each report over a range with partial days at both ends equals what the
// test computes from the organization's raw rows in integer cents, read
// from the rollups (the report in their zone) and from the records alone.
func TestReportsEqualTheRecords(t *testing.T) {
	db := storetest.Open(t)
	org := seedOrg(t, db, "Reported Brokers", 300, 1500)
	seedOrg(t, db, "Other Brokers", 120, 600)
	loc, err := time.LoadLocation(testZone)
	must(t, err)
	now := time.Now().In(loc)
	y, m, d := now.Date()
	rng := period.Range{Start: time.Date(y, m, d-200, 13, 17, 0, 0, loc).UTC(), End: time.Date(y, m, d-20, 8, 0, 0, 0, loc).UTC(), Loc: loc}
	want := oracle(t, db.Client, org, rng)
	for _, zone := range []string{testZone, ""} {
		t.Run(fmt.Sprintf("rollupZone=%q", zone), func(t *testing.T) {
			q := &analytics.Request{OrgID: org, Range: rng, Interval: period.Week, RollupZone: zone, Dialect: db.Dialect}
			got := reports(t, db.Client, q)
			for k, w := range want {
				if g := got[k]; g != w {
					t.Errorf("%s: got %q, want %q", k, g, w)
				}
			}
			for k, g := range got {
				if _, ok := want[k]; !ok {
					t.Errorf("%s: got %q, want none", k, g)
				}
			}
		})
	}
}

// reports reads every report of q as text by figure.
func reports(t *testing.T, c *ent.Client, q *analytics.Request) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	p, err := analytics.Pipeline(ctx, c, q)
	must(t, err)
	for _, s := range p.Stages {
		out["stage "+s.StageID.String()] = fmt.Sprint(s.Leads)
	}
	f := p.Funnel
	out["funnel"] = fmt.Sprint(f.Leads, f.Applied, f.Approved, f.Funded, f.Conversion.Applied, f.Conversion.Approved, f.Conversion.Funded, f.Conversion.Overall)
	for _, s := range p.BySource {
		out["source "+string(s.Source)] = fmt.Sprint(s.Leads, s.Funded, int64(s.FundedAmount))
	}
	fu, err := analytics.Funding(ctx, c, q)
	must(t, err)
	out["funding"] = fmt.Sprint(fu.Totals.Deals, int64(fu.Totals.FundedAmount), int64(fu.Totals.AverageAmount), int64(fu.Totals.ExpectedCommission))
	for _, b := range fu.Series {
		if b.Deals != 0 {
			out["funding week "+b.PeriodStart] = fmt.Sprint(b.Deals, int64(b.FundedAmount))
		}
	}
	for _, g := range fu.ByLender {
		out["funding lender "+g.ID.String()] = fmt.Sprint(g.Deals, int64(g.FundedAmount))
	}
	l, err := analytics.Lenders(ctx, c, q)
	must(t, err)
	for _, s := range l.Lenders {
		out["lender "+s.LenderID.String()] = fmt.Sprint(s.Submitted, s.Approved, s.Declined, s.Withdrawn, s.Funded, int64(s.FundedAmount), s.ApprovalRate)
	}
	cm, err := analytics.Commissions(ctx, c, q)
	must(t, err)
	tt := cm.Totals
	out["commissions"] = fmt.Sprint(int64(tt.Expected), int64(tt.Paid), int64(tt.Outstanding), int64(tt.ClawedBack))
	for _, g := range cm.ByLender {
		out["commissions lender "+g.ID.String()] = fmt.Sprint(int64(g.Expected), int64(g.Paid), int64(g.Outstanding), int64(g.ClawedBack))
	}
	dl, err := analytics.Dialer(ctx, c, q)
	must(t, err)
	for _, a := range dl.Agents {
		out["agent "+a.UserID.String()] = fmt.Sprint(a.Calls, a.Answered, a.TalkSeconds, a.AverageTalkSeconds)
	}
	calls := 0
	for _, b := range dl.Series {
		calls += b.Calls
	}
	out["calls"] = fmt.Sprint(calls)
	return out
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

// weekOf is the Monday starting t's local week, as a date.
func weekOf(t time.Time, loc *time.Location) string {
	y, m, d := t.In(loc).Date()
	day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	for day.Weekday() != time.Monday {
		day = day.AddDate(0, 0, -1)
	}
	return day.Format("2006-01-02")
}

// oracle computes the reports' figures from org's raw rows.
func oracle(t *testing.T, c *ent.Client, org uuid.UUID, r period.Range) map[string]string {
	t.Helper()
	ctx := rule.SystemContext(context.Background())
	in := func(at time.Time) bool { return !at.Before(r.Start) && at.Before(r.End) }
	leads, err := c.Lead.Query().Where(lead.OrgID(org)).All(ctx)
	must(t, err)
	apps, err := c.Application.Query().Where(application.OrgID(org)).All(ctx)
	must(t, err)
	deals, err := c.FundedDeal.Query().Where(fundeddeal.OrgID(org)).All(ctx)
	must(t, err)
	cms, err := c.Commission.Query().Where(commission.OrgID(org)).All(ctx)
	must(t, err)
	pays, err := c.CommissionPayment.Query().Where(commissionpayment.OrgID(org)).All(ctx)
	must(t, err)
	events, err := c.CallEvent.Query().Where(callevent.OrgID(org)).All(ctx)
	must(t, err)
	stages, err := c.PipelineStage.Query().All(ctx)
	must(t, err)
	out := map[string]string{}

	approved := func(a *ent.Application) bool {
		switch a.Status {
		case application.StatusApproved, application.StatusFunded:
			return true
		case application.StatusWithdrawn:
			return a.ApprovedAmount != nil
		}
		return false
	}
	byStage := map[uuid.UUID]int{}
	for _, l := range leads {
		byStage[l.StageID]++
	}
	for _, s := range stages {
		if s.OrgID == org {
			out["stage "+s.ID.String()] = fmt.Sprint(byStage[s.ID])
		}
	}
	type src struct {
		leads, funded int
		amount        int64
	}
	sources := map[string]*src{}
	for _, s := range []string{"manual", "csv_import", "api", "web_form", "referral", "dialer"} {
		sources[s] = &src{}
	}
	var nLeads, nApplied, nApproved, nFunded int64
	for _, l := range leads {
		if !in(l.CreatedAt) {
			continue
		}
		nLeads++
		s := sources[string(l.Source)]
		s.leads++
		applied, appr := false, false
		for _, a := range apps {
			if a.LeadID == l.ID {
				applied, appr = true, appr || approved(a)
			}
		}
		funded := false
		for _, d := range deals {
			if d.LeadID == l.ID {
				funded = true
				s.amount += int64(d.FundedAmount)
			}
		}
		nApplied += b2i(applied)
		nApproved += b2i(appr)
		if funded {
			nFunded++
			s.funded++
		}
	}
	out["funnel"] = line(nLeads, nApplied, nApproved, nFunded, ratio(nApplied, nLeads), ratio(nApproved, nApplied),
		ratio(nFunded, nApproved), ratio(nFunded, nLeads))
	for name, s := range sources {
		out["source "+name] = fmt.Sprint(s.leads, s.funded, s.amount)
	}

	var deals0, funded, expected int64
	weeks := map[string][2]int64{}
	lenders := map[uuid.UUID][2]int64{}
	dealIn := map[uuid.UUID]bool{}
	for _, d := range deals {
		if !in(d.FundedAt) {
			continue
		}
		dealIn[d.ID] = true
		deals0++
		funded += int64(d.FundedAmount)
		expected += int64(d.ExpectedCommission)
		w := weekOf(d.FundedAt, r.Loc)
		weeks[w] = [2]int64{weeks[w][0] + 1, weeks[w][1] + int64(d.FundedAmount)}
		lenders[d.LenderID] = [2]int64{lenders[d.LenderID][0] + 1, lenders[d.LenderID][1] + int64(d.FundedAmount)}
	}
	avg := int64(0)
	if deals0 > 0 { // half-even to the cent
		q, rem := funded/deals0, funded%deals0
		if 2*rem > deals0 || (2*rem == deals0 && q%2 == 1) {
			q++
		}
		avg = q
	}
	out["funding"] = fmt.Sprint(deals0, funded, avg, expected)
	for w, v := range weeks {
		out["funding week "+w] = fmt.Sprint(v[0], v[1])
	}
	for id, v := range lenders {
		out["funding lender "+id.String()] = fmt.Sprint(v[0], v[1])
	}

	dealByID := map[uuid.UUID]*ent.FundedDeal{}
	for _, d := range deals {
		dealByID[d.ID] = d
	}
	type lt struct{ sub, appr, dec, wd, fu, amount int64 }
	lts := map[uuid.UUID]*lt{}
	for _, a := range apps {
		if !in(a.SubmittedAt) {
			continue
		}
		x := lts[a.LenderID]
		if x == nil {
			x = &lt{}
			lts[a.LenderID] = x
		}
		x.sub++
		x.appr += b2i(approved(a))
		switch a.Status {
		case application.StatusDeclined:
			x.dec++
		case application.StatusWithdrawn:
			x.wd++
		case application.StatusFunded:
			x.fu++
			if a.FundedDealID != nil {
				x.amount += int64(dealByID[*a.FundedDealID].FundedAmount)
			}
		}
	}
	for id, x := range lts {
		out["lender "+id.String()] = line(x.sub, x.appr, x.dec, x.wd, x.fu, x.amount, ratio(x.appr, x.appr+x.dec))
	}

	paid, clawed := map[uuid.UUID]int64{}, map[uuid.UUID]int64{}
	for _, p := range pays {
		if p.Kind == commissionpayment.KindClawback {
			clawed[p.CommissionID] += int64(p.Amount)
		} else {
			paid[p.CommissionID] += int64(p.Amount)
		}
	}
	var tot [4]int64
	byLender := map[uuid.UUID]*[4]int64{}
	for _, cm := range cms {
		if !dealIn[cm.DealID] {
			continue
		}
		p, cb := paid[cm.ID], clawed[cm.ID]
		v := [4]int64{int64(cm.ExpectedAmount), p, max(int64(cm.ExpectedAmount)-(p-cb), 0), cb}
		if byLender[cm.LenderID] == nil {
			byLender[cm.LenderID] = &[4]int64{}
		}
		for i := range v {
			tot[i] += v[i]
			byLender[cm.LenderID][i] += v[i]
		}
	}
	out["commissions"] = fmt.Sprint(tot[0], tot[1], tot[2], tot[3])
	for id, v := range byLender {
		out["commissions lender "+id.String()] = fmt.Sprint(v[0], v[1], v[2], v[3])
	}

	type at struct {
		calls, answered map[string]bool
		talk            int
	}
	agents := map[uuid.UUID]*at{}
	allCalls := map[string]bool{}
	for _, e := range events {
		if !in(e.OccurredAt) {
			continue
		}
		a := agents[e.UserID]
		if a == nil {
			a = &at{calls: map[string]bool{}, answered: map[string]bool{}}
			agents[e.UserID] = a
		}
		a.calls[e.ExternalCallID] = true
		allCalls[e.ExternalCallID] = true
		if e.EventType == callevent.EventTypeCallAnswered {
			a.answered[e.ExternalCallID] = true
		}
		if e.EventType == callevent.EventTypeCallEnded && e.DurationSeconds != nil {
			a.talk += *e.DurationSeconds
		}
	}
	for id, a := range agents {
		avgTalk := 0
		if len(a.answered) > 0 {
			avgTalk = a.talk / len(a.answered)
		}
		out["agent "+id.String()] = fmt.Sprint(len(a.calls), len(a.answered), a.talk, avgTalk)
	}
	out["calls"] = fmt.Sprint(len(allCalls))
	return out
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// line writes values separated by spaces, as fmt.Sprint writes them when
// none is a string.
func line(v ...any) string { return strings.TrimSuffix(fmt.Sprintln(v...), "\n") }
