package graph_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

// Analytics at its edges (PRODUCT 2), each figure written out by hand:
// days of 23 and 25 hours, ISO weeks across a new year, empty months, ties
// of ratios, an empty range, date-times that cut days, approvals later
// withdrawn, and the parameters refused.

// askReport runs the analytics query with vars and decodes every report.
func askReport(t *testing.T, l *lendingEnv, vars map[string]any) report {
	t.Helper()
	q := query{}
	for name, field := range map[string]*string{"from": &q.From, "to": &q.To, "tz": &q.Timezone, "interval": &q.Interval, "advisor": &q.Advisor, "team": &q.Team} {
		if v, ok := vars[name]; ok {
			*field = v.(string)
		}
	}
	return askAnalytics(t, l.Env, l.key, q)
}

// callAt records one call (its call_started event) of agent at at.
func (l *lendingEnv) callAt(t *testing.T, agent string, at time.Time) {
	t.Helper()
	body := map[string]any{"externalCallId": fmt.Sprintf("edge-%d", at.UnixNano()), "userId": agent,
		"eventType": "call_started", "occurredAt": at.Format(time.RFC3339Nano)}
	if r := l.Post("/v1/dialer/events", l.key, body); r.Status != 201 {
		t.Fatalf("recording a call: %d %s", r.Status, r.Raw)
	}
}

// callSeries is the dialer series as "periodStart=calls" strings.
func callSeries(r report) []string {
	out := []string{}
	for _, b := range r.Dialer.Series {
		out = append(out, fmt.Sprintf("%s=%d", b.PeriodStart, b.Calls))
	}
	return out
}

func wantSeries(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s series = %v, want %v", what, got, want)
	}
}

func utc(s string) time.Time {
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return at
}

func TestAnalyticsDaylightSavingDays(t *testing.T) {
	l := newLendingEnv(t)
	agent := l.NewUser(l.Org.ID, "Ana", "Diaz", "agent", "").ID.String()
	// New York: 8 March 2026 lasts 23 hours (EST to EDT at 02:00), 1
	// November 2026 lasts 25 (EDT to EST at 02:00).
	for _, at := range []string{
		"2026-03-08T04:59:59.999Z", // 23:59:59.999 EST on the 7th
		"2026-03-08T05:00:00Z",     // midnight EST: the 8th begins
		"2026-03-09T03:59:59.999Z", // 23:59:59.999 EDT: the 8th's last instant
		"2026-03-09T04:00:00Z",     // the 9th
		"2026-11-01T04:00:00Z",     // midnight EDT: the 1st begins
		"2026-11-01T05:30:00Z",     // 01:30 EDT, the first of the two
		"2026-11-01T06:30:00Z",     // 01:30 EST, the second
		"2026-11-02T04:59:59.999Z", // 23:59:59.999 EST: the 1st's last instant
		"2026-11-02T05:00:00Z",     // the 2nd
	} {
		l.callAt(t, agent, utc(at))
	}
	for _, c := range []struct {
		from, to string
		hours    time.Duration
		series   []string
	}{
		{"2026-03-07", "2026-03-09", 24 + 23 + 24, []string{"2026-03-07=1", "2026-03-08=2", "2026-03-09=1"}},
		{"2026-03-08", "2026-03-08", 23, []string{"2026-03-08=2"}},
		{"2026-11-01", "2026-11-01", 25, []string{"2026-11-01=4"}},
		{"2026-10-31", "2026-11-02", 24 + 25 + 24, []string{"2026-10-31=0", "2026-11-01=4", "2026-11-02=1"}},
	} {
		r := askReport(t, l, map[string]any{"from": c.from, "to": c.to, "tz": "America/New_York", "interval": "day"})
		if got := r.To.Sub(r.From); got != c.hours*time.Hour {
			t.Errorf("%s..%s spans %v, want %v", c.from, c.to, got, c.hours*time.Hour)
		}
		wantSeries(t, c.from+".."+c.to, callSeries(r), c.series)
	}
	// The organization's zone is the default; a zone given wins over it.
	l.must(t, `mutation { updateOrganization(input: {timezone: "America/New_York"}) { timezone } }`, nil)
	r := askReport(t, l, map[string]any{"from": "2026-03-08", "to": "2026-03-08"})
	if r.Timezone != "America/New_York" || r.To.Sub(r.From) != 23*time.Hour {
		t.Errorf("with the organization's zone: %s, %v", r.Timezone, r.To.Sub(r.From))
	}
	r = askReport(t, l, map[string]any{"from": "2026-03-08", "to": "2026-03-08", "tz": "UTC"})
	if r.Timezone != "UTC" || r.To.Sub(r.From) != 24*time.Hour {
		t.Errorf("with UTC given: %s, %v", r.Timezone, r.To.Sub(r.From))
	}
	// Where a change skips midnight (Havana, 8 March 2026), the day begins
	// at 01:00 and lasts 23 hours.
	r = askReport(t, l, map[string]any{"from": "2026-03-07", "to": "2026-03-09", "tz": "America/Havana", "interval": "day"})
	if want := utc("2026-03-08T05:00:00Z"); len(r.Dialer.Series) != 3 || !r.From.Add(24*time.Hour).Equal(want) {
		t.Errorf("Havana 7-9 March: from %v, series %v", r.From, callSeries(r))
	}
}

