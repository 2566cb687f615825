package rest_test

import (
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

// analyticsBook is the lending book (lendingBook) with the dialer's calls
// of two agents of team Floor, and another organization with records of
// its own that must never reach this one's reports:
//
//   - Riley: r0 forty days ago (outside the default range); r1 started,
//     answered, ended after 120 s, disposed interested (the disposition
//     endpoint); r2 started, ended after 0 s, disposed no_answer (an event);
//     r3 started only;
//   - Jordan: j1 started, answered, ended after 45 s, disposed interested
//     and then callback.
type analyticsBook struct {
	*lendingBook
	riley, jordan, floor, closers string
	calls                         map[string]time.Time // each call's first event
	otherKey                      string
	otherIDs                      []string // the other organization's ids and names
}

func newAnalyticsBook(t *testing.T, e *resttest.Env) *analyticsBook {
	t.Helper()
	b := &analyticsBook{lendingBook: newLendingBook(t, e), calls: map[string]time.Time{}}
	riley := e.NewUser(e.Org.ID, "Riley", "Brooks", "agent", "Floor")
	b.riley, b.floor = riley.ID.String(), riley.TeamID.String()
	b.jordan = e.NewUser(e.Org.ID, "Jordan", "Kim", "agent", "Floor").ID.String()
	b.closers = e.Get("/v1/users?role=advisor", e.Key).Items()[0]["attributes"].(map[string]any)["teamId"].(string)

	call := func(agent, id string, at time.Time, eventType string, extra map[string]any) {
		t.Helper()
		body := map[string]any{"externalCallId": id, "userId": agent, "eventType": eventType, "occurredAt": at.Format(time.RFC3339)}
		for k, v := range extra {
			body[k] = v
		}
		mustStatus(t, e.Post("/v1/dialer/events", e.Key, body), http.StatusCreated)
		if first, ok := b.calls[id]; !ok || at.Before(first) {
			b.calls[id] = at
		}
	}
	dispose := func(agent, id string, at time.Time, code string) {
		t.Helper()
		mustStatus(t, e.Post("/v1/dialer/disposition", e.Key, map[string]any{"externalCallId": id, "userId": agent,
			"disposition": code, "occurredAt": at.Format(time.RFC3339)}), http.StatusCreated)
	}
	base := b.base
	call(b.riley, "r0", base.AddDate(0, 0, -40), "call_started", nil)
	r1 := base.Add(-3 * time.Hour)
	call(b.riley, "r1", r1, "call_started", map[string]any{"direction": "outbound", "leadId": b.leadA})
	call(b.riley, "r1", r1.Add(5*time.Second), "call_answered", nil)
	call(b.riley, "r1", r1.Add(125*time.Second), "call_ended", map[string]any{"durationSeconds": 120})
	dispose(b.riley, "r1", r1.Add(130*time.Second), "interested")
	r2 := base.Add(-2 * time.Hour)
	call(b.riley, "r2", r2, "call_started", nil)
	call(b.riley, "r2", r2.Add(20*time.Second), "call_ended", map[string]any{"durationSeconds": 0})
	call(b.riley, "r2", r2.Add(25*time.Second), "disposition", map[string]any{"disposition": "no_answer"})
	call(b.riley, "r3", base.Add(-time.Hour), "call_started", nil)
	j1 := base.Add(-90 * time.Minute)
	call(b.jordan, "j1", j1, "call_started", nil)
	call(b.jordan, "j1", j1.Add(3*time.Second), "call_answered", nil)
	call(b.jordan, "j1", j1.Add(48*time.Second), "call_ended", map[string]any{"durationSeconds": 45})
	dispose(b.jordan, "j1", j1.Add(50*time.Second), "interested")
	call(b.jordan, "j1", j1.Add(55*time.Second), "disposition", map[string]any{"disposition": "callback"})

	// Another organization: a funded deal with a payment, and a call.
	other, otherKey := e.NewOrg("Other Shop", viewer.AllScopes...)
	b.otherKey = otherKey
	agent := e.NewUser(other.ID, "Olive", "Outsider", "agent", "Outside").ID.String()
	lender := field(gql(t, e, otherKey, `mutation { createLender(input: {name: "Outside Lender", commissionRate: "0.5"}) { id } }`, nil), "createLender")["id"].(string)
	lead := createLead(t, e, otherKey, map[string]any{"businessName": "Outside Lead", "requestedAmount": "777777", "assignToAdvisorId": agent})
	app := field(gql(t, e, otherKey, `mutation($l: ID!, $r: ID!) { submitApplication(input: {leadId: $l, lenderId: $r}) { id } }`,
		map[string]any{"l": lead, "r": lender}), "submitApplication")["id"].(string)
	gql(t, e, otherKey, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, interestRate: "1.5", rateType: factor, termMonths: 6}) { id } }`,
		map[string]any{"id": app})
	deal := field(gql(t, e, otherKey, `mutation($id: ID!) { fundDeal(input: {applicationId: $id}) { id } }`, map[string]any{"id": app}), "fundDeal")["id"].(string)
	gql(t, e, otherKey, `mutation($id: ID!) { recordCommissionPayment(input: {dealId: $id, amount: "111.11"}) { id } }`, map[string]any{"id": deal})
	mustStatus(t, e.Post("/v1/dialer/events", otherKey, map[string]any{"externalCallId": "r1", "userId": agent, "eventType": "call_answered",
		"occurredAt": base.Add(-time.Hour).Format(time.RFC3339)}), http.StatusCreated)
	b.otherIDs = []string{other.ID.String(), agent, lender, lead, app, deal, "Outside Lender", "Olive", "777777", "111.11"}
	return b
}

// report reads a report over REST and returns its attributes.
func (b *analyticsBook) report(t *testing.T, name, query string) map[string]any {
	t.Helper()
	r := b.e.Get("/v1/analytics/"+name+"?"+query, b.key)
	mustStatus(t, r, http.StatusOK)
	if r.Data()["id"] != name || r.Data()["type"] != "analytics" {
		t.Fatalf("%s: data = %v", name, r.Data())
	}
	return r.Data()["attributes"].(map[string]any)
}

// The GraphQL selections of every field of each report.
var reportSelections = map[string]string{
	"pipeline": `stages { stageId label semanticSlot leads }
		funnel { leads applied approved funded conversion { applied approved funded overall } }
		bySource { source leads funded fundedAmount }`,
	"funding": `totals { deals fundedAmount averageAmount expectedCommission renewalDeals renewalAmount }
		series { periodStart deals fundedAmount renewalDeals renewalAmount }
		byLender { id name deals fundedAmount } byAdvisor { id name deals fundedAmount }`,
	"lenders": `lenders { lenderId name submitted approved declined withdrawn funded approvalRate fundedAmount
		medianSecondsToDecision declineCategories { category count } }`,
	"commissions": `totals { expected paid outstanding clawedBack } renewal { expected paid } series { periodStart paid clawedBack }
		byAdvisor { id name expected paid clawedBack outstanding } byLender { id name expected paid clawedBack outstanding }`,
	"dialer": `agents { userId name calls answered talkSeconds averageTalkSeconds dispositions { code count } }
		series { periodStart calls }`,
}

// graphReport reads the same report over GraphQL with the same parameters,
// shaped as REST shows it: the range beside the figures, and an agent's
// dispositions an object of code to count.
func graphReport(t *testing.T, e *resttest.Env, key, name string, params url.Values) map[string]any {
	t.Helper()
	var args []string
	for _, k := range sortedParams(params) {
		v := params.Get(k)
		if k == "interval" {
			args = append(args, k+": "+v)
		} else {
			args = append(args, fmt.Sprintf("%s: %q", k, v))
		}
	}
	query := "{ analytics"
	if len(args) > 0 {
		query += "(" + strings.Join(args, ", ") + ")"
	}
	query += " { from to timezone interval " + name + " { " + reportSelections[name] + " } } }"
	a := field(gql(t, e, key, query, nil), "analytics")
	out := a[name].(map[string]any)
	for _, k := range []string{"from", "to", "timezone", "interval"} {
		out[k] = a[k]
	}
	if name == "dialer" {
		for _, agent := range out["agents"].([]any) {
			agent := agent.(map[string]any)
			codes := map[string]any{}
			for _, d := range agent["dispositions"].([]any) {
				d := d.(map[string]any)
				codes[d["code"].(string)] = d["count"]
			}
			agent["dispositions"] = codes
		}
	}
	return out
}

func sortedParams(v url.Values) []string {
	var keys []string
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Every report over REST is the same report over GraphQL, member for
// member, whatever the parameters: REST reaches the figures through the
// GraphQL resolvers, so a rule cannot differ between the surfaces.
func TestAnalyticsMatchesGraphQL(t *testing.T) {
	e := resttest.New(t)
	b := newAnalyticsBook(t, e)
	day := func(d int) string { return b.base.AddDate(0, 0, d).Format("2006-01-02") }
	for _, c := range []struct {
		name   string
		params url.Values
	}{
		{"Defaults", url.Values{}},
		{"Dates", url.Values{"from": {day(-3)}, "to": {day(0)}, "interval": {"day"}}},
		{"NewYorkWeeks", url.Values{"timezone": {"America/New_York"}, "interval": {"week"}}},
		{"TokyoMonths", url.Values{"timezone": {"Asia/Tokyo"}, "interval": {"month"}, "from": {day(-60)}, "to": {day(1)}}},
		{"Instants", url.Values{"from": {b.base.Add(-150 * time.Minute).Format(time.RFC3339)}, "to": {b.base.Add(-30 * time.Minute).Format(time.RFC3339)}}},
		{"Maya", url.Values{"advisorId": {b.maya}}},
		{"SamByWeek", url.Values{"advisorId": {b.sam}, "interval": {"week"}}},
		{"Closers", url.Values{"teamId": {b.closers}}},
		{"RileyOfFloor", url.Values{"teamId": {b.floor}, "advisorId": {b.riley}}},
	} {
		for _, name := range []string{"pipeline", "funding", "lenders", "commissions", "dialer"} {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				got := b.report(t, name, c.params.Encode())
				want := graphReport(t, e, b.key, name, c.params)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("REST %v\nGraphQL %v", got, want)
				}
			})
		}
	}
}

// The figures are what a client computes from the records of the book,
// exactly, and another organization's records are never among them.
func TestAnalyticsFigures(t *testing.T) {
	e := resttest.New(t)
	b := newAnalyticsBook(t, e)
	all := map[string]map[string]any{}
	for _, name := range []string{"pipeline", "funding", "lenders", "commissions", "dialer"} {
		all[name] = b.report(t, name, "")
		r := e.Get("/v1/analytics/"+name, b.key)
		for _, id := range b.otherIDs {
			if strings.Contains(string(r.Raw), id) {
				t.Errorf("%s shows another organization's %s: %s", name, id, r.Raw)
			}
		}
	}
	today := b.base.Format("2006-01-02")
	t.Run("Range", func(t *testing.T) {
		// The default: the last 30 days, today included, in the
		// organization's time zone (UTC).
		f := all["funding"]
		end := time.Date(b.base.Year(), b.base.Month(), b.base.Day()+1, 0, 0, 0, 0, time.UTC)
		for k, want := range map[string]any{"from": apitime.Format(end.AddDate(0, 0, -30)), "to": apitime.Format(end),
			"timezone": "UTC", "interval": "day"} {
			if f[k] != want {
				t.Errorf("%s = %v, want %v", k, f[k], want)
			}
		}
		series := f["series"].([]any)
		if len(series) != 30 || series[29].(map[string]any)["periodStart"] != today {
			t.Errorf("series = %v, want the 30 days up to %s", series, today)
		}
	})
	t.Run("Pipeline", func(t *testing.T) {
		p := all["pipeline"]
		var stages []string
		for _, s := range p["stages"].([]any) {
			s := s.(map[string]any)
			stages = append(stages, fmt.Sprintf("%s:%s:%v", s["label"], s["semanticSlot"], s["leads"]))
		}
		want := []string{"New:new:0", "Contacted:working:0", "Qualified:qualified:0", "Application:application:1",
			"Approved:approved:0", "Funded:won:2", "Lost:lost:0"}
		if !reflect.DeepEqual(stages, want) {
			t.Errorf("stages = %v, want %v", stages, want)
		}
		// A, B and C; all applied; A and B approved and funded.
		wantFunnel := map[string]any{"leads": 3.0, "applied": 3.0, "approved": 2.0, "funded": 2.0,
			"conversion": map[string]any{"applied": "1.0000", "approved": "0.6667", "funded": "1.0000", "overall": "0.6667"}}
		if !reflect.DeepEqual(p["funnel"], wantFunnel) {
			t.Errorf("funnel = %v, want %v", p["funnel"], wantFunnel)
		}
		var sources []string
		for _, s := range p["bySource"].([]any) {
			s := s.(map[string]any)
			sources = append(sources, fmt.Sprintf("%s:%v:%v:%s", s["source"], s["leads"], s["funded"], s["fundedAmount"]))
		}
		wantSources := []string{"manual:3:2:240000.70", "csv_import:0:0:0.00", "api:0:0:0.00", "web_form:0:0:0.00",
			"referral:0:0:0.00", "dialer:0:0:0.00"}
		if !reflect.DeepEqual(sources, wantSources) {
			t.Errorf("bySource = %v, want %v", sources, wantSources)
		}
	})
	t.Run("Funding", func(t *testing.T) {
		f := all["funding"]
		wantTotals := map[string]any{"deals": 2.0, "fundedAmount": "240000.70", "averageAmount": "120000.35", "expectedCommission": "6500.01",
			"renewalDeals": 0.0, "renewalAmount": "0.00"}
		if !reflect.DeepEqual(f["totals"], wantTotals) {
			t.Errorf("totals = %v, want %v", f["totals"], wantTotals)
		}
		// Most funded first.
		mustGroups(t, f["byLender"], b.summit+" Summit Capital 1 200000.30", b.harbor+" Harbor Funding 1 40000.40")
		mustGroups(t, f["byAdvisor"], b.sam+" Sam Ortiz 1 200000.30", b.maya+" Maya Chen 1 40000.40")
		wantDays := map[string]float64{}
		wantDays[b.d1FundedAt.UTC().Format("2006-01-02")]++
		wantDays[b.d2FundedAt.UTC().Format("2006-01-02")]++
		for _, s := range f["series"].([]any) {
			s := s.(map[string]any)
			if day := s["periodStart"].(string); s["deals"] != wantDays[day] {
				t.Errorf("series %s: %v deals, want %v", day, s["deals"], wantDays[day])
			}
		}
	})
	t.Run("Lenders", func(t *testing.T) {
		lenders := all["lenders"]["lenders"].([]any)
		if len(lenders) != 2 {
			t.Fatalf("lenders = %v, want Harbor and Summit (Dormant has no application)", lenders)
		}
		harbor, summit := lenders[0].(map[string]any), lenders[1].(map[string]any)
		median := func(apps ...string) float64 {
			var s []float64
			for _, id := range apps {
				a := e.Get("/v1/applications/"+id, b.key)
				sub, _ := apitime.Parse(a.Attr("submittedAt").(string))
				dec, _ := apitime.Parse(a.Attr("decidedAt").(string))
				s = append(s, float64(dec.Sub(sub)/time.Second))
			}
			sort.Float64s(s)
			return s[(len(s)-1)/2]
		}
		mustAttrsOf(t, "Harbor", harbor, map[string]any{"lenderId": b.harbor, "name": "Harbor Funding", "submitted": 2.0, "approved": 1.0,
			"declined": 1.0, "withdrawn": 0.0, "funded": 1.0, "approvalRate": "0.5000", "fundedAmount": "40000.40",
			"medianSecondsToDecision": median(b.a2, b.a4),
			"declineCategories":       []any{map[string]any{"category": "incomplete_file", "count": 1.0}}})
		mustAttrsOf(t, "Summit", summit, map[string]any{"lenderId": b.summit, "name": "Summit Capital", "submitted": 3.0, "approved": 1.0,
			"declined": 0.0, "withdrawn": 1.0, "funded": 1.0, "approvalRate": "1.0000", "fundedAmount": "200000.30",
			"medianSecondsToDecision": median(b.a3), "declineCategories": []any{}})
	})
	t.Run("Commissions", func(t *testing.T) {
		c := all["commissions"]
		// c1: 500.00 expected, 200 + 300 paid; c2: 6000.01 expected, 1000
		// paid and 400 clawed back, so 600.00 paid net and 5400.01 owed.
		wantTotals := map[string]any{"expected": "6500.01", "paid": "1500.00", "clawedBack": "400.00", "outstanding": "5400.01"}
		if !reflect.DeepEqual(c["totals"], wantTotals) {
			t.Errorf("totals = %v, want %v", c["totals"], wantTotals)
		}
		mustCommissionGroups(t, c["byAdvisor"], b.sam+" Sam Ortiz 6000.01 1000.00 400.00 5400.01", b.maya+" Maya Chen 500.00 500.00 0.00 0.00")
		mustCommissionGroups(t, c["byLender"], b.summit+" Summit Capital 6000.01 1000.00 400.00 5400.01", b.harbor+" Harbor Funding 500.00 500.00 0.00 0.00")
		paid, clawed := 0.0, 0.0
		for _, s := range c["series"].([]any) {
			s := s.(map[string]any)
			paid += cents(t, s["paid"])
			clawed += cents(t, s["clawedBack"])
		}
		if paid != 150000 || clawed != 40000 {
			t.Errorf("series sums paid %v, clawed back %v cents, want 150000 and 40000", paid, clawed)
		}
	})
	t.Run("Dialer", func(t *testing.T) {
		d := all["dialer"]
		want := []any{
			map[string]any{"userId": b.jordan, "name": "Jordan Kim", "calls": 1.0, "answered": 1.0, "talkSeconds": 45.0,
				"averageTalkSeconds": 45.0, "dispositions": map[string]any{"interested": 1.0, "callback": 1.0}},
			map[string]any{"userId": b.riley, "name": "Riley Brooks", "calls": 3.0, "answered": 1.0, "talkSeconds": 120.0,
				"averageTalkSeconds": 120.0, "dispositions": map[string]any{"interested": 1.0, "no_answer": 1.0}},
		}
		if !reflect.DeepEqual(d["agents"], want) {
			t.Errorf("agents = %v, want %v", d["agents"], want)
		}
		wantDays := map[string]float64{}
		for id, at := range b.calls {
			if id != "r0" {
				wantDays[at.UTC().Format("2006-01-02")]++
			}
		}
		for _, s := range d["series"].([]any) {
			s := s.(map[string]any)
			if s["calls"] != wantDays[s["periodStart"].(string)] {
				t.Errorf("series %s: %v calls, want %v", s["periodStart"], s["calls"], wantDays[s["periodStart"].(string)])
			}
		}
	})
	t.Run("People", func(t *testing.T) {
		// Maya's: lead A and d1; Sam's: d2, whose lead has no advisor.
		if f := b.report(t, "funding", "advisorId="+b.sam)["totals"]; !reflect.DeepEqual(f, map[string]any{"deals": 1.0,
			"fundedAmount": "200000.30", "averageAmount": "200000.30", "expectedCommission": "6000.01",
			"renewalDeals": 0.0, "renewalAmount": "0.00"}) {
			t.Errorf("Sam's funding = %v", f)
		}
		if f := b.report(t, "pipeline", "advisorId="+b.maya)["funnel"].(map[string]any); f["leads"] != 1.0 || f["funded"] != 1.0 {
			t.Errorf("Maya's funnel = %v", f)
		}
		if f := b.report(t, "pipeline", "advisorId="+b.sam)["funnel"].(map[string]any); f["leads"] != 0.0 {
			t.Errorf("Sam's funnel = %v, want no lead", f)
		}
		if f := b.report(t, "funding", "teamId="+b.closers)["totals"].(map[string]any); f["deals"] != 2.0 {
			t.Errorf("Closers' funding = %v", f)
		}
		if f := b.report(t, "funding", "teamId="+b.floor)["totals"].(map[string]any); f["deals"] != 0.0 {
			t.Errorf("Floor's funding = %v, want none", f)
		}
		agents := b.report(t, "dialer", "teamId="+b.floor+"&advisorId="+b.riley)["agents"].([]any)
		if len(agents) != 1 || agents[0].(map[string]any)["userId"] != b.riley {
			t.Errorf("Riley of Floor = %v", agents)
		}
		if agents := b.report(t, "dialer", "teamId="+b.closers+"&advisorId="+b.riley)["agents"].([]any); len(agents) != 0 {
			t.Errorf("Riley of Closers = %v, want nobody", agents)
		}
	})
	t.Run("OtherOrganization", func(t *testing.T) {
		// The other organization sees its own figures, and none of this one's.
		r := e.Get("/v1/analytics/funding", b.otherKey)
		mustStatus(t, r, http.StatusOK)
		if f := r.Attr("totals").(map[string]any); f["deals"] != 1.0 || f["fundedAmount"] != "777777.00" {
			t.Errorf("the other organization's funding = %v", f)
		}
		for _, name := range []string{"pipeline", "lenders", "commissions", "dialer"} {
			r := e.Get("/v1/analytics/"+name+"?advisorId="+b.maya, b.otherKey)
			mustStatus(t, r, http.StatusOK)
			for _, id := range []string{b.maya, b.sam, b.riley, b.jordan, b.summit, b.harbor, b.leadA, "Summit", "Maya"} {
				if strings.Contains(string(r.Raw), id) {
					t.Errorf("the other organization's %s shows %s: %s", name, id, r.Raw)
				}
			}
		}
	})
}

// mustGroups checks funding groups: "id name deals fundedAmount", in order.
func mustGroups(t *testing.T, groups any, want ...string) {
	t.Helper()
	var got []string
	for _, g := range groups.([]any) {
		g := g.(map[string]any)
		got = append(got, fmt.Sprintf("%s %s %v %s", g["id"], g["name"], g["deals"], g["fundedAmount"]))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("groups = %v, want %v", got, want)
	}
}

// mustCommissionGroups checks "id name expected paid clawedBack outstanding", in order.
func mustCommissionGroups(t *testing.T, groups any, want ...string) {
	t.Helper()
	var got []string
	for _, g := range groups.([]any) {
		g := g.(map[string]any)
		got = append(got, fmt.Sprintf("%s %s %s %s %s %s", g["id"], g["name"], g["expected"], g["paid"], g["clawedBack"], g["outstanding"]))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("groups = %v, want %v", got, want)
	}
}

// mustAttrsOf compares one row with want, member for member.
func mustAttrsOf(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %v\nwant %v", what, got, want)
	}
}

// cents reads an amount string as whole cents.
func cents(t *testing.T, v any) float64 {
	t.Helper()
	var whole, frac int
	if _, err := fmt.Sscanf(v.(string), "%d.%d", &whole, &frac); err != nil {
		t.Fatalf("amount %v: %v", v, err)
	}
	return float64(whole*100 + frac)
}

// fundedOn funds a deal at the instant at through GraphQL: a lender, a
// lead, its application approved.
func fundedOn(t *testing.T, e *resttest.Env, at time.Time) string {
	t.Helper()
	lender := field(gql(t, e, e.Key, `mutation { createLender(input: {name: "Night Owl Capital", commissionRate: "0.02"}) { id } }`, nil), "createLender")["id"].(string)
	lead := createLead(t, e, e.Key, map[string]any{"businessName": "Late Shift Diner", "requestedAmount": "10000"})
	app := field(gql(t, e, e.Key, `mutation($l: ID!, $r: ID!) { submitApplication(input: {leadId: $l, lenderId: $r}) { id } }`,
		map[string]any{"l": lead, "r": lender}), "submitApplication")["id"].(string)
	gql(t, e, e.Key, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, interestRate: "1.3", rateType: factor, termMonths: 6}) { id } }`,
		map[string]any{"id": app})
	return field(gql(t, e, e.Key, `mutation($id: ID!, $at: Time) { fundDeal(input: {applicationId: $id, fundedAt: $at}) { id } }`,
		map[string]any{"id": app, "at": at.Format(time.RFC3339)}), "fundDeal")["id"].(string)
}

