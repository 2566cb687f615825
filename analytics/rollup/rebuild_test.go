package rollup_test

import (
	"context"
	"fmt"
	"maps"
	"math/big"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/rollup"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/callday"
	"github.com/lendingpipe/svc/ent/callevent"
	"github.com/lendingpipe/svc/ent/commission"
	"github.com/lendingpipe/svc/ent/commissionpayment"
	"github.com/lendingpipe/svc/ent/dealday"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/leadcount"
	"github.com/lendingpipe/svc/ent/leadday"
	"github.com/lendingpipe/svc/ent/lenderday"
	"github.com/lendingpipe/svc/ent/paymentday"
	"github.com/lendingpipe/svc/internal/period"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/seed"
)

// The zone the seeded organizations' rollups are cut in: not UTC, so a
// day cut at the wrong midnight shows.
const testZone = "America/New_York"

// seedOrg creates an organization in testZone with a seeded lending book
// of n leads and about k call events of four agents, written as a bulk
// load: nothing keeps its rollups until they are rebuilt.
func seedOrg(t *testing.T, db *store.DB, name string, n, k int) uuid.UUID {
	t.Helper()
	ctx := viewer.WithBulkLoad(context.Background())
	org, _, err := store.CreateOrganization(ctx, db.Client, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Client.Organization.UpdateOneID(org.ID).SetTimezone(testZone).Exec(rule.SystemContext(ctx)); err != nil {
		t.Fatal(err)
	}
	if _, err := seed.LeadsWithLending(ctx, db, org.ID, n, nil); err != nil {
		t.Fatal(err)
	}
	agents, err := seed.Agents(ctx, db, org.ID, 4)
	if err != nil {
		t.Fatal(err)
	}
	leads, err := seed.SomeLeadIDs(ctx, db, org.ID, 50)
	if err != nil {
		t.Fatal(err)
	}
	if err := seed.CallEvents(ctx, db, org.ID, agents, leads, k, nil); err != nil {
		t.Fatal(err)
	}
	return org.ID
}

func rebuild(t *testing.T, db *store.DB, org uuid.UUID) {
	t.Helper()
	err := store.WithTx(rule.SystemContext(context.Background()), db.Client, func(ctx context.Context, tx *ent.Client) error {
		return rollup.Rebuild(ctx, tx, org)
	})
	if err != nil {
		t.Fatalf("rebuilding the rollups: %v", err)
	}
}

// date writes a rollup's day number as its calendar date.
func date(day int) string {
	y, m, d := period.DayDate(day)
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
}

// localDate is t's calendar date in loc, computed without internal/period.
func localDate(t time.Time, loc *time.Location) string { return t.In(loc).Format("2006-01-02") }

// The rebuild computes, from the records of one organization only, the
// figures the test computes from the raw rows; a second rebuild writes the
// same rows; another organization's rebuild leaves the first's alone.
func TestRebuildAgreesWithTheRecords(t *testing.T) {
	db := storetest.Open(t)
	org := seedOrg(t, db, "Rolled Up Brokers", 300, 1500)
	other := seedOrg(t, db, "Other Brokers", 120, 600)
	rebuild(t, db, org)
	c := db.Client
	if rows := dump(t, c, other); len(rows) != 0 {
		t.Fatalf("rebuilding one organization wrote %d rollup rows of another", len(rows))
	}
	if n := stageless(t, c, org); n != 0 {
		t.Fatalf("%d counts by no stage left after the rebuild", n)
	}
	want := expected(t, c, org)
	got := dump(t, c, org)
	diff(t, "rebuilt vs records", got, want)

	rebuild(t, db, org)
	diff(t, "second rebuild vs first", dump(t, c, org), got)

	rebuild(t, db, other)
	diff(t, "after another organization's rebuild", dump(t, c, org), got)
	diff(t, "other organization vs its records", dump(t, c, other), expected(t, c, other))
}

func diff(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	n := 0
	for k, w := range want {
		if g := got[k]; g != w {
			n++
			if n <= 10 {
				t.Errorf("%s: %s: got %q, want %q", what, k, g, w)
			}
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			n++
			if n <= 10 {
				t.Errorf("%s: %s: got %q, want none", what, k, g)
			}
		}
	}
	if n > 0 {
		t.Fatalf("%s: %d rows differ (of %d wanted)", what, n, len(want))
	}
	if len(want) == 0 {
		t.Fatalf("%s: nothing to compare", what)
	}
}

// dump reads org's rollup rows (day grain), slots summed, as text by key.
func dump(t *testing.T, c *ent.Client, org uuid.UUID) map[string]string {
	t.Helper()
	ctx := rule.SystemContext(context.Background())
	out := map[string]string{}
	add := func(k, v string) {
		if old, ok := out[k]; ok {
			t.Fatalf("rollup key %s twice: %s and %s", k, old, v)
		}
		out[k] = v
	}
	lds, err := c.LeadDay.Query().Where(leadday.OrgID(org)).All(ctx)
	must(t, err)
	for _, r := range lds {
		add(fmt.Sprintf("lead %s %s %d", date(r.Day), r.Source, r.Slot),
			fmt.Sprint(r.Leads, r.Applied, r.Approved, r.Funded, int64(r.FundedAmount)))
	}
	lcs, err := c.LeadCount.Query().Where(leadcount.OrgID(org)).All(ctx)
	must(t, err)
	for _, r := range lcs {
		if r.StageID == nil {
			continue // the bulk load's count of leads by no stage, which a rebuild replaces (stageless)
		}
		add(fmt.Sprintf("stage %v %d", r.StageID, r.Slot), fmt.Sprint(r.N, r.Requested, r.Outsized))
	}
	dds, err := c.DealDay.Query().Where(dealday.OrgID(org), dealday.GrainEQ(dealday.GrainDay)).All(ctx)
	must(t, err)
	for _, r := range dds {
		add(fmt.Sprintf("deal %s %s %s", date(r.Day), r.Dimension, r.SubjectID),
			fmt.Sprint(r.Deals, int64(r.FundedAmount), int64(r.ExpectedCommission), int64(r.Paid), int64(r.ClawedBack), int64(r.Outstanding)))
	}
	pds, err := c.PaymentDay.Query().Where(paymentday.OrgID(org)).All(ctx)
	must(t, err)
	for _, r := range pds {
		add("payment "+date(r.Day), fmt.Sprint(int64(r.Paid), int64(r.ClawedBack)))
	}
	lnds, err := c.LenderDay.Query().Where(lenderday.OrgID(org), lenderday.GrainEQ(lenderday.GrainDay)).All(ctx)
	must(t, err)
	for _, r := range lnds {
		add(fmt.Sprintf("lender %s %s %d", date(r.Day), r.LenderID, r.Slot),
			fmt.Sprint(r.Submitted, r.Approved, r.Declined, r.Withdrawn, r.Funded, int64(r.FundedAmount)))
	}
	cds, err := c.CallDay.Query().Where(callday.OrgID(org), callday.SpanEQ(callday.SpanDay)).All(ctx)
	must(t, err)
	for _, r := range cds {
		add(fmt.Sprintf("calls %s %s %d", date(r.Day), r.UserID, r.Slot), fmt.Sprint(r.Calls, r.Answered, r.TalkSeconds))
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("reading the records: %v", err)
	}
}

// expected computes, from org's raw rows with integer cents, the rows a
// rebuild writes in slot 0, keyed as dump keys them.
func expected(t *testing.T, c *ent.Client, org uuid.UUID) map[string]string {
	t.Helper()
	ctx := rule.SystemContext(context.Background())
	loc, err := time.LoadLocation(testZone)
	must(t, err)
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

	type ints []int64
	sums := map[string]ints{}
	addTo := func(k string, width int, v ...int64) {
		s := sums[k]
		if s == nil {
			s = make(ints, width)
			sums[k] = s
		}
		for i, x := range v {
			s[i] += x
		}
	}
	approved := func(a *ent.Application) bool {
		switch a.Status {
		case application.StatusApproved, application.StatusFunded:
			return true
		case application.StatusWithdrawn:
			return a.ApprovedAmount != nil
		}
		return false
	}
	appsOf := map[uuid.UUID][]*ent.Application{}
	for _, a := range apps {
		appsOf[a.LeadID] = append(appsOf[a.LeadID], a)
	}
	dealsOf := map[uuid.UUID][]*ent.FundedDeal{}
	dealByID := map[uuid.UUID]*ent.FundedDeal{}
	for _, d := range deals {
		dealsOf[d.LeadID] = append(dealsOf[d.LeadID], d)
		dealByID[d.ID] = d
	}
	stages := map[uuid.UUID]int64{}
	requested := map[uuid.UUID]int64{} // ten-thousandths, every amount within rollup.MaxKeptRequest
	for _, l := range leads {
		stages[l.StageID]++
		if l.RequestedAmount != nil {
			r, ok := new(big.Rat).SetString(*l.RequestedAmount)
			if !ok {
				t.Fatalf("requested amount %q", *l.RequestedAmount)
			}
			r.Mul(r, big.NewRat(10000, 1))
			requested[l.StageID] += r.Num().Int64()
		}
		var applied, appr, funded, amount int64
		for _, a := range appsOf[l.ID] {
			applied = 1
			if approved(a) {
				appr = 1
			}
		}
		for _, d := range dealsOf[l.ID] {
			funded = 1
			amount += int64(d.FundedAmount)
		}
		addTo(fmt.Sprintf("lead %s %s 0", localDate(l.CreatedAt, loc), l.Source), 5, 1, applied, appr, funded, amount)
	}
	for s, n := range stages {
		addTo(fmt.Sprintf("stage %v 0", s), 3, n, requested[s], 0)
	}
	// Each commission's payments and clawbacks, gross, whenever made.
	paid, clawed := map[uuid.UUID]int64{}, map[uuid.UUID]int64{}
	for _, p := range pays {
		day := "payment " + localDate(p.PaidAt, loc)
		if p.Kind == commissionpayment.KindClawback {
			clawed[p.CommissionID] += int64(p.Amount)
			addTo(day, 2, 0, int64(p.Amount))
		} else {
			paid[p.CommissionID] += int64(p.Amount)
			addTo(day, 2, int64(p.Amount), 0)
		}
	}
	cmOf := map[uuid.UUID]*ent.Commission{}
	for _, cm := range cms {
		cmOf[cm.DealID] = cm
	}
	for _, d := range deals {
		var p, cb, out int64
		if cm := cmOf[d.ID]; cm != nil {
			p, cb = paid[cm.ID], clawed[cm.ID]
			out = max(int64(cm.ExpectedAmount)-(p-cb), 0)
		}
		day := localDate(d.FundedAt, loc)
		v := []int64{1, int64(d.FundedAmount), int64(d.ExpectedCommission), p, cb, out}
		addTo(fmt.Sprintf("deal %s lender %s", day, d.LenderID), 6, v...)
		if d.AdvisorID != nil {
			addTo(fmt.Sprintf("deal %s advisor %s", day, *d.AdvisorID), 6, v...)
		}
	}
	for _, a := range apps {
		var appr, dec, wd, fu, amount int64
		if approved(a) {
			appr = 1
		}
		switch a.Status {
		case application.StatusDeclined:
			dec = 1
		case application.StatusWithdrawn:
			wd = 1
		case application.StatusFunded:
			fu = 1
			if a.FundedDealID != nil {
				amount = int64(dealByID[*a.FundedDealID].FundedAmount)
			}
		}
		addTo(fmt.Sprintf("lender %s %s 0", localDate(a.SubmittedAt, loc), a.LenderID), 6, 1, appr, dec, wd, fu, amount)
	}
	// A call counts on its day when all its events fall on one local day;
	// talk time counts on the day of its call_ended event.
	callDays := map[string]map[string]bool{}
	for _, e := range events {
		if callDays[e.ExternalCallID] == nil {
			callDays[e.ExternalCallID] = map[string]bool{}
		}
		callDays[e.ExternalCallID][localDate(e.OccurredAt, loc)] = true
		if e.EventType == callevent.EventTypeCallEnded && e.DurationSeconds != nil {
			addTo(fmt.Sprintf("calls %s %s 0", localDate(e.OccurredAt, loc), e.UserID), 3, 0, 0, int64(*e.DurationSeconds))
		}
	}
	type agentCall struct {
		call  string
		agent uuid.UUID
	}
	answered := map[agentCall]bool{}
	for _, e := range events {
		k := agentCall{e.ExternalCallID, e.UserID}
		answered[k] = answered[k] || e.EventType == callevent.EventTypeCallAnswered
	}
	for call, days := range callDays {
		if len(days) != 1 {
			continue
		}
		day := ""
		for d := range maps.Keys(days) {
			day = d
		}
		addTo(fmt.Sprintf("calls %s %s 0", day, uuid.Nil), 3, 1, 0, 0)
		for k, ans := range answered {
			if k.call != call {
				continue
			}
			var a int64
			if ans {
				a = 1
			}
			addTo(fmt.Sprintf("calls %s %s 0", day, k.agent), 3, 1, a, 0)
		}
	}
	out := make(map[string]string, len(sums))
	for k, v := range sums {
		s := fmt.Sprint(v[0])
		for _, x := range v[1:] {
			s += fmt.Sprint(" ", x)
		}
		out[k] = s
	}
	return out
}

// stageless counts org's LeadCount rows of no stage.
func stageless(t *testing.T, c *ent.Client, org uuid.UUID) int {
	t.Helper()
	n, err := c.LeadCount.Query().Where(leadcount.OrgID(org), leadcount.StageIDIsNil()).Count(rule.SystemContext(context.Background()))
	must(t, err)
	return n
}