func TestAnalyticsWeeksAcrossTheNewYear(t *testing.T) {
	l := newLendingEnv(t)
	agent := l.NewUser(l.Org.ID, "Ana", "Diaz", "agent", "").ID.String()
	for _, at := range []string{
		"2025-12-26T12:00:00Z",     // Friday before the range: left out though its week is listed
		"2025-12-27T00:00:00Z",     // Saturday: the range's first instant
		"2025-12-28T23:59:59.999Z", // Sunday: still the week of Monday 22 December
		"2025-12-29T00:00:00Z",     // Monday: ISO week 1 of 2026 begins
		"2026-01-01T09:00:00Z",
		"2026-01-04T23:59:59Z", // Sunday
		"2026-01-05T00:00:00Z", // Monday
		"2026-01-07T00:00:00Z", // after the range
	} {
		l.callAt(t, agent, utc(at))
	}
	r := askReport(t, l, map[string]any{"from": "2025-12-27", "to": "2026-01-06", "tz": "UTC", "interval": "week"})
	wantSeries(t, "weeks", callSeries(r), []string{"2025-12-22=2", "2025-12-29=3", "2026-01-05=1"})
	// In Kathmandu (+05:45) the same instants fall on other days.
	r = askReport(t, l, map[string]any{"from": "2025-12-27", "to": "2026-01-06", "tz": "Asia/Kathmandu", "interval": "week"})
	// 23:59:59 UTC on Sunday 28 December is 05:44 on Monday there; the
	// Friday's noon is before the range's first instant (18:15 UTC).
	wantSeries(t, "Kathmandu weeks", callSeries(r), []string{"2025-12-22=1", "2025-12-29=3", "2026-01-05=2"})
}

