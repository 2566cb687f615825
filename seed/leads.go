// Package seed fills a database with realistic data: a year of leads, with
// or without the lending book a broker would have built on them, dialer
// agents and their calls (the seed command and load runs), and the demo
// organization a newcomer starts from.
package seed

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/activity"
	"github.com/lendingpipe/svc/ent/agentpresence"
	"github.com/lendingpipe/svc/ent/callevent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/leadcount"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/history"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
)

var (
	seedFirst    = []string{"Ana", "Ben", "Chloe", "Dev", "Eli", "Fatima", "Gus", "Hana", "Ivan", "Jade", "Kofi", "Lena", "Mateo", "Nia", "Omar", "Priya"}
	seedLast     = []string{"Garcia", "Smith", "Nguyen", "Okafor", "Kowalski", "Haddad", "Rossi", "Tanaka", "Murphy", "Silva", "Novak", "Patel"}
	seedWords    = []string{"Acme", "Summit", "Harbor", "Pioneer", "Cedar", "Atlas", "Beacon", "Copper", "Granite", "Maple", "Orbit", "Quarry", "Ridge", "Willow", "Zenith", "Falcon"}
	seedKinds    = []string{"Trucking", "Dental", "Bakery", "Auto Repair", "Logistics", "Construction", "Salon", "Pharmacy", "Landscaping", "Plumbing"}
	seedSuffixes = []string{"LLC", "Inc", "Co", "Group", "& Sons", "Partners"}
)

// seedSpan is how far back seeded leads go: their creation times spread
// evenly over the past year, oldest first, so a lending book seeded with
// them can decide and fund over the year too.
const seedSpan = 365 * 24 * time.Hour

// seedIndustries is the industry of a lead of each of seedKinds.
var seedIndustries = []string{"Trucking", "Dental Practice", "Restaurant & Food", "Auto Repair", "Transportation & Logistics",
	"Construction", "Beauty & Personal Care", "Pharmacy", "Landscaping", "Plumbing & HVAC"}

// Leads inserts n realistic leads into orgID in batched transactions,
// calling progress after each batch with the number inserted so far. The
// random source is seeded, so runs are reproducible.
func Leads(ctx context.Context, db *store.DB, orgID uuid.UUID, n int, progress func(done int)) error {
	_, err := seedLeads(ctx, db, orgID, n, false, progress)
	return err
}

// LeadsWithLending inserts n leads as Leads does and, with them, the
// organization's lending book: a lender panel (the organization's active
// lenders, or a new one of 8 to 15 when it has none), advisors, and for
// about a quarter of the leads their applications, decisions, funded deals,
// commissions and payments, each lead in the stage its lending state puts
// it in (see lending.go). The book is written whole, as the lending
// hooks would have left it, so only a bulk load (viewer.WithBulkLoad) may
// write it.
func LeadsWithLending(ctx context.Context, db *store.DB, orgID uuid.UUID, n int, progress func(done int)) (*LendingSeeded, error) {
	if !viewer.IsBulkLoad(ctx) {
		return nil, errors.New("seeding a lending book needs a bulk load (viewer.WithBulkLoad)")
	}
	return seedLeads(ctx, db, orgID, n, true, progress)
}

func seedLeads(ctx context.Context, db *store.DB, orgID uuid.UUID, n int, lending bool, progress func(done int)) (*LendingSeeded, error) {
	sys, c := rule.SystemContext(ctx), db.Client
	stages, err := c.PipelineStage.Query().Where(pipelinestage.OrgID(orgID)).
		Order(pipelinestage.ByPosition(), pipelinestage.ByID()).All(sys)
	if err != nil {
		return nil, fmt.Errorf("loading the pipeline of %s: %w", orgID, err)
	}
	if len(stages) == 0 {
		// Every organization is created with the default pipeline.
		return nil, fmt.Errorf("organization %s has no pipeline stages (no such organization in this database?)", orgID)
	}
	rng := rand.New(rand.NewPCG(uint64(n), 42))
	now := time.Now().UTC()
	start := now.Add(-seedSpan)
	step := seedSpan / time.Duration(max(n, 1))
	var bk *book
	if lending {
		if bk, err = openBook(ctx, db, orgID, n, stages, start, now); err != nil {
			return nil, err
		}
	}
	// The lead hooks check each lead's stage against the stages read here
	// rather than reading them again (stagesread).
	err = inBatches(leads.WithStagesRead(sys, stages...), c, n, progress, func(ctx context.Context, tx *ent.Client, from, size int) error {
		builders := make([]*ent.LeadCreate, size)
		created := make([]*ent.ActivityCreate, size)
		for i := range builders {
			l := newSeedLead(rng, stages, start.Add(time.Duration(from+i)*step), from+i)
			if bk != nil {
				bk.plan(tx, &l)
			}
			builders[i] = l.create(tx, orgID)
			created[i] = historyEntry(tx, orgID, l.id, history.LeadCreated, l.at, l.id, "Lead created from "+strings.ReplaceAll(string(l.source), "_", " "))
		}
		if !viewer.IsBulkLoad(ctx) {
			// Written as every writer's leads are, with their counts.
			sets := make([][]leads.Set, len(builders))
			for i, b := range builders {
				sets[i] = []leads.Set{leads.Fields(b)}
			}
			_, err := leads.CreateMany(ctx, tx, sets...)
			return err
		}
		if err := tx.Lead.CreateBulk(builders...).Exec(ctx); err != nil {
			return err
		}
		if err := tx.Activity.CreateBulk(created...).Exec(ctx); err != nil {
			return fmt.Errorf("the leads' history: %w", err)
		}
		if bk != nil {
			if err := bk.flush(ctx, tx); err != nil {
				return err
			}
		}
		return tx.LeadCount.Create().SetOrgID(orgID).SetSlot(0).SetN(size).
			OnConflictColumns(leadcount.FieldOrgID, leadcount.FieldStageID, leadcount.FieldSlot).AddN(size).Exec(ctx)
	})
	if err != nil {
		return nil, fmt.Errorf("seeding leads: %w", err)
	}
	if err := db.Optimize(ctx); err != nil {
		return nil, err
	}
	if bk == nil {
		return nil, nil
	}
	return &bk.seeded, nil
}

