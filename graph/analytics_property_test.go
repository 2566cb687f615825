package graph_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lendingpipe/svc/rest/resttest"
)

// PRODUCT 2: "Every figure must equal what a client would compute from the
// raw records." For each seed, a random book is built through the public
// operations (see analytics_book_test.go), its raw records are read back,
// and every figure of every report of random queries (zones given or set on
// the organization, intervals, dates and date-times, people filters) is
// compared with the naive oracle (analytics_oracle_test.go). It runs on
// SQLite, and on PostgreSQL when SVC_TEST_DATABASE_URL names a database.

// analyticsSeeds are the books checked; -short checks the first two. Book
// i's times crowd in analyticsZones[i] (cycling), the first two being the
// zones whose changes skip or shift midnight. A failure names its seed:
// -run 'TestAnalyticsMatchesRawRecords/seed=N$' rebuilds that book and
// asks the same queries.
var analyticsSeeds = []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}

// queriesPerBook is how many random queries each book answers.
const queriesPerBook = 20

func TestAnalyticsMatchesRawRecords(t *testing.T) {
	seeds := analyticsSeeds
	if testing.Short() {
		seeds = seeds[:2]
	}
	for i, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0x5eed))
			b := newBook(t, rng, analyticsZones[i%len(analyticsZones)])
			r := readRaw(t, b.DB, b.Org.ID)
			b.checkModel(t, r)
			orgZone := b.Org.Timezone
			for i := range queriesPerBook {
				q := b.randomQuery(&orgZone)
				got := askAnalytics(t, b.Env, b.key, q)
				compareReports(t, fmt.Sprintf("seed %d query %d %+v", seed, i, q.vars()), got, oracle(t, r, q))
				if t.Failed() {
					t.Fatalf("seed %d: organization zone %q", seed, q.OrgZone)
				}
			}
		})
	}
}

// askAnalytics runs the analytics query and decodes every report.
func askAnalytics(t *testing.T, e *resttest.Env, key string, q query) report {
	t.Helper()
	data, ext := gqlExt(t, e, key, analyticsDoc, q.vars())
	if ext != nil {
		t.Fatalf("analytics %v: %v", q.vars(), ext)
	}
	raw, err := json.Marshal(data["analytics"])
	if err != nil {
		t.Fatal(err)
	}
	var r report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("decoding the reports: %v\n%s", err, raw)
	}
	return r
}

// compareReports compares every figure. Lists in an order the API defines
// (stages in pipeline order, series by periodStart, lenders and agents by
// name) are compared in order; lists ordered by a figure (most funded,
// most frequent first) are checked for that order and compared as sets;
// the rest are compared as sets.
func compareReports(t *testing.T, label string, got, want report) {
	t.Helper()
	check := func(what string, g, w any) {
		t.Helper()
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: %s differ\n%s", label, what, diff(g, w))
		}
	}
	if !got.From.Equal(want.From) || !got.To.Equal(want.To) {
		t.Errorf("%s: range [%v, %v), want [%v, %v)", label, got.From, got.To, want.From.UTC(), want.To.UTC())
	}
	check("timezone", got.Timezone, want.Timezone)
	check("interval", got.Interval, want.Interval)

	check("pipeline.stages", got.Pipeline.Stages, want.Pipeline.Stages)
	check("pipeline.funnel", got.Pipeline.Funnel, want.Pipeline.Funnel)
	check("pipeline.bySource", bySourceOf(t, label, got.Pipeline.BySource), want.Pipeline.BySource)

	check("funding.totals", got.Funding.Totals, want.Funding.Totals)
	check("funding.series", got.Funding.Series, want.Funding.Series)
	for _, g := range []struct {
		what      string
		got, want []fundingGroup
	}{{"funding.byLender", got.Funding.ByLender, want.Funding.ByLender}, {"funding.byAdvisor", got.Funding.ByAdvisor, want.Funding.ByAdvisor}} {
		descending(t, label, g.what+" (most funded first)", g.got, func(r fundingGroup) int64 { return amountCents(t, r.FundedAmount) })
		check(g.what, byKey(g.got, func(r fundingGroup) string { return r.ID }), byKey(g.want, func(r fundingGroup) string { return r.ID }))
	}

	for i := range got.Lenders.Lenders {
		l := &got.Lenders.Lenders[i]
		descending(t, label, "declineCategories of "+l.Name+" (most frequent first)", l.DeclineCategories, func(r categoryRow) int64 { return int64(r.Count) })
		l.DeclineCategories = byKey(l.DeclineCategories, func(r categoryRow) string { return r.Category })
	}
	for i := range want.Lenders.Lenders {
		l := &want.Lenders.Lenders[i]
		l.DeclineCategories = byKey(l.DeclineCategories, func(r categoryRow) string { return r.Category })
	}
	check("lenders", got.Lenders.Lenders, want.Lenders.Lenders)

	check("commissions.totals", got.Commissions.Totals, want.Commissions.Totals)
	check("commissions.renewal", got.Commissions.Renewal, want.Commissions.Renewal)
	check("commissions.series", got.Commissions.Series, want.Commissions.Series)
	groupID := func(r commissionGroup) string { return r.ID }
	check("commissions.byAdvisor", byKey(got.Commissions.ByAdvisor, groupID), byKey(want.Commissions.ByAdvisor, groupID))
	check("commissions.byLender", byKey(got.Commissions.ByLender, groupID), byKey(want.Commissions.ByLender, groupID))

	for _, agents := range [][]agentRow{got.Dialer.Agents, want.Dialer.Agents} {
		for i := range agents {
			agents[i].Dispositions = byKey(agents[i].Dispositions, func(r dispositionRow) string { return r.Code })
		}
	}
	check("dialer.agents", got.Dialer.Agents, want.Dialer.Agents)
	check("dialer.series", got.Dialer.Series, want.Dialer.Series)
}