func TestAnalyticsMonthsListEmptyOnes(t *testing.T) {
	l := newLendingEnv(t)
	agent := l.NewUser(l.Org.ID, "Ana", "Diaz", "agent", "").ID.String()
	for _, at := range []string{"2026-01-10T12:00:00Z", "2026-01-20T12:00:00Z", "2026-05-31T22:00:00Z", "2026-06-01T00:30:00+01:00"} {
		l.callAt(t, agent, utc(at))
	}
	r := askReport(t, l, map[string]any{"from": "2026-01-15", "to": "2026-06-10", "tz": "Europe/London", "interval": "month"})
	// 10 January is before the range; 31 May 22:00 UTC is 23:00 in London
	// (BST); 00:30 BST on 1 June is June.
	wantSeries(t, "months", callSeries(r), []string{"2026-01-01=1", "2026-02-01=0", "2026-03-01=0", "2026-04-01=0", "2026-05-01=1", "2026-06-01=1"})
	for _, s := range [][]string{seriesOf(r.Funding.Series), seriesOf(r.Commissions.Series)} {
		if len(s) != 6 || s[1] != "2026-02-01" || s[5] != "2026-06-01" {
			t.Errorf("series periods %v, want the six months", s)
		}
	}
	if b := r.Funding.Series[2]; b.Deals != 0 || b.FundedAmount != "0.00" {
		t.Errorf("an empty month of funding: %+v", b)
	}
	if b := r.Commissions.Series[3]; b.Paid != "0.00" || b.ClawedBack != "0.00" {
		t.Errorf("an empty month of commissions: %+v", b)
	}
}

func seriesOf[T any](buckets []T) []string {
	out := []string{}
	for _, b := range buckets {
		out = append(out, reflect.ValueOf(b).FieldByName("PeriodStart").String())
	}
	return out
}

// Ratios have four decimals rounded half-even: 1/32 = 0.03125 -> 0.0312,
// 3/32 = 0.09375 -> 0.0938. Each lender decides 32 applications of one
// lead; an approved one is withdrawn before the next submission, and
// still counts as approved.
func TestAnalyticsRatioTies(t *testing.T) {
	l := newLendingEnv(t)
	lead := l.lead(t, nil)
	for _, c := range []struct {
		name     string
		approved int
		want     string
	}{{"Lender A Capital", 1, "0.0312"}, {"Lender B Capital", 3, "0.0938"}} {
		lender := l.lender(t, c.name, nil)
		for i := range 32 {
			app := l.submit(t, lead, lender, nil)["id"].(string)
			if i < c.approved {
				l.do(t, approveDoc, app)
				l.do(t, withdrawDoc, app)
			} else {
				l.do(t, declineDoc, app)
			}
		}
		r := askReport(t, l, map[string]any{"tz": "UTC"})
		var row *lenderRow
		for i := range r.Lenders.Lenders {
			if r.Lenders.Lenders[i].Name == c.name {
				row = &r.Lenders.Lenders[i]
			}
		}
		if row == nil || row.Submitted != 32 || row.Approved != c.approved || row.Declined != 32-c.approved ||
			row.Withdrawn != c.approved || row.ApprovalRate != c.want {
			t.Errorf("%s: %+v, want approvalRate %s", c.name, row, c.want)
		}
	}
	// The funnel: of 32 leads, the one above applied (1/32 -> 0.0312) and
	// was approved (1/1).
	for range 31 {
		l.lead(t, nil)
	}
	f := askReport(t, l, map[string]any{"tz": "UTC"}).Pipeline.Funnel
	if f.Leads != 32 || f.Applied != 1 || f.Approved != 1 || f.Conversion.Applied != "0.0312" || f.Conversion.Approved != "1.0000" ||
		f.Conversion.Funded != "0.0000" || f.Conversion.Overall != "0.0000" {
		t.Errorf("funnel %+v", f)
	}
}

