package lending_test

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/lender"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
	"github.com/lendingpipe/svc/lending"
)

// matchNow is the moment the matches are read at in these tests.
var matchNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// at is ctx with the clock stopped at t.
func at(ctx context.Context, t time.Time) context.Context {
	return apitime.WithClock(ctx, func() time.Time { return t })
}

// historyBuilder writes an organization's lending history through the
// lending flows, each step at its own time.
type historyBuilder struct {
	t   *testing.T
	ctx context.Context
	c   *ent.Client
	rng *rand.Rand
}

func (h *historyBuilder) lead(name string, industry *string, requested *string, revenue *string, months any) *ent.Lead {
	h.t.Helper()
	in := ent.CreateLeadInput{BusinessName: &name, Industry: industry, RequestedAmount: requested, MonthlyRevenue: revenue}
	if months != nil {
		in.CustomFields = map[string]any{"monthsInBusiness": months}
	}
	l, err := leads.Create(h.ctx, h.c, in)
	if err != nil {
		h.t.Fatal(err)
	}
	return l
}

func (h *historyBuilder) lender(name string, set func(*ent.LenderCreate)) *ent.Lender {
	h.t.Helper()
	cr := h.c.Lender.Create().SetName(name)
	if set != nil {
		set(cr)
	}
	ld, err := cr.Save(h.ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	return ld
}

// outcome is what happens to one application after its submission.
type outcome struct {
	decision string        // "", "approved", "declined", "withdrawn" (before a decision)
	after    time.Duration // from the submission to the decision
	fund     bool          // approved, then funded
	withdraw bool          // approved, then withdrawn
}

func (h *historyBuilder) apply(l *ent.Lead, ld *ent.Lender, amount money.Amount, submitted time.Time, o outcome) {
	h.t.Helper()
	a, err := lending.Submit(at(h.ctx, submitted), h.c, lending.Submission{LeadID: l.ID, LenderID: ld.ID, RequestedAmount: &amount})
	if err != nil {
		h.t.Fatalf("submitting %s to %s: %v", l.ID, ld.Name, err)
	}
	decided := submitted.Add(o.after)
	switch o.decision {
	case "approved":
		rate, rt, term := money.FromMillionths(1_350_000), application.RateTypeFactor, 9
		if _, err := lending.Decide(at(h.ctx, decided), h.c, a.ID, lending.Decision{Approved: true, InterestRate: &rate, RateType: &rt, TermMonths: &term}); err != nil {
			h.t.Fatal(err)
		}
		later := at(h.ctx, decided.Add(time.Hour))
		switch {
		case o.fund:
			if _, err := lending.Fund(later, h.c, lending.Funding{ApplicationID: a.ID}); err != nil {
				h.t.Fatal(err)
			}
		case o.withdraw:
			if _, err := lending.Withdraw(later, h.c, a.ID, ptr("merchant went quiet")); err != nil {
				h.t.Fatal(err)
			}
		}
	case "declined":
		if _, err := lending.Decide(at(h.ctx, decided), h.c, a.ID, lending.Decision{Reason: ptr("thin file")}); err != nil {
			h.t.Fatal(err)
		}
	case "withdrawn":
		if _, err := lending.Withdraw(at(h.ctx, decided), h.c, a.ID, ptr("merchant went quiet")); err != nil {
			h.t.Fatal(err)
		}
	}
}

// randomOutcome is an outcome of a random kind, decided at a random
// millisecond within 40 days and before matchNow.
func (h *historyBuilder) randomOutcome(submitted time.Time) outcome {
	o := outcome{after: time.Duration(h.rng.Int64N(int64(40*24*time.Hour/time.Millisecond))) * time.Millisecond}
	if limit := matchNow.Add(-2 * time.Hour).Sub(submitted); o.after > limit {
		o.after = limit / 2
	}
	switch p := h.rng.IntN(100); {
	case p < 15:
	case p < 22:
		o.decision = "withdrawn"
	case p < 60:
		o.decision = "declined"
	default:
		o.decision = "approved"
		o.fund = h.rng.IntN(100) < 30
		o.withdraw = !o.fund && h.rng.IntN(100) < 15
	}
	return o
}

var (
	industries = []*string{ptr("Trucking"), ptr(" trucking "), ptr("Dental"), nil}
	amounts    = []string{"12000", "24999.99", "25000", "40000", "60000"}
)

// The oracle: random histories through the lending flows, and for many
// leads and amounts the matches computed here from the raw applications
// with math/big, every field of every entry compared. The history has
// identical twins (a tie broken by name), lenders with even and odd counts
// of decisions, fewer than 5 similar applications, no history at all, an
// inactive lender, applications exactly at the window's start and just
// before it, and leads whose industry changes after they were submitted.
func TestLenderMatchesOracle(t *testing.T) {
	e := newEnv(t)
	h := &historyBuilder{t: t, ctx: e.a.as, c: e.db.Client, rng: rand.New(rand.NewPCG(7, 13))}
	var panel []*ent.Lender
	for i := range 6 {
		panel = append(panel, h.lender(fmt.Sprintf("Lender %c", 'A'+i), func(cr *ent.LenderCreate) {
			switch i {
			case 0:
				cr.SetMaxAmount(money.FromCents(5_000_000)).SetExcludedIndustries([]string{"DENTAL"})
			case 1:
				cr.SetMinAmount(money.FromCents(2_000_000)).SetMinMonthlyRevenue(money.FromCents(1_500_000))
			case 2:
				cr.SetMinMonthsInBusiness(12).SetProducts([]string{"mca"})
			}
		}))
	}
	twinA, twinB := h.lender("Twin A", nil), h.lender("twin b", nil)
	empty := h.lender("Empty Harbor", nil)
	inactive := h.lender("Dormant Bank", nil)
	_ = empty

	window := matchNow.Add(-180 * 24 * time.Hour)
	var all []*ent.Lead
	for i := range 70 {
		amt := amounts[h.rng.IntN(len(amounts))]
		var rev *string
		if h.rng.IntN(2) == 0 {
			rev = ptr([]string{"9000", "20000"}[h.rng.IntN(2)])
		}
		var months any
		if h.rng.IntN(3) > 0 {
			months = []any{6, "24"}[h.rng.IntN(2)]
		}
		l := h.lead(fmt.Sprintf("Merchant %d", i), industries[h.rng.IntN(len(industries))], &amt, rev, months)
		all = append(all, l)
		amount, _ := money.ParseAmount(amt)
		for _, j := range h.rng.Perm(len(panel))[:1+h.rng.IntN(3)] {
			submitted := matchNow.Add(-time.Duration(h.rng.Int64N(int64(200*24*time.Hour/time.Millisecond))) * time.Millisecond)
			switch i {
			case 0:
				submitted = window // the window's first instant counts
			case 1:
				submitted = window.Add(-time.Millisecond) // just before it does not
			}
			h.apply(l, panel[j], amount, submitted, h.randomOutcome(submitted))
		}
	}
	// The twins: the same leads, the same times and answers, never funded
	// (a funding would withdraw the other twin's).
	for i := range 4 {
		l := all[i]
		amount, _ := money.ParseAmount(*l.RequestedAmount)
		submitted := matchNow.Add(-time.Duration(i+1) * 20 * 24 * time.Hour)
		o := outcome{decision: []string{"approved", "declined", "approved", ""}[i], after: time.Duration(i+1) * 36 * time.Hour}
		h.apply(l, twinA, amount, submitted, o)
		h.apply(l, twinB, amount, submitted, o)
	}
	h.apply(all[5], inactive, money.FromCents(3_000_000), matchNow.Add(-24*time.Hour), outcome{decision: "declined", after: time.Hour})
	if err := e.db.Client.Lender.UpdateOne(inactive).SetIsActive(false).Exec(e.a.as); err != nil {
		t.Fatal(err)
	}
	// Industries that change after the submissions: the record follows.
	for _, l := range all[10:16] {
		if _, err := leads.Update(e.a.as, e.db.Client, l.ID, ent.UpdateLeadInput{Industry: ptr("DENTAL ")}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := leads.Update(e.a.as, e.db.Client, all[16].ID, ent.UpdateLeadInput{ClearIndustry: true}); err != nil {
		t.Fatal(err)
	}
	// Leads without an amount or an industry.
	bare := h.lead("Bare Merchant", nil, nil, nil, nil)
	all = append(all, bare)

	seen := map[string]bool{}
	ctx := at(e.a.as, matchNow)
	compare := func(phase string) {
		t.Helper()
		for i, l := range all {
			queries := []lending.MatchQuery{{LeadID: l.ID}}
			if i%3 == 0 {
				queries = append(queries, lending.MatchQuery{LeadID: l.ID, Amount: ptr(money.FromCents(7_500_000)), Product: ptr(application.ProductSba)})
			}
			for _, q := range queries {
				got, err := lending.Matches(ctx, e.db.Client, q)
				if err != nil {
					t.Fatal(err)
				}
				want := oracleMatches(t, e, q, seen)
				if g, w := describe(got), describeWant(want); !slices.Equal(g, w) {
					t.Fatalf("%s, lead %d %+v:\n got %s\nwant %s", phase, i, q, strings.Join(g, "\n     "), strings.Join(w, "\n     "))
				}
			}
		}
	}
	// Without rollups, the whole windows are read from the applications.
	compare("records")
	// With them, cut in a zone other than UTC, they are the lenders
	// report's sums of the window's whole days, and its partial first day
	// is read from the applications.
	sys := rule.SystemContext(ctx)
	if err := e.db.Client.Organization.UpdateOneID(e.a.ID).SetTimezone("America/Chicago").Exec(sys); err != nil {
		t.Fatal(err)
	}
	if err := analytics.RebuildRollups(ctx, e.db.Client, e.a.ID); err != nil {
		t.Fatal(err)
	}
	compare("rollups")
	// And as the flows keep them: more history after the rebuild.
	for i := range 20 {
		amt := amounts[h.rng.IntN(len(amounts))]
		l := h.lead(fmt.Sprintf("Later Merchant %d", i), industries[h.rng.IntN(len(industries))], &amt, nil, nil)
		amount, _ := money.ParseAmount(amt)
		submitted := matchNow.Add(-time.Duration(i+1) * 9 * 24 * time.Hour)
		h.apply(l, panel[i%len(panel)], amount, submitted, h.randomOutcome(submitted))
	}
	compare("kept")
	for _, what := range []string{"similar", "all", "none", "even", "odd", "fewSimilar", "tie", "unknown", "miss", "openApplication"} {
		if !seen[what] {
			t.Errorf("the history never produced a case of %s", what)
		}
	}
}

// want is an expected match, every field as text.
type want struct {
	lenderID, name         string
	eligible               bool
	misses, unknown        []string
	score, basis           string
	approval, funded, days string
	sample                 int
	hasComponents          bool
}

func describe(ms []*lending.Match) []string {
	out := []string{}
	for _, m := range ms {
		misses := []string{}
		for _, x := range m.Misses {
			if x.Message == "" {
				misses = append(misses, x.Field+":no message")
				continue
			}
			misses = append(misses, x.Field)
		}
		w := want{lenderID: m.LenderID.String(), name: m.LenderName, eligible: m.Eligible, misses: misses,
			unknown: m.Unknown, basis: string(m.Basis), score: "null", days: "null"}
		if m.Score != nil {
			w.score = m.Score.String()
		}
		if c := m.Components; c != nil {
			w.hasComponents, w.approval, w.funded, w.sample = true, c.ApprovalRate.String(), c.FundedShare.String(), c.SampleSize
			if c.MedianDaysToDecision != nil {
				w.days = c.MedianDaysToDecision.String()
			}
		}
		out = append(out, fmt.Sprintf("%+v", w))
	}
	return out
}

func describeWant(ws []want) []string {
	out := []string{}
	for _, w := range ws {
		out = append(out, fmt.Sprintf("%+v", w))
	}
	return out
}

// oracleBand is the amount band by the bounds written out.
func oracleBand(cents int64) int {
	switch {
	case cents < 2_500_000:
		return 0
	case cents < 5_000_000:
		return 1
	case cents < 10_000_000:
		return 2
	case cents < 25_000_000:
		return 3
	case cents < 50_000_000:
		return 4
	}
	return 5
}

// ratText is r half-even to places decimals, as text.
func ratText(r *big.Rat, places int) string {
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(places)), nil)
	n := new(big.Int).Mul(r.Num(), scale)
	q, rem := new(big.Int).QuoRem(n, r.Denom(), new(big.Int))
	switch c := new(big.Int).Lsh(rem, 1).Cmp(r.Denom()); {
	case c > 0, c == 0 && q.Bit(0) == 1:
		q.Add(q, big.NewInt(1))
	}
	s := fmt.Sprintf("%0*s", places+1, q.String())
	return s[:len(s)-places] + "." + s[len(s)-places:]
}

// oracleMatches computes the matches from the raw rows.
func oracleMatches(t *testing.T, e *env, q lending.MatchQuery, seen map[string]bool) []want {
	t.Helper()
	sys := rule.SystemContext(context.Background())
	c := e.db.Client
	l, err := c.Lead.Query().Where(lead.ID(q.LeadID)).Only(sys)
	if err != nil {
		t.Fatal(err)
	}
	var amount *int64
	if q.Amount != nil {
		amount = ptr(q.Amount.Cents())
	} else if l.RequestedAmount != nil {
		a, _ := money.ParseAmount(*l.RequestedAmount)
		amount = ptr(a.Cents())
	}
	lenders, err := c.Lender.Query().Where(lender.OrgID(e.a.ID), lender.IsActive(true)).All(sys)
	if err != nil {
		t.Fatal(err)
	}
	apps, err := c.Application.Query().Where(application.OrgID(e.a.ID)).WithLead().All(sys)
	if err != nil {
		t.Fatal(err)
	}
	windowStart := matchNow.Add(-180 * 24 * time.Hour)
	var out []want
	for _, ld := range lenders {
		w := want{lenderID: ld.ID.String(), name: ld.Name, misses: []string{}, unknown: []string{}, score: "null", days: "null"}
		// The box, rule by rule.
		if amount == nil {
			if ld.MinAmount != nil || ld.MaxAmount != nil {
				w.unknown = append(w.unknown, "amount")
			}
		} else if ld.MinAmount != nil && *amount < ld.MinAmount.Cents() || ld.MaxAmount != nil && *amount > ld.MaxAmount.Cents() {
			w.misses = append(w.misses, "amount")
		}
		if ld.MinMonthlyRevenue != nil {
			if l.MonthlyRevenue == nil {
				w.unknown = append(w.unknown, "monthlyRevenue")
			} else if rev, _ := money.ParseAmount(*l.MonthlyRevenue); rev < *ld.MinMonthlyRevenue {
				w.misses = append(w.misses, "monthlyRevenue")
			}
		}
		if len(ld.ExcludedIndustries) > 0 {
			if l.Industry == nil {
				w.unknown = append(w.unknown, "industry")
			} else if slices.ContainsFunc(ld.ExcludedIndustries, func(x string) bool {
				return strings.EqualFold(strings.TrimSpace(x), strings.TrimSpace(*l.Industry))
			}) {
				w.misses = append(w.misses, "industry")
			}
		}
		if q.Product != nil && len(ld.Products) > 0 && !slices.Contains(ld.Products, string(*q.Product)) {
			w.misses = append(w.misses, "product")
		}
		if ld.MinMonthsInBusiness != nil {
			var months *int
			switch v := l.CustomFields["monthsInBusiness"].(type) {
			case string:
				var n int
				if _, err := fmt.Sscan(v, &n); err == nil {
					months = &n
				}
			case nil:
			default:
				var n int
				if _, err := fmt.Sscan(fmt.Sprint(v), &n); err == nil {
					months = &n
				}
			}
			if months == nil {
				w.unknown = append(w.unknown, "monthsInBusiness")
			} else if *months < *ld.MinMonthsInBusiness {
				w.misses = append(w.misses, "monthsInBusiness")
			}
		}
		for _, a := range apps {
			if a.LeadID == l.ID && a.LenderID == ld.ID && slices.Contains([]application.Status{application.StatusSubmitted,
				application.StatusUnderwriting, application.StatusApproved}, a.Status) {
				w.misses = append(w.misses, "openApplication")
				seen["openApplication"] = true
			}
		}
		w.eligible = len(w.misses) == 0
		if len(w.misses) > 0 {
			seen["miss"] = true
		}
		if len(w.unknown) > 0 {
			seen["unknown"] = true
		}
		// The record.
		var similar, every []*ent.Application
		for _, a := range apps {
			if a.LenderID != ld.ID || a.SubmittedAt.Before(windowStart) {
				continue
			}
			every = append(every, a)
			if amount != nil && l.Industry != nil && strings.TrimSpace(*l.Industry) != "" &&
				oracleBand(a.RequestedAmount.Cents()) == oracleBand(*amount) && a.Edges.Lead.Industry != nil &&
				strings.EqualFold(strings.TrimSpace(*a.Edges.Lead.Industry), strings.TrimSpace(*l.Industry)) {
				similar = append(similar, a)
			}
		}
		basis := every
		switch {
		case len(similar) >= 5:
			w.basis, basis = "similar", similar
		case len(every) > 0:
			w.basis = "all"
			if len(similar) > 0 {
				seen["fewSimilar"] = true
			}
		default:
			w.basis = "none"
		}
		seen[w.basis] = true
		if w.basis != "none" {
			var approved, declined, funded int64
			var secs []int64
			for _, a := range basis {
				if a.Status == application.StatusDeclined {
					declined++
				}
				if a.Status == application.StatusFunded {
					funded++
				}
				if a.DecidedAt != nil {
					if a.Status != application.StatusDeclined {
						approved++
					}
					secs = append(secs, int64(a.DecidedAt.Sub(a.SubmittedAt)/time.Second))
				}
			}
			ar, fs, speed := new(big.Rat), new(big.Rat), new(big.Rat)
			if approved+declined > 0 {
				ar.SetFrac64(approved, approved+declined)
			}
			if approved > 0 {
				fs.SetFrac64(funded, approved)
			}
			if n := len(secs); n > 0 {
				slices.Sort(secs)
				median := big.NewRat(secs[(n-1)/2]+secs[n/2], 2)
				seen[map[bool]string{true: "even", false: "odd"}[n%2 == 0]] = true
				days := new(big.Rat).Quo(median, big.NewRat(86400, 1))
				w.days = ratText(days, 2)
				speed.Sub(big.NewRat(1, 1), new(big.Rat).Quo(days, big.NewRat(30, 1)))
				if speed.Sign() < 0 {
					speed.SetInt64(0)
				}
			}
			score := new(big.Rat).Add(new(big.Rat).Mul(big.NewRat(1, 2), ar), new(big.Rat).Mul(big.NewRat(3, 10), fs))
			score.Add(score, new(big.Rat).Mul(big.NewRat(1, 5), speed))
			w.score, w.approval, w.funded, w.sample, w.hasComponents = ratText(score, 4), ratText(ar, 4), ratText(fs, 4), len(basis), true
		}
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b want) int {
		if a.eligible != b.eligible {
			if a.eligible {
				return -1
			}
			return 1
		}
		if a.score != b.score {
			switch {
			case a.score == "null":
				return 1
			case b.score == "null":
				return -1
			}
			ra, _ := new(big.Rat).SetString(a.score)
			rb, _ := new(big.Rat).SetString(b.score)
			return rb.Cmp(ra)
		}
		if la, lb := strings.ToLower(a.name), strings.ToLower(b.name); la != lb {
			return strings.Compare(la, lb)
		}
		return strings.Compare(a.name, b.name)
	})
	for i := 1; i < len(out); i++ {
		if out[i].score != "null" && out[i].score == out[i-1].score && out[i].eligible == out[i-1].eligible {
			seen["tie"] = true
		}
	}
	return out
}

