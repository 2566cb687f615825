package seed_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/commission"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/seed"
)

const seedBookLeads = 2000

// A seeded lending book keeps every rule of the lending flows, has the
// proportions of a broker's year, and puts each lead in the stage its
// lending left it in.
func TestSeedLending(t *testing.T) {
	ctx := viewer.WithBulkLoad(context.Background())
	sys := rule.SystemContext(ctx)
	db := storetest.Open(t)
	org, _, err := store.CreateOrganization(ctx, db.Client, "Seeded")
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	seeded, err := seed.LeadsWithLending(ctx, db, org.ID, seedBookLeads, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := readBook(ctx, db, org.ID)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("EveryRule", func(t *testing.T) {
		for _, v := range b.violations(before) {
			t.Error(v)
		}
	})

	// Each lender has a record of its own, so the lender matches rank the
	// panel by something: approval rates and decision speeds far apart.
	// Every application carries its amount band and industry key.
	t.Run("DistinctRecords", func(t *testing.T) {
		type tally struct{ approved, decided, seconds int }
		by := map[uuid.UUID]*tally{}
		for _, a := range b.apps {
			if a.AmountBand == nil || *a.AmountBand != lendingrules.AmountBand(a.RequestedAmount) || a.IndustryKey == nil {
				t.Fatalf("application %s: amount band %v, industry key %v", a.ID, a.AmountBand, a.IndustryKey)
			}
			if a.DecidedAt == nil {
				continue
			}
			x := by[a.LenderID]
			if x == nil {
				x = &tally{}
				by[a.LenderID] = x
			}
			x.decided++
			x.seconds += int(a.DecidedAt.Sub(a.SubmittedAt) / time.Second)
			if a.Status != application.StatusDeclined {
				x.approved++
			}
		}
		lo, hi, fast, slow := 100, 0, math.MaxInt, 0
		for _, x := range by {
			if x.decided < 20 {
				continue
			}
			rate, mean := 100*x.approved/x.decided, x.seconds/x.decided
			lo, hi, fast, slow = min(lo, rate), max(hi, rate), min(fast, mean), max(slow, mean)
		}
		if hi-lo < 20 || slow < 3*fast {
			t.Errorf("approval rates %d%% to %d%%, mean decisions %ds to %ds: want lenders far apart", lo, hi, fast, slow)
		}
	})

	t.Run("Counts", func(t *testing.T) {
		if len(b.lenders) < 8 || len(b.lenders) > 15 || seeded.Lenders != len(b.lenders) {
			t.Errorf("%d lenders (reported %d), want 8 to 15", len(b.lenders), seeded.Lenders)
		}
		if len(b.leads) != seedBookLeads || len(b.apps) != seeded.Applications || len(b.deals) != seeded.Deals {
			t.Errorf("%d leads, %d applications, %d deals; reported %d applications, %d deals",
				len(b.leads), len(b.apps), len(b.deals), seeded.Applications, seeded.Deals)
		}
		if total, err := db.LeadTotal(ctx, org.ID); err != nil || total != seedBookLeads {
			t.Errorf("lead total %d, %v", total, err)
		}
		decided, approved, dealLeads := 0, 0, 0
		for _, a := range b.apps {
			if a.DecidedAt != nil {
				decided++
				if a.ApprovedAmount != nil {
					approved++
				}
			}
		}
		for _, deals := range b.dealsOf {
			if len(deals) != 1 {
				t.Errorf("a lead with %d deals", len(deals))
			}
			dealLeads++
		}
		near := func(what string, got, want, tolerance float64) {
			if math.Abs(got-want) > tolerance {
				t.Errorf("%s %.3f, want %.2f ± %.2f", what, got, want, tolerance)
			}
		}
		applied := float64(len(b.appsOf))
		near("shopped leads / leads", applied/seedBookLeads, 0.25, 0.03)
		near("approved / decided", float64(approved)/float64(decided), 0.60, 0.05)
		near("funded leads / shopped", float64(dealLeads)/applied, 0.30, 0.05)
		near("applications / shopped lead", float64(len(b.apps))/applied, 2.05, 0.25)
		perLead := map[int]int{}
		for _, apps := range b.appsOf {
			perLead[len(apps)]++
		}
		for k := 1; k <= 4; k++ {
			if perLead[k] == 0 {
				t.Errorf("no lead shopped to %d lenders: %v", k, perLead)
			}
		}
		if len(perLead) != 4 {
			t.Errorf("leads shopped to %v lenders, want 1 to 4", perLead)
		}
		statuses := map[string]int{}
		for _, a := range b.apps {
			statuses[string(a.Status)]++
		}
		for _, s := range []string{"submitted", "underwriting", "approved", "declined", "withdrawn", "funded"} {
			if statuses[s] == 0 {
				t.Errorf("no application %s: %v", s, statuses)
			}
		}
		cms := map[commission.Status]int{}
		for _, cm := range b.commissions {
			cms[cm.Status]++
		}
		t.Logf("%d lenders, %d of %d leads shopped to %v lenders, applications %v, %d of %d decisions approvals, %d leads funded, commissions %v",
			len(b.lenders), len(b.appsOf), len(b.leads), perLead, statuses, approved, decided, dealLeads, cms)
		if cms[commission.StatusClawedBack] == 0 || cms[commission.StatusClawedBack] > len(b.commissions)/10 ||
			cms[commission.StatusPaid] < len(b.commissions)/3 || cms[commission.StatusPartiallyPaid] == 0 || cms[commission.StatusPending] == 0 {
			t.Errorf("commissions %v: want mostly paid, some partly paid and pending, a few clawed back", cms)
		}
	})

	t.Run("Realistic", func(t *testing.T) {
		withWarnings, elsewhere := 0, 0
		categories := map[string]int{}
		for _, a := range b.apps {
			if len(a.Warnings) > 0 {
				withWarnings++
			}
			if a.DeclineCategory != nil {
				categories[string(*a.DeclineCategory)]++
			}
			if a.WithdrawnReason != nil && *a.WithdrawnReason == "funded_elsewhere" {
				elsewhere++
				if d := b.dealsOf[a.LeadID]; len(d) == 0 || !a.UpdatedAt.Equal(d[0].FundedAt) {
					t.Errorf("application %s withdrawn funded_elsewhere, not by its lead's funding", a.ID)
				}
			}
		}
		t.Logf("%d applications, %d with warnings; decline categories %v; %d withdrawn funded_elsewhere", len(b.apps), withWarnings, categories, elsewhere)
		if withWarnings == 0 || withWarnings > len(b.apps)/4 {
			t.Errorf("%d of %d applications miss their lender's box; want a few", withWarnings, len(b.apps))
		}
		if len(categories) < 5 || elsewhere == 0 {
			t.Errorf("decline categories %v, %d withdrawn funded_elsewhere", categories, elsewhere)
		}
		// Decisions and fundings spread over the year.
		oldest, newest := before, time.Time{}
		for _, d := range b.deals {
			oldest, newest = minTime(oldest, d.FundedAt), maxTime(newest, d.FundedAt)
			for _, a := range b.appsOf[d.LeadID] {
				if a.SubmittedAt.After(d.FundedAt) || a.DecidedAt != nil && a.DecidedAt.After(d.FundedAt) {
					t.Errorf("lead %s: application %s moved after the funding", d.LeadID, a.ID)
				}
			}
			for _, p := range b.payments[d.CommissionID] {
				if p.PaidAt.Before(d.FundedAt) {
					t.Errorf("deal %s: commission paid before funding", d.ID)
				}
			}
		}
		if before.Sub(oldest) < 300*24*time.Hour || before.Sub(newest) > 30*24*time.Hour {
			t.Errorf("deals funded from %s to %s; want the past year", oldest, newest)
		}
		// Stages: the slot of each lead's lending state.
		for id, l := range b.leads {
			slot, apps := b.slots[l.StageID], b.appsOf[id]
			approved := false
			for _, a := range apps {
				approved = approved || a.ApprovedAmount != nil
			}
			var want []string
			switch {
			case len(b.dealsOf[id]) > 0:
				want = []string{"won"}
			case approved:
				want = []string{"approved"}
			case len(apps) > 0:
				want = []string{"application", "lost"}
			default:
				want = []string{"new", "working", "qualified", "lost"}
			}
			if !strings.Contains(" "+strings.Join(want, " ")+" ", " "+slot+" ") {
				t.Errorf("lead %s in the %s slot; its lending puts it in %v", id, slot, want)
			}
			if len(apps) > 0 && l.PrimaryAdvisorID == nil {
				t.Errorf("shopped lead %s has no advisor", id)
			}
		}
	})

	// Every deal knows when it may renew; the book's year leaves many due,
	// announced in its past, and the later ones for the sweeper.
	t.Run("Renewals", func(t *testing.T) {
		due, later := 0, 0
		for _, d := range b.deals {
			want := lendingrules.RenewalEligibleAt(d.FundedAt.UTC(), d.TermMonths)
			if d.RenewalEligibleAt == nil || !d.RenewalEligibleAt.Equal(want) {
				t.Fatalf("deal funded %s on %d months renews at %v, want %s", d.FundedAt, d.TermMonths, d.RenewalEligibleAt, want)
			}
			if want.Before(before) {
				due++
				if d.RenewalAnnouncedAt == nil {
					t.Errorf("deal %s came due in the book's past unannounced", d.ID)
				}
			} else {
				later++
				if d.RenewalAnnouncedAt != nil {
					t.Errorf("deal %s not yet due is announced", d.ID)
				}
			}
		}
		if due < len(b.deals)/5 || later == 0 {
			t.Errorf("%d deals due and %d later of %d: want a fifth due at least, and some later", due, later, len(b.deals))
		}
	})

	t.Run("NoEvents", func(t *testing.T) {
		if n, err := db.Client.WebhookEvent.Query().Where(webhookevent.OrgID(org.ID)).Count(sys); err != nil || n != 0 {
			t.Errorf("%d events, %v: a bulk load emits none", n, err)
		}
	})

	t.Run("DealTotals", func(t *testing.T) {
		checkLenderTotals(t, db, org.ID, b)
	})

	t.Run("Deterministic", func(t *testing.T) {
		again := storetest.Open(t)
		org2, _, err := store.CreateOrganization(ctx, again.Client, "Seeded")
		if err != nil {
			t.Fatal(err)
		}
		seeded2, err := seed.LeadsWithLending(ctx, again, org2.ID, seedBookLeads, nil)
		if err != nil {
			t.Fatal(err)
		}
		if *seeded2 != *seeded {
			t.Errorf("a second seed of the same size made %+v, the first %+v", *seeded2, *seeded)
		}
	})
}

// LenderDealTotal, from the day counts, equals a count of the deals for
// ranges bounded at midnight, within a day, open on either side.
func checkLenderTotals(t *testing.T, db *store.DB, orgID uuid.UUID, b *book) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	midnight := now.Truncate(24 * time.Hour)
	at := func(t time.Time) *time.Time { return &t }
	ranges := [][2]*time.Time{{nil, nil}, {at(now.AddDate(0, 0, -90)), nil}, {at(midnight.AddDate(0, 0, -30)), nil},
		{nil, at(now.AddDate(0, -6, 0))}, {at(now.AddDate(0, -8, 0)), at(midnight.AddDate(0, -2, 0))},
		{at(now.AddDate(0, -3, 0).Add(-time.Hour)), at(now.AddDate(0, -3, 0))}, {at(midnight.AddDate(0, 0, -200)), at(midnight.AddDate(0, 0, -199))}}
	for _, d := range b.deals[:min(5, len(b.deals))] { // a deal's own instant, as the bound on each side
		ranges = append(ranges, [2]*time.Time{at(d.FundedAt), nil}, [2]*time.Time{nil, at(d.FundedAt)})
	}
	sys := rule.SystemContext(ctx)
	for id := range b.lenders {
		for _, r := range ranges {
			q := db.Client.FundedDeal.Query().Where(fundeddeal.OrgID(orgID), fundeddeal.LenderID(id))
			if r[0] != nil {
				q = q.Where(fundeddeal.FundedAtGTE(*r[0]))
			}
			if r[1] != nil {
				q = q.Where(fundeddeal.FundedAtLT(*r[1]))
			}
			want, err := q.Count(sys)
			if err != nil {
				t.Fatal(err)
			}
			got, err := db.LenderDealTotal(ctx, orgID, id, r[0], r[1])
			if err != nil || got != want {
				t.Errorf("lender %s from %v to %v: total %d, %v; the deals are %d", id, r[0], r[1], got, err, want)
			}
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// The checker of the lending rules finds a broken book: it is not
// satisfied by anything.
func TestBookViolationsCatchBreaks(t *testing.T) {
	ctx := viewer.WithBulkLoad(context.Background())
	sys := rule.SystemContext(ctx)
	db := storetest.Open(t)
	org, _, err := store.CreateOrganization(ctx, db.Client, "Broken")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seed.LeadsWithLending(ctx, db, org.ID, 400, nil); err != nil {
		t.Fatal(err)
	}
	b, err := readBook(ctx, db, org.ID)
	if err != nil {
		t.Fatal(err)
	}
	if v := b.violations(time.Now()); len(v) > 0 {
		t.Fatalf("the seeded book already breaks rules: %v", v)
	}
	breaks := []struct {
		name, want string
		apply      func() error
	}{
		{"PaidAmount", "paidAmount", func() error {
			for _, cm := range b.commissions {
				return db.Client.Commission.UpdateOneID(cm.ID).AddPaidAmount(1).Exec(sys)
			}
			return nil
		}},
		{"Undecided", "declined without", func() error {
			a, err := db.Client.Application.Query().Where(application.StatusEQ(application.StatusDeclined), application.OrgID(org.ID)).First(sys)
			if err != nil {
				return err
			}
			return db.Client.Application.UpdateOneID(a.ID).ClearDecidedAt().Exec(sys)
		}},
	}
	for _, br := range breaks {
		t.Run(br.name, func(t *testing.T) {
			if err := br.apply(); err != nil {
				t.Fatal(err)
			}
			b, err := readBook(ctx, db, org.ID)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, v := range b.violations(time.Now()) {
				found = found || strings.Contains(v, br.want)
			}
			if !found {
				t.Errorf("the checker did not report %q", br.want)
			}
		})
	}
}

// Only a bulk load may write a lending book whole.
func TestSeedLendingNeedsBulkLoad(t *testing.T) {
	db := storetest.Open(t)
	org, _, err := store.CreateOrganization(context.Background(), db.Client, "Careful")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seed.LeadsWithLending(context.Background(), db, org.ID, 10, nil); err == nil ||
		!strings.Contains(err.Error(), "bulk load") {
		t.Errorf("seeding a book outside a bulk load: %v", err)
	}
	if n, _ := db.Client.Lead.Query().Count(rule.SystemContext(context.Background())); n != 0 {
		t.Errorf("%d leads written", n)
	}
}