func TestAnalyticsEmptyRange(t *testing.T) {
	l := newLendingEnv(t)
	r := askReport(t, l, map[string]any{"from": "2026-02-01", "to": "2026-02-03", "interval": "day"})
	var want report
	want.From, want.To, want.Timezone, want.Interval = utc("2026-02-01T00:00:00Z"), utc("2026-02-04T00:00:00Z"), "UTC", "day"
	want.Pipeline = r.Pipeline // stages: checked below
	want.Pipeline.Funnel = funnel{}
	want.Pipeline.Funnel.Conversion.Applied, want.Pipeline.Funnel.Conversion.Approved = "0.0000", "0.0000"
	want.Pipeline.Funnel.Conversion.Funded, want.Pipeline.Funnel.Conversion.Overall = "0.0000", "0.0000"
	want.Pipeline.BySource = nil
	for _, s := range leadSources {
		want.Pipeline.BySource = append(want.Pipeline.BySource, sourceRow{Source: s, FundedAmount: "0.00"})
	}
	want.Funding.Totals.FundedAmount, want.Funding.Totals.AverageAmount, want.Funding.Totals.ExpectedCommission = "0.00", "0.00", "0.00"
	want.Funding.Totals.RenewalAmount = "0.00"
	want.Funding.ByLender, want.Funding.ByAdvisor = []fundingGroup{}, []fundingGroup{}
	want.Lenders.Lenders = []lenderRow{}
	want.Commissions.Totals = commissionSums{"0.00", "0.00", "0.00", "0.00"}
	want.Commissions.Renewal = renewalSums{"0.00", "0.00"}
	want.Commissions.ByAdvisor, want.Commissions.ByLender = []commissionGroup{}, []commissionGroup{}
	want.Dialer.Agents = []agentRow{}
	for _, d := range []string{"2026-02-01", "2026-02-02", "2026-02-03"} {
		want.Funding.Series = append(want.Funding.Series, fundingBucket{PeriodStart: d, FundedAmount: "0.00", RenewalAmount: "0.00"})
		want.Commissions.Series = append(want.Commissions.Series, commissionBucket{PeriodStart: d, Paid: "0.00", ClawedBack: "0.00"})
		want.Dialer.Series = append(want.Dialer.Series, callCount{PeriodStart: d})
	}
	compareReports(t, "empty range", r, want)
	if len(r.Pipeline.Stages) == 0 {
		t.Error("no stages listed")
	}
	for _, s := range r.Pipeline.Stages {
		if s.Leads != 0 {
			t.Errorf("stage %s has %d leads", s.Label, s.Leads)
		}
	}
}

// A date-time is an instant: from inclusive, to exclusive, even mid-day;
// the series lists the days it touches.
func TestAnalyticsDateTimesCutDays(t *testing.T) {
	l := newLendingEnv(t)
	agent := l.NewUser(l.Org.ID, "Ana", "Diaz", "agent", "").ID.String()
	for _, at := range []string{"2026-02-10T11:59:59.999Z", "2026-02-10T12:00:00Z", "2026-02-10T23:00:00Z",
		"2026-02-11T11:59:59.999Z", "2026-02-11T12:00:00Z"} {
		l.callAt(t, agent, utc(at))
	}
	r := askReport(t, l, map[string]any{"from": "2026-02-10T12:00:00Z", "to": "2026-02-11T17:00:00+05:00", "tz": "UTC"})
	if !r.From.Equal(utc("2026-02-10T12:00:00Z")) || !r.To.Equal(utc("2026-02-11T12:00:00Z")) {
		t.Errorf("range [%v, %v)", r.From, r.To)
	}
	wantSeries(t, "mid-day cut", callSeries(r), []string{"2026-02-10=2", "2026-02-11=1"})
	if a := r.Dialer.Agents; len(a) != 1 || a[0].Calls != 3 {
		t.Errorf("agents %+v, want one with 3 calls", a)
	}
	// A date-time and a date together: from the instant to the end of the day.
	r = askReport(t, l, map[string]any{"from": "2026-02-10T23:00:00Z", "to": "2026-02-11", "tz": "UTC"})
	wantSeries(t, "date-time to date", callSeries(r), []string{"2026-02-10=1", "2026-02-11=2"})
}