// Another organization's history never counts, and its lenders never
// appear; its lead is NOT_FOUND.
func TestLenderMatchesIsolation(t *testing.T) {
	e := newEnv(t)
	otherID, _, err := storeOrg(e, "Other Brokers")
	if err != nil {
		t.Fatal(err)
	}
	other := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: otherID, KeyID: uuid.New(), Scopes: viewer.AllScopes})
	mine := &historyBuilder{t: t, ctx: e.a.as, c: e.db.Client, rng: rand.New(rand.NewPCG(1, 2))}
	theirs := &historyBuilder{t: t, ctx: other, c: e.db.Client, rng: rand.New(rand.NewPCG(3, 4))}
	myLender := mine.lender("Summit Capital", nil)
	theirLender := theirs.lender("Summit Capital", nil)
	myLead := mine.lead("Mine", ptr("Trucking"), ptr("30000"), nil, nil)
	theirLead := theirs.lead("Theirs", ptr("Trucking"), ptr("30000"), nil, nil)
	for i := range 6 {
		theirs.apply(theirs.lead(fmt.Sprint("T", i), ptr("Trucking"), ptr("30000"), nil, nil), theirLender,
			money.FromCents(3_000_000), matchNow.Add(-time.Duration(i+1)*24*time.Hour), outcome{decision: "approved", after: time.Hour, fund: true})
	}
	ms, err := lending.Matches(at(e.a.as, matchNow), e.db.Client, lending.MatchQuery{LeadID: myLead.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].LenderID != myLender.ID || ms[0].Basis != "none" || ms[0].Score != nil || ms[0].Components != nil {
		t.Fatalf("matches = %s, want only my lender with no record", describe(ms))
	}
	_, err = lending.Matches(at(e.a.as, matchNow), e.db.Client, lending.MatchQuery{LeadID: theirLead.ID})
	if ae, ok := apperr.As(err); !ok || ae.Code != apperr.NotFound {
		t.Fatalf("their lead: %v, want NOT_FOUND", err)
	}
}

