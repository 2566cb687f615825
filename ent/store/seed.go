package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/agentpresence"
	"github.com/lendingpipe/svc/ent/callevent"
	"github.com/lendingpipe/svc/ent/enum"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/leadcount"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/ent/rule"
	"github.com/lendingpipe/svc/ent/viewer"
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
	if err != nil {
		return fmt.Errorf("loading the pipeline of %s: %w", orgID, err)
	}
	if len(stages) == 0 {
		// Every organization is created with the default pipeline.
		return fmt.Errorf("organization %s has no pipeline stages (no such organization in this database?)", orgID)
	}
	rng := rand.New(rand.NewPCG(uint64(n), 42))
	start := time.Now().UTC().Add(-time.Duration(n) * time.Second)
	err = inBatches(sys, c, n, progress, func(ctx context.Context, tx *ent.Client, from, size int) error {
		builders := make([]*ent.LeadCreate, size)
		for i := range builders {
			builders[i] = seedLead(tx, rng, orgID, stages, start.Add(time.Duration(from+i)*time.Second), from+i)
		}
		if err := tx.Lead.CreateBulk(builders...).Exec(ctx); err != nil {
			return err
		}
		if !viewer.IsBulkLoad(ctx) {
			return nil // the lead hooks counted them
		}
		return tx.LeadCount.Create().SetOrgID(orgID).SetSlot(0).SetN(size).
			OnConflictColumns(leadcount.FieldOrgID, leadcount.FieldSlot).AddN(size).Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("seeding leads: %w", err)
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
		SetSource(lead.Source(enum.LeadSources[rng.IntN(len(enum.LeadSources))])).
		SetStageID(stages[rng.IntN(len(stages))].ID).
		SetCreatedAt(at).SetUpdatedAt(at)
}

// SeedAgents creates m dialer agents of orgID in four teams, each with a
// presence, and returns their ids.
func (s *DB) SeedAgents(ctx context.Context, orgID uuid.UUID, m int) ([]uuid.UUID, error) {
	sys := rule.SystemContext(ctx)
	statuses := enum.PresenceStatuses
	ids := make([]uuid.UUID, 0, m)
	now := time.Now().UTC()
	for i := range m {
		u, err := CreateUser(ctx, s.Client, UserSpec{OrgID: orgID, First: seedFirst[i%len(seedFirst)],
			Last: seedLast[i%len(seedLast)] + strconv.Itoa(i), Email: fmt.Sprintf("agent%d.%s@seed.example", i, orgID.String()[:8]),
			Role: "agent", Team: "Floor " + strconv.Itoa(i%4+1)})
		if err != nil {
			return nil, fmt.Errorf("seeding agent %d: %w", i, err)
		}
		err = s.Client.AgentPresence.Create().SetOrgID(orgID).SetUserID(u.ID).
			SetStatus(agentpresence.Status(statuses[i%len(statuses)])).SetStatusChangedAt(now).Exec(sys)
		if err != nil {
			return nil, fmt.Errorf("seeding agent %d's presence: %w", i, err)
		}
		ids = append(ids, u.ID)
	}
	return ids, nil
}

// SeedCallEvents records k call events of the given agents over the last
// day, a third of them on one of leads, in batched transactions.
func (s *DB) SeedCallEvents(ctx context.Context, orgID uuid.UUID, agents, leads []uuid.UUID, k int, progress func(done int)) error {
	if len(agents) == 0 {
		return fmt.Errorf("seeding call events: no agents")
	}
	sys, c := rule.SystemContext(ctx), s.Client
	rng := rand.New(rand.NewPCG(uint64(k), 7))
	start := time.Now().UTC().Add(-24 * time.Hour)
	err := inBatches(sys, c, k, progress, func(ctx context.Context, tx *ent.Client, from, size int) error {
		builders := make([]*ent.CallEventCreate, size)
		for i := range builders {
			n := from + i
			b := tx.CallEvent.Create().SetOrgID(orgID).SetUserID(agents[rng.IntN(len(agents))]).
				SetExternalCallID("seed-" + strconv.Itoa(n/3)).
				SetEventType(callevent.EventType(enum.CallEventTypes[n%3])).
				SetOccurredAt(start.Add(time.Duration(rng.IntN(86400)) * time.Second))
			if len(leads) > 0 && n%3 == 0 {
				b.SetLeadID(leads[rng.IntN(len(leads))])
			}
			builders[i] = b
		}
		return tx.CallEvent.CreateBulk(builders...).Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("seeding call events: %w", err)
	}
	return nil
}

// inBatches runs fill over n items in transactions of at most 1,000,
// reporting the number done after each.
func inBatches(ctx context.Context, c *ent.Client, n int, progress func(done int),
	fill func(ctx context.Context, tx *ent.Client, from, size int) error) error {
	const batch = 1000
	for done := 0; done < n; done += batch {
		size := min(batch, n-done)
		err := WithTx(ctx, c, func(ctx context.Context, tx *ent.Client) error { return fill(ctx, tx, done, size) })
		if err != nil {
			return fmt.Errorf("items %d-%d: %w", done, done+size, err)
		}
		if progress != nil {
			progress(done + size)
		}
	}
	return nil
}

// SomeLeadIDs returns up to n lead ids of orgID, for seeding and load runs.
func (s *DB) SomeLeadIDs(ctx context.Context, orgID uuid.UUID, n int) ([]uuid.UUID, error) {
	return s.Client.Lead.Query().Where(lead.OrgID(orgID)).Limit(n).IDs(rule.SystemContext(ctx))
}