// An application approved and then withdrawn counts as approved (and as
// withdrawn); one withdrawn before any decision does not.
func TestAnalyticsWithdrawnAfterApproval(t *testing.T) {
	l := newLendingEnv(t)
	lender := l.lender(t, "Lender A Capital", nil)
	approvedThenWithdrawn := l.lead(t, nil)
	l.do(t, withdrawDoc, l.submit(t, approvedThenWithdrawn, lender, nil)["id"].(string))
	app := l.submit(t, approvedThenWithdrawn, lender, nil)["id"].(string)
	l.do(t, approveDoc, app)
	l.do(t, withdrawDoc, app)
	withdrawnOnly := l.lead(t, nil)
	l.do(t, withdrawDoc, l.submit(t, withdrawnOnly, lender, nil)["id"].(string))
	r := askReport(t, l, map[string]any{"tz": "UTC"})
	if f := r.Pipeline.Funnel; f.Leads != 2 || f.Applied != 2 || f.Approved != 1 || f.Conversion.Approved != "0.5000" {
		t.Errorf("funnel %+v", f)
	}
	if ls := r.Lenders.Lenders; len(ls) != 1 || ls[0].Submitted != 3 || ls[0].Approved != 1 || ls[0].Withdrawn != 3 ||
		ls[0].Declined != 0 || ls[0].ApprovalRate != "1.0000" || ls[0].MedianSecondsToDecision == nil {
		t.Errorf("lenders %+v", ls)
	}
}

// Bad parameters are refused as VALIDATION_ERROR (REST's 422) naming the
// parameter.
func TestAnalyticsRefusesBadParameters(t *testing.T) {
	l := newLendingEnv(t)
	for _, c := range []struct {
		vars  map[string]any
		field string
	}{
		{map[string]any{"tz": "Mars/Olympus"}, "timezone"},
		{map[string]any{"tz": "Local"}, "timezone"},
		{map[string]any{"from": "2026-13-01"}, "from"},
		{map[string]any{"from": "yesterday"}, "from"},
		{map[string]any{"to": "2026-02-30"}, "to"},
		{map[string]any{"to": "2026-02-01T10:00:00"}, "to"}, // a date-time needs its offset
		{map[string]any{"from": "2026-02-02", "to": "2026-02-01"}, "to"},
		{map[string]any{"from": "2026-02-01T10:00:00Z", "to": "2026-02-01T10:00:00Z"}, "to"},
		{map[string]any{"from": "2025-01-01", "to": "2026-01-02"}, "to"}, // 367 days
	} {
		_, ext := gqlExt(t, l.Env, l.key, analyticsDoc, c.vars)
		if ext == nil {
			t.Errorf("%v accepted", c.vars)
			continue
		}
		wantError(t, ext, "VALIDATION_ERROR", c.field)
	}
	// 366 days is the most: 2028 is a leap year.
	if _, ext := gqlExt(t, l.Env, l.key, analyticsDoc, map[string]any{"from": "2028-01-01", "to": "2028-12-31"}); ext != nil {
		t.Errorf("366 days refused: %v", ext)
	}
	// An id that is not a UUID is VALIDATION_ERROR naming the argument, as
	// for every id (TestGraphQLMalformedID) and as REST answers it.
	for _, c := range []struct {
		vars  map[string]any
		field string
	}{{map[string]any{"advisor": "not-a-uuid"}, "advisorId"}, {map[string]any{"team": "42"}, "teamId"}} {
		_, ext := gqlExt(t, l.Env, l.key, analyticsDoc, c.vars)
		wantError(t, ext, "VALIDATION_ERROR", c.field)
	}
	// interval is an enum: GraphQL's own validation of the variable refuses
	// another value before any resolver runs, with 422 and the variable's path.
	resp := l.Post("/graphql", l.key, map[string]any{"query": analyticsDoc, "variables": map[string]any{"interval": "fortnight"}})
	errs, _ := resp.Body["errors"].([]any)
	if resp.Status != 422 || len(errs) != 1 || !reflect.DeepEqual(errs[0].(map[string]any)["path"], []any{"variable", "interval"}) {
		t.Errorf("interval fortnight: %d %s", resp.Status, resp.Raw)
	}
	ext := l.refused(t, `mutation { updateOrganization(input: {timezone: "Mars/Olympus"}) { timezone } }`, nil)
	wantError(t, ext, "VALIDATION_ERROR", "timezone")
}