// seedLead is one generated lead; a lending book fills in what its lending
// state implies (stage, advisor, conversion) before it is written.
type seedLead struct {
	id                 uuid.UUID
	at, updatedAt      time.Time
	first, last, email string
	business, phone    string
	kind               int
	revenue, requested int // whole dollars
	source             lead.Source
	stage              *ent.PipelineStage
	advisor            *uuid.UUID
	convertedAt        *time.Time
	monthsInBusiness   int // 0: not recorded
}

func newSeedLead(rng *rand.Rand, stages []*ent.PipelineStage, at time.Time, i int) seedLead {
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	first, last := pick(seedFirst), pick(seedLast)
	word := pick(seedWords)
	kind := rng.IntN(len(seedKinds))
	business := word + " " + seedKinds[kind] + " " + pick(seedSuffixes)
	l := seedLead{id: uuid.Must(uuid.NewV7()), at: at, updatedAt: at, first: first, last: last, business: business, kind: kind,
		email: fmt.Sprintf("%s.%s%d@%s.example", first, last, i, word)}
	l.phone = "+1555" + strconv.Itoa(1000000+rng.IntN(8999999))
	l.revenue = 5000 + rng.IntN(500000)
	l.requested = 10000 + rng.IntN(2000000)
	l.source = lead.Source(enum.LeadSources[rng.IntN(len(enum.LeadSources))])
	l.stage = stages[rng.IntN(len(stages))]
	return l
}

func (l *seedLead) create(c *ent.Client, orgID uuid.UUID) *ent.LeadCreate {
	b := c.Lead.Create().SetID(l.id).
		SetOrgID(orgID).SetBusinessName(l.business).
		SetContactFirstName(l.first).SetContactLastName(l.last).SetEmail(l.email).
		SetPhone(l.phone).SetIndustry(seedIndustries[l.kind]).
		SetMonthlyRevenue(strconv.Itoa(l.revenue)).
		SetRequestedAmount(strconv.Itoa(l.requested)).
		SetSource(l.source).SetStageID(l.stage.ID).
		SetNillablePrimaryAdvisorID(l.advisor).SetNillableConvertedAt(l.convertedAt).
		SetCreatedAt(l.at).SetUpdatedAt(l.updatedAt)
	if l.monthsInBusiness > 0 {
		b.SetCustomFields(map[string]any{"monthsInBusiness": l.monthsInBusiness})
	}
	return b
}

// Agents creates m dialer agents of orgID in four teams, each with a
// presence, and returns their ids.
func Agents(ctx context.Context, db *store.DB, orgID uuid.UUID, m int) ([]uuid.UUID, error) {
	sys := rule.SystemContext(ctx)
	statuses := enum.PresenceStatuses
	ids := make([]uuid.UUID, 0, m)
	now := time.Now().UTC()
	for i := range m {
		u, err := store.CreateUser(ctx, db.Client, store.UserSpec{OrgID: orgID, First: seedFirst[i%len(seedFirst)],
			Last: seedLast[i%len(seedLast)] + strconv.Itoa(i), Email: fmt.Sprintf("agent%d.%s@seed.example", i, orgID.String()[:8]),
			Role: "agent", Team: "Floor " + strconv.Itoa(i%4+1)})
		if err != nil {
			return nil, fmt.Errorf("seeding agent %d: %w", i, err)
		}
		err = db.Client.AgentPresence.Create().SetOrgID(orgID).SetUserID(u.ID).
			SetStatus(agentpresence.Status(statuses[i%len(statuses)])).SetStatusChangedAt(now).Exec(sys)
		if err != nil {
			return nil, fmt.Errorf("seeding agent %d's presence: %w", i, err)
		}
		ids = append(ids, u.ID)
	}
	return ids, nil
}