// bySourceOf lists the answer's sources in the oracle's order, a source the
// answer leaves out as zeros; a source listed twice fails.
func bySourceOf(t *testing.T, label string, rows []sourceRow) []sourceRow {
	t.Helper()
	seen := map[string]sourceRow{}
	for _, r := range rows {
		if _, twice := seen[r.Source]; twice || !slices.Contains(leadSources, r.Source) {
			t.Errorf("%s: bySource lists %s twice or unknown", label, r.Source)
		}
		seen[r.Source] = r
	}
	out := make([]sourceRow, 0, len(leadSources))
	for _, s := range leadSources {
		r, ok := seen[s]
		if !ok {
			r = sourceRow{Source: s, FundedAmount: "0.00"}
		}
		out = append(out, r)
	}
	return out
}

// descending fails unless rows are ordered by figure, largest first.
func descending[T any](t *testing.T, label, what string, rows []T, figure func(T) int64) {
	t.Helper()
	if !slices.IsSortedFunc(rows, func(a, b T) int { return cmp.Compare(figure(b), figure(a)) }) {
		t.Errorf("%s: %s are out of order: %+v", label, what, rows)
	}
}

// byKey is rows sorted by key, for comparing as sets.
func byKey[T any](rows []T, key func(T) string) []T {
	out := slices.Clone(rows)
	if out == nil {
		out = []T{}
	}
	slices.SortFunc(out, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
	return out
}

func amountCents(t *testing.T, s string) int64 {
	t.Helper()
	whole, frac, ok := strings.Cut(s, ".")
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if !ok || len(frac) != 2 || err != nil {
		t.Fatalf("amount %q is not written with two decimals", s)
	}
	return n
}

// diff shows where two values differ: the differing elements of two lists
// of one length, else both values.
func diff(got, want any) string {
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	if g.Kind() == reflect.Slice && w.Kind() == reflect.Slice && g.Len() == w.Len() {
		var b strings.Builder
		for i := range g.Len() {
			if !reflect.DeepEqual(g.Index(i).Interface(), w.Index(i).Interface()) {
				fmt.Fprintf(&b, "  [%d] got  %s\n  [%d] want %s\n", i, jsonOf(g.Index(i).Interface()), i, jsonOf(w.Index(i).Interface()))
			}
		}
		return b.String()
	}
	return fmt.Sprintf("  got  %s\n  want %s", jsonOf(got), jsonOf(want))
}

func jsonOf(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}