// A date is a whole day in the report's time zone: the parameter's, else
// the organization's (updateOrganization), else UTC. A deal funded at
// 02:00 UTC on the 18th was funded on the 17th in New York and on the 18th
// in Tokyo.
func TestAnalyticsTimeZone(t *testing.T) {
	e := resttest.New(t)
	e.Clock.Set(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	fundedOn(t, e, time.Date(2026, 11, 18, 2, 0, 0, 0, time.UTC))
	deals := func(t *testing.T, query string) (float64, map[string]any) {
		t.Helper()
		r := e.Get("/v1/analytics/funding?"+query, e.Key)
		mustStatus(t, r, http.StatusOK)
		return r.Attr("totals").(map[string]any)["deals"].(float64), r.Data()["attributes"].(map[string]any)
	}
	for _, c := range []struct {
		query    string
		want     float64
		from, to string
	}{
		{"from=2026-11-18&to=2026-11-18", 1, "2026-11-18T00:00:00.000Z", "2026-11-19T00:00:00.000Z"},
		{"from=2026-11-18&to=2026-11-18&timezone=UTC", 1, "2026-11-18T00:00:00.000Z", "2026-11-19T00:00:00.000Z"},
		{"from=2026-11-18&to=2026-11-18&timezone=America/New_York", 0, "2026-11-18T05:00:00.000Z", "2026-11-19T05:00:00.000Z"},
		{"from=2026-11-17&to=2026-11-17&timezone=America/New_York", 1, "2026-11-17T05:00:00.000Z", "2026-11-18T05:00:00.000Z"},
		{"from=2026-11-18&to=2026-11-18&timezone=Asia/Tokyo", 1, "2026-11-17T15:00:00.000Z", "2026-11-18T15:00:00.000Z"},
		{"from=2026-11-17&to=2026-11-17&timezone=Asia/Tokyo", 0, "2026-11-16T15:00:00.000Z", "2026-11-17T15:00:00.000Z"},
		// Date-times are instants: from inclusive, to exclusive.
		{"from=2026-11-18T02:00:00Z&to=2026-11-18T03:00:00Z", 1, "2026-11-18T02:00:00.000Z", "2026-11-18T03:00:00.000Z"},
		{"from=2026-11-17T20:00:00-05:00&to=2026-11-18T02:00:00Z&timezone=America/New_York", 0, "2026-11-18T01:00:00.000Z", "2026-11-18T02:00:00.000Z"},
	} {
		t.Run(c.query, func(t *testing.T) {
			got, attrs := deals(t, c.query)
			if got != c.want || attrs["from"] != c.from || attrs["to"] != c.to {
				t.Errorf("deals %v in [%v, %v), want %v in [%s, %s)", got, attrs["from"], attrs["to"], c.want, c.from, c.to)
			}
		})
	}
	t.Run("Series", func(t *testing.T) {
		// Weeks start on Monday in the report's zone: the 17th (New York)
		// is a Tuesday of the week of the 16th.
		_, attrs := deals(t, "from=2026-11-01&to=2026-11-30&timezone=America/New_York&interval=week")
		var got []string
		for _, b := range attrs["series"].([]any) {
			b := b.(map[string]any)
			got = append(got, fmt.Sprintf("%s:%v", b["periodStart"], b["deals"]))
		}
		want := []string{"2026-10-26:0", "2026-11-02:0", "2026-11-09:0", "2026-11-16:1", "2026-11-23:0", "2026-11-30:0"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("weeks = %v, want %v", got, want)
		}
		_, attrs = deals(t, "from=2026-11-17&to=2026-11-18&timezone=America/New_York")
		if s := attrs["series"].([]any); len(s) != 2 || s[0].(map[string]any)["deals"] != 1.0 || s[0].(map[string]any)["periodStart"] != "2026-11-17" {
			t.Errorf("days = %v, want the deal on the 17th", s)
		}
	})
	t.Run("OrganizationZone", func(t *testing.T) {
		r := e.Post("/graphql", e.Key, map[string]any{"query": `mutation { updateOrganization(input: {timezone: "America/New_York"}) { timezone } }`})
		if !strings.Contains(string(r.Raw), `"timezone":"America/New_York"`) {
			t.Fatalf("updateOrganization: %s", r.Raw)
		}
		got, attrs := deals(t, "from=2026-11-18&to=2026-11-18")
		if got != 0 || attrs["timezone"] != "America/New_York" || attrs["from"] != "2026-11-18T05:00:00.000Z" {
			t.Errorf("in the organization's zone: %v deals, %v", got, attrs)
		}
		// The parameter still wins.
		if got, attrs := deals(t, "from=2026-11-18&to=2026-11-18&timezone=UTC"); got != 1 || attrs["timezone"] != "UTC" {
			t.Errorf("timezone=UTC: %v deals, %v", got, attrs)
		}
		// GraphQL reads the same default.
		a := field(gql(t, e, e.Key, `{ analytics(from: "2026-11-18", to: "2026-11-18") { timezone from funding { totals { deals } } } }`, nil), "analytics")
		if a["timezone"] != "America/New_York" || a["from"] != "2026-11-18T05:00:00.000Z" {
			t.Errorf("GraphQL analytics = %v", a)
		}
		// Without from and to: the 30 days ending today (the 20th) in New York.
		_, attrs = deals(t, "")
		if attrs["from"] != "2026-10-22T04:00:00.000Z" || attrs["to"] != "2026-11-21T05:00:00.000Z" {
			t.Errorf("the default range = [%v, %v)", attrs["from"], attrs["to"])
		}
	})
}

// updateOrganization changes the organization's name and time zone: admin
// keys only, an IANA name only, the caller's organization only.
func TestUpdateOrganization(t *testing.T) {
	e := resttest.New(t)
	other, otherKey := e.NewOrg("Other Shop", viewer.AllScopes...)
	var notAdmin []string
	for _, s := range viewer.AllScopes {
		if s != viewer.ScopeAdmin {
			notAdmin = append(notAdmin, s)
		}
	}
	update := func(key, input string) (map[string]any, string, string) {
		t.Helper()
		r := e.Post("/graphql", key, map[string]any{"query": `mutation { updateOrganization(input: ` + input + `) { id name timezone } }`})
		mustStatus(t, r, http.StatusOK)
		errs, _ := r.Body["errors"].([]any)
		if len(errs) > 0 {
			ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
			code, _ := ext["code"].(string)
			field, _ := ext["field"].(string)
			return nil, code, field
		}
		return field(r.Body["data"].(map[string]any), "updateOrganization"), "", ""
	}
	read := func(key string) map[string]any {
		t.Helper()
		return field(gql(t, e, key, `{ organization { id name timezone createdAt updatedAt } }`, nil), "organization")
	}
	t.Run("Default", func(t *testing.T) {
		org := read(e.NewKey(e.Org.ID)) // any key of the organization reads it
		if org["id"] != e.Org.ID.String() || org["name"] != "Acme Brokers" || org["timezone"] != "UTC" {
			t.Errorf("organization = %v", org)
		}
	})
	t.Run("OK", func(t *testing.T) {
		got, code, _ := update(e.NewKey(e.Org.ID, viewer.ScopeAdmin), `{name: "Acme Brokers West", timezone: "America/Los_Angeles"}`)
		if code != "" || got["name"] != "Acme Brokers West" || got["timezone"] != "America/Los_Angeles" || got["id"] != e.Org.ID.String() {
			t.Fatalf("update = %v %s", got, code)
		}
		// An omitted setting stays.
		got, _, _ = update(e.Key, `{name: "Acme Brokers"}`)
		if got["timezone"] != "America/Los_Angeles" {
			t.Errorf("name alone changed the timezone: %v", got)
		}
		if r := e.Get("/v1/analytics/pipeline", e.Key); r.Attr("timezone") != "America/Los_Angeles" {
			t.Errorf("the reports' zone = %v", r.Attr("timezone"))
		}
		// The other organization's setting is its own.
		if org := read(otherKey); org["id"] != other.ID.String() || org["timezone"] != "UTC" {
			t.Errorf("the other organization = %v", org)
		}
	})
	t.Run("ErrNotAdmin", func(t *testing.T) {
		if _, code, _ := update(e.NewKey(e.Org.ID, notAdmin...), `{timezone: "Europe/Paris"}`); code != "FORBIDDEN" {
			t.Errorf("a key with every scope but admin: code %q, want FORBIDDEN", code)
		}
		if org := read(e.Key); org["timezone"] != "America/Los_Angeles" {
			t.Errorf("a refused update changed the timezone: %v", org)
		}
	})
	t.Run("ErrTimeZone", func(t *testing.T) {
		for _, zone := range []string{"Mars/Olympus", "EST5EDT/Nowhere", "Local", "", "../../etc/passwd"} {
			if _, code, field := update(e.Key, fmt.Sprintf(`{timezone: %q}`, zone)); code != "VALIDATION_ERROR" || field != "timezone" {
				t.Errorf("timezone %q: code %q field %q, want VALIDATION_ERROR on timezone", zone, code, field)
			}
		}
		if _, code, field := update(e.Key, `{name: ""}`); code != "VALIDATION_ERROR" || field != "name" {
			t.Errorf("an empty name: code %q field %q", code, field)
		}
		if org := read(e.Key); org["timezone"] != "America/Los_Angeles" || org["name"] != "Acme Brokers" {
			t.Errorf("a refused update changed the organization: %v", org)
		}
	})
	t.Run("Currency", func(t *testing.T) {
		currencyOf := func(key string) any {
			return field(gql(t, e, key, `{ organization { currency } }`, nil), "organization")["currency"]
		}
		if got := currencyOf(e.Key); got != "USD" {
			t.Errorf("the default currency = %v, want USD", got)
		}
		for _, code := range []string{"usd", "US", "USDX", "XYZ", "", "€"} {
			if _, c, f := update(e.Key, fmt.Sprintf(`{currency: %q}`, code)); c != "VALIDATION_ERROR" || f != "currency" {
				t.Errorf("currency %q: code %q field %q, want VALIDATION_ERROR on currency", code, c, f)
			}
		}
		if _, c, _ := update(e.Key, `{currency: "CAD"}`); c != "" {
			t.Fatalf("currency CAD refused: %s", c)
		}
		if got := currencyOf(e.Key); got != "CAD" {
			t.Errorf("currency after the update = %v, want CAD", got)
		}
		if got := currencyOf(otherKey); got != "USD" {
			t.Errorf("the other organization's currency = %v, want USD", got)
		}
	})
}

// Every malformed parameter is 422 naming it, on every report.
func TestAnalyticsParameterErrors(t *testing.T) {
	e := resttest.New(t)
	e.Clock.Set(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	for _, c := range []struct{ query, field string }{
		{"advisorId=maya", "advisorId"}, {"advisorId=01a2015c-7d3e-7b41-9c1a-3f5e8d2b6c0", "advisorId"},
		{"teamId=42", "teamId"}, {"teamId=closers&advisorId=also-bad", "advisorId"},
		{"interval=fortnight", "interval"}, {"interval=Day", "interval"}, {"interval=WEEK", "interval"},
		{"timezone=Mars/Olympus", "timezone"}, {"timezone=Local", "timezone"}, {"timezone=/etc/localtime", "timezone"},
		{"from=yesterday", "from"}, {"from=2026-13-01", "from"}, {"from=2026-11-1", "from"}, {"from=2026-11-01T25:00:00Z", "from"},
		{"from=20261101", "from"}, {"to=2026-11-31", "to"}, {"to=2026-11-20T10:00", "to"}, {"to=now", "to"},
		// to before from, or no later: a date to includes its day.
		{"from=2026-11-10&to=2026-11-09", "to"},
		{"from=2026-11-10T10:00:00Z&to=2026-11-10T10:00:00Z", "to"},
		{"from=2026-11-10T10:00:00Z&to=2026-11-10T09:00:00Z", "to"},
		// More than 366 days; without to, the range ends today, and from is at fault.
		{"from=2025-01-01&to=2026-01-02", "to"}, {"from=2025-11-19", "from"}, {"from=2026-11-21", "from"},
	} {
		for _, name := range []string{"pipeline", "funding", "lenders", "commissions", "dialer"} {
			mustError(t, e.Get("/v1/analytics/"+name+"?"+c.query, e.Key), http.StatusUnprocessableEntity, "VALIDATION_ERROR", c.field)
		}
	}
	// The bounds themselves are accepted: 366 days (a leap year), and a
	// range that ends today.
	for _, query := range []string{"from=2028-01-01&to=2028-12-31", "from=2025-11-20", "from=2026-11-20"} {
		mustStatus(t, e.Get("/v1/analytics/funding?"+query, e.Key), http.StatusOK)
	}
}

// The reports need analytics:read (admin implies it; the lending and
// leads scopes do not), answer only GET, and know only their five names.
func TestAnalyticsAccess(t *testing.T) {
	e := resttest.New(t)
	var without []string
	for _, s := range viewer.AllScopes {
		if s != viewer.ScopeAnalyticsRead && s != viewer.ScopeAdmin {
			without = append(without, s)
		}
	}
	noAnalytics := e.NewKey(e.Org.ID, without...)
	for _, name := range []string{"pipeline", "funding", "lenders", "commissions", "dialer"} {
		path := "/v1/analytics/" + name
		t.Run(name, func(t *testing.T) {
			for _, key := range []string{e.NewKey(e.Org.ID, viewer.ScopeAnalyticsRead), e.NewKey(e.Org.ID, viewer.ScopeAdmin), e.Key} {
				mustStatus(t, e.Get(path, key), http.StatusOK)
			}
			r := e.Get(path, noAnalytics)
			mustError(t, r, http.StatusForbidden, "FORBIDDEN", "")
			if !strings.Contains(string(r.Raw), viewer.ScopeAnalyticsRead) {
				t.Errorf("the 403 does not name %s: %s", viewer.ScopeAnalyticsRead, r.Raw)
			}
			mustError(t, e.Get(path, ""), http.StatusUnauthorized, "UNAUTHORIZED", "")
			mustError(t, e.Get(path, "svc_live_not-a-key"), http.StatusUnauthorized, "UNAUTHORIZED", "")
			for _, method := range []string{"POST", "PUT", "PATCH", "DELETE"} {
				mustError(t, e.Do(resttest.Request{Method: method, Path: path, Key: e.Key, Body: map[string]any{}}),
					http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "")
			}
		})
	}
	for _, path := range []string{"/v1/analytics/deals", "/v1/analytics/Pipeline", "/v1/analytics", "/v1/analytics/pipeline/2026",
		"/v1/analytics/agents?interval=week"} {
		mustError(t, e.Get(path, e.Key), http.StatusNotFound, "NOT_FOUND", "")
	}
	// GraphQL refuses the same key the same way.
	r := e.Post("/graphql", noAnalytics, map[string]any{"query": `{ analytics { funding { totals { deals } } } }`})
	if !strings.Contains(string(r.Raw), `"FORBIDDEN"`) {
		t.Errorf("GraphQL analytics without analytics:read: %s", r.Raw)
	}
}