// CallEvents records about k call events of the given agents over the
// past year, a third of the calls on one of leads, in batched
// transactions. A call starts on a weekday in business hours of the
// organization's zone and has several events: started, answered (most),
// ended with the talk time, and usually a disposition a minute or two
// later.
func CallEvents(ctx context.Context, db *store.DB, orgID uuid.UUID, agents, leads []uuid.UUID, k int, progress func(done int)) error {
	if len(agents) == 0 {
		return fmt.Errorf("seeding call events: no agents")
	}
	sys, c := rule.SystemContext(ctx), db.Client
	org, err := c.Organization.Get(sys, orgID)
	if err != nil {
		return fmt.Errorf("seeding call events: %w", err)
	}
	loc, err := time.LoadLocation(org.Timezone)
	if err != nil {
		loc = time.UTC
	}
	rng := rand.New(rand.NewPCG(uint64(k), 7))
	now := time.Now()
	var queue []*seedCall // events of a call not yet written
	call := 0
	err = inBatches(sys, c, k, progress, func(ctx context.Context, tx *ent.Client, from, size int) error {
		builders := make([]*ent.CallEventCreate, 0, size)
		for len(builders) < size {
			if len(queue) == 0 {
				queue = seedCallEvents(rng, call, now, loc, agents, leads)
				call++
			}
			e := queue[0]
			queue = queue[1:]
			b := tx.CallEvent.Create().SetOrgID(orgID).SetUserID(e.agent).SetExternalCallID(e.call).
				SetEventType(e.typ).SetOccurredAt(e.at).SetNillableLeadID(e.lead).
				SetNillableDurationSeconds(e.duration).SetNillableDisposition(e.disposition)
			builders = append(builders, b)
		}
		return tx.CallEvent.CreateBulk(builders...).Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("seeding call events: %w", err)
	}
	return nil
}

// seedCall is one seeded call event.
type seedCall struct {
	call        string
	agent       uuid.UUID
	lead        *uuid.UUID
	typ         callevent.EventType
	at          time.Time
	duration    *int
	disposition *string
}

var seedDispositions = []string{"interested", "callback", "callback", "not_interested", "no_answer", "voicemail", "wrong_number"}

// seedCallEvents are the events of the n-th seeded call.
func seedCallEvents(rng *rand.Rand, n int, now time.Time, loc *time.Location, agents, leads []uuid.UUID) []*seedCall {
	var start time.Time
	for {
		day := now.In(loc).AddDate(0, 0, -rng.IntN(365))
		if wd := day.Weekday(); wd == time.Saturday || wd == time.Sunday {
			continue
		}
		y, m, d := day.Date()
		start = time.Date(y, m, d, 9, 0, 0, 0, loc).Add(time.Duration(rng.Int64N(int64(8*time.Hour + 30*time.Minute))))
		if start.Before(now) {
			break
		}
	}
	base := seedCall{call: "seed-" + strconv.Itoa(n), agent: agents[rng.IntN(len(agents))]}
	if len(leads) > 0 && rng.IntN(3) == 0 {
		base.lead = &leads[rng.IntN(len(leads))]
	}
	event := func(typ callevent.EventType, at time.Time) *seedCall {
		e := base
		e.typ, e.at = typ, at.UTC()
		return &e
	}
	at := start
	out := []*seedCall{event(callevent.EventTypeCallStarted, at)}
	talk := 0
	at = at.Add(time.Duration(5+rng.IntN(25)) * time.Second)
	if rng.IntN(10) < 7 {
		out = append(out, event(callevent.EventTypeCallAnswered, at))
		talk = 30 + rng.IntN(900)
	}
	at = at.Add(time.Duration(talk) * time.Second)
	ended := event(callevent.EventTypeCallEnded, at)
	ended.duration = &talk
	out = append(out, ended)
	if rng.IntN(10) < 8 {
		d := event(callevent.EventTypeDisposition, at.Add(time.Duration(10+rng.IntN(110))*time.Second))
		code := seedDispositions[rng.IntN(len(seedDispositions))]
		d.disposition = &code
		out = append(out, d)
	}
	return out
}

// inBatches runs fill over n items in transactions of at most 1,000,
// reporting the number done after each.
func inBatches(ctx context.Context, c *ent.Client, n int, progress func(done int),
	fill func(ctx context.Context, tx *ent.Client, from, size int) error) error {
	const batch = 1000
	for done := 0; done < n; done += batch {
		size := min(batch, n-done)
		err := store.WithTx(ctx, c, func(ctx context.Context, tx *ent.Client) error { return fill(ctx, tx, done, size) })
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
func SomeLeadIDs(ctx context.Context, db *store.DB, orgID uuid.UUID, n int) ([]uuid.UUID, error) {
	return db.Client.Lead.Query().Where(lead.OrgID(orgID)).Limit(n).IDs(rule.SystemContext(ctx))
}

// historyEntry is one entry of a seeded lead's history: what the flows
// write for the same change, by the service (the seeder has no viewer).
func historyEntry(tx *ent.Client, org, lead uuid.UUID, kind string, at time.Time, record uuid.UUID, summary string) *ent.ActivityCreate {
	return tx.Activity.Create().SetOrgID(org).SetLeadID(lead).SetKind(kind).SetAt(at).
		SetActorType(activity.ActorTypeSystem).SetRecordID(record).SetSummary(summary)
}
