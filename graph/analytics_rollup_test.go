package graph_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/dealday"
	"github.com/lendingpipe/svc/ent/leadcount"
	"github.com/lendingpipe/svc/ent/leadday"
	"github.com/lendingpipe/svc/ent/paymentday"
	"github.com/lendingpipe/svc/internal/rule"
)

// The rollups the hooks keep while a book is built through the public
// operations, in a zone with midnight changes, equal those a rebuild
// computes from the records; and a rebuild in another zone, then back,
// gives the same rows again.
func TestRollupsKeptEqualRebuilt(t *testing.T) {
	for i, seed := range analyticsSeeds[:3] {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			zone := analyticsZones[i%2] // zones whose changes skip or repeat midnight
			rng := rand.New(rand.NewPCG(seed, 0x7011))
			b := newBookInZone(t, rng, zone)
			kept := rollupRows(t, b.DB.Client, b.Org.ID)
			if len(kept) == 0 {
				t.Fatal("the book left no rollups")
			}
			b.rebuildRollups()
			if d := rowsDiff(rollupRows(t, b.DB.Client, b.Org.ID), kept); d != "" {
				t.Fatalf("rebuilt rollups differ from the kept ones:\n%s", d)
			}
			current, other := zone, "Asia/Kathmandu"
			b.setOrgZone(&current, other)
			b.rebuildRollups()
			if moved := rollupRows(t, b.DB.Client, b.Org.ID); rowsDiff(moved, kept) == "" {
				t.Fatal("rollups cut in another zone have the same days")
			}
			b.setOrgZone(&current, zone)
			b.rebuildRollups()
			if d := rowsDiff(rollupRows(t, b.DB.Client, b.Org.ID), kept); d != "" {
				t.Fatalf("rollups rebuilt back in %s differ from the kept ones:\n%s", zone, d)
			}
		})
	}
}

// newBookInZone is a book whose rollups the hooks keep in zone.
func newBookInZone(t *testing.T, rng *rand.Rand, zone string) *book {
	for {
		b := newBook(t, rng, zone)
		org, err := b.DB.Client.Organization.Get(rule.SystemContext(context.Background()), b.Org.ID)
		if err != nil {
			t.Fatal(err)
		}
		if org.RollupZone != nil && *org.RollupZone == zone {
			return b
		}
		// newBook kept this one's rollups in UTC: draw again.
	}
}

// rowsDiff lists the keys whose rows differ, "" when none does.
func rowsDiff(got, want map[string]string) string {
	var b strings.Builder
	for k, w := range want {
		if g := got[k]; g != w {
			fmt.Fprintf(&b, "  %s: got %q, want %q\n", k, g, w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			fmt.Fprintf(&b, "  %s: got %q, want none\n", k, g)
		}
	}
	return b.String()
}

// rollupRows reads every rollup row of org, slots summed and empty sums
// left out, as comparable text.
func rollupRows(t *testing.T, c *ent.Client, org uuid.UUID) map[string]string {
	t.Helper()
	ctx := rule.SystemContext(context.Background())
	out := map[string]string{}
	var leads []struct {
		Day                                     int    `json:"day"`
		Source                                  string `json:"source"`
		Leads, Applied, Approved, Funded, Total int
	}
	err := c.LeadDay.Query().Where(leadday.OrgID(org)).GroupBy(leadday.FieldDay, leadday.FieldSource).
		Aggregate(ent.As(ent.Sum(leadday.FieldLeads), "leads"), ent.As(ent.Sum(leadday.FieldApplied), "applied"),
			ent.As(ent.Sum(leadday.FieldApproved), "approved"), ent.As(ent.Sum(leadday.FieldFunded), "funded"),
			ent.As(ent.Sum(leadday.FieldFundedAmount), "total")).Scan(ctx, &leads)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range leads {
		if r != (struct {
			Day                                     int    `json:"day"`
			Source                                  string `json:"source"`
			Leads, Applied, Approved, Funded, Total int
		}{Day: r.Day, Source: r.Source}) {
			out[fmt.Sprintf("lead %d %s", r.Day, r.Source)] = fmt.Sprint(r.Leads, r.Applied, r.Approved, r.Funded, r.Total)
		}
	}
	var stages []struct {
		StageID   uuid.UUID `json:"stage_id"`
		N         int       `json:"n"`
		Requested int64     `json:"requested"`
		Outsized  int       `json:"outsized"`
	}
	err = c.LeadCount.Query().Where(leadcount.OrgID(org)).GroupBy(leadcount.FieldStageID).
		Aggregate(ent.As(ent.Sum(leadcount.FieldN), "n"), ent.As(ent.Sum(leadcount.FieldRequested), "requested"),
			ent.As(ent.Sum(leadcount.FieldOutsized), "outsized")).Scan(ctx, &stages)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range stages {
		if r.N != 0 || r.Requested != 0 || r.Outsized != 0 {
			out["stage "+r.StageID.String()] = fmt.Sprint(r.N, r.Requested, r.Outsized)
		}
	}
	deals, err := c.DealDay.Query().Where(dealday.OrgID(org)).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range deals {
		out[fmt.Sprintf("deal %s %d %s %s", r.Grain, r.Day, r.Dimension, r.SubjectID)] = fmt.Sprint(r.Deals, r.FundedAmount,
			r.ExpectedCommission, r.Paid, r.ClawedBack, r.Outstanding, r.RenewalDeals, r.RenewalAmount, r.RenewalExpected, r.RenewalPaid)
	}
	payments, err := c.PaymentDay.Query().Where(paymentday.OrgID(org)).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range payments {
		out[fmt.Sprintf("payment %d", r.Day)] = fmt.Sprint(r.Paid, r.ClawedBack)
	}
	lendingRollupRows(t, c, org, out)
	return out
}
