package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/ent/rule"
	"github.com/lendingpipe/svc/ent/schema"
)

var (
	seedFirst    = []string{"Ana", "Ben", "Chloe", "Dev", "Eli", "Fatima", "Gus", "Hana", "Ivan", "Jade", "Kofi", "Lena", "Mateo", "Nia", "Omar", "Priya"}
	seedLast     = []string{"Garcia", "Smith", "Nguyen", "Okafor", "Kowalski", "Haddad", "Rossi", "Tanaka", "Murphy", "Silva", "Novak", "Patel"}
	seedWords    = []string{"Acme", "Summit", "Harbor", "Pioneer", "Cedar", "Atlas", "Beacon", "Copper", "Granite", "Maple", "Orbit", "Quarry", "Ridge", "Willow", "Zenith", "Falcon"}
	seedKinds    = []string{"Trucking", "Dental", "Bakery", "Auto Repair", "Logistics", "Construction", "Salon", "Pharmacy", "Landscaping", "Plumbing"}
	seedSuffixes = []string{"LLC", "Inc", "Co", "Group", "& Sons", "Partners"}
)

// SeedLeads inserts n realistic leads into orgID in batched transactions,
// calling progress after each batch with the number inserted so far. The
// random source is seeded, so runs are reproducible.
func (s *DB) SeedLeads(ctx context.Context, orgID uuid.UUID, n int, progress func(done int)) error {
	sys, c := rule.SystemContext(ctx), s.Client
	stages, err := c.PipelineStage.Query().Where(pipelinestage.OrgID(orgID)).All(sys)
	if err != nil || len(stages) == 0 {
		return fmt.Errorf("loading the pipeline of %s: %v", orgID, err)
	}
	rng := rand.New(rand.NewPCG(uint64(n), 42))
	start := time.Now().UTC().Add(-time.Duration(n) * time.Second)
	const batch = 1000
	for done := 0; done < n; done += batch {
		size := min(batch, n-done)
		err := WithTx(sys, c, func(ctx context.Context, tx *ent.Client) error {
			builders := make([]*ent.LeadCreate, size)
			for i := range builders {
				builders[i] = seedLead(tx, rng, orgID, stages, start.Add(time.Duration(done+i)*time.Second), done+i)
			}
			return tx.Lead.CreateBulk(builders...).Exec(ctx)
		})
		if err != nil {
			return fmt.Errorf("seeding leads %d-%d: %w", done, done+size, err)
		}
		if progress != nil {
			progress(done + size)
		}
	}
	return s.Optimize(ctx)
}

func seedLead(c *ent.Client, rng *rand.Rand, orgID uuid.UUID, stages []*ent.PipelineStage, at time.Time, i int) *ent.LeadCreate {
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	first, last := pick(seedFirst), pick(seedLast)
	word := pick(seedWords)
	business := word + " " + pick(seedKinds) + " " + pick(seedSuffixes)
	email := fmt.Sprintf("%s.%s%d@%s.example", first, last, i, word)
	return c.Lead.Create().
		SetOrgID(orgID).SetBusinessName(business).
		SetContactFirstName(first).SetContactLastName(last).SetEmail(email).
		SetPhone("+1555" + strconv.Itoa(1000000+rng.IntN(8999999))).
		SetMonthlyRevenue(strconv.Itoa(5000 + rng.IntN(500000))).
		SetRequestedAmount(strconv.Itoa(10000 + rng.IntN(2000000))).
		SetSource(lead.Source(schema.LeadSources[rng.IntN(len(schema.LeadSources))])).
		SetStageID(stages[rng.IntN(len(stages))].ID).
		SetCreatedAt(at).SetUpdatedAt(at)
}