// Refusals: an unknown lead is NOT_FOUND, an amount of 0 and an unknown
// product are VALIDATION_ERROR naming the field.
func TestLenderMatchesRefusals(t *testing.T) {
	e := newEnv(t)
	_, err := lending.Matches(e.a.as, e.db.Client, lending.MatchQuery{LeadID: uuid.New()})
	if ae, ok := apperr.As(err); !ok || ae.Code != apperr.NotFound {
		t.Errorf("unknown lead: %v, want NOT_FOUND", err)
	}
	h := &historyBuilder{t: t, ctx: e.a.as, c: e.db.Client}
	l := h.lead("Zero", nil, nil, nil, nil)
	for field, q := range map[string]lending.MatchQuery{
		"amount":  {LeadID: l.ID, Amount: ptr(money.FromCents(0))},
		"product": {LeadID: l.ID, Product: ptr(application.Product("yacht"))},
	} {
		_, err := lending.Matches(e.a.as, e.db.Client, q)
		if ae, ok := apperr.As(err); !ok || ae.Code != apperr.Validation || ae.Field != field {
			t.Errorf("%s: %v, want VALIDATION_ERROR naming it", field, err)
		}
	}
}

// A lead's industry change keeps its applications' updatedAt.
func TestIndustryChangeKeepsApplicationsUpdatedAt(t *testing.T) {
	e := newEnv(t)
	h := &historyBuilder{t: t, ctx: e.a.as, c: e.db.Client}
	ld := h.lender("Summit Capital", nil)
	l := h.lead("Mover", ptr("Trucking"), ptr("30000"), nil, nil)
	h.apply(l, ld, money.FromCents(3_000_000), matchNow.Add(-time.Hour), outcome{})
	sys := rule.SystemContext(context.Background())
	before, err := e.db.Client.Application.Query().Where(application.LeadID(l.ID)).Only(sys)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leads.Update(at(e.a.as, matchNow), e.db.Client, l.ID, ent.UpdateLeadInput{Industry: ptr("Dental")}); err != nil {
		t.Fatal(err)
	}
	after, err := e.db.Client.Application.Query().Where(application.LeadID(l.ID)).Only(sys)
	if err != nil {
		t.Fatal(err)
	}
	if !after.UpdatedAt.Equal(before.UpdatedAt) || after.IndustryKey == nil || *after.IndustryKey != "dental" {
		t.Fatalf("after the change: updatedAt %v (was %v), industry key %v", after.UpdatedAt, before.UpdatedAt, after.IndustryKey)
	}
}
