package seed_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/commission"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/organization"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/seed"
)

// The demo organization is usable at once: advisors and agents in a team,
// leads across the pipeline (some assigned), a lending book, and a key
// holding every scope.
// Asking for it again changes nothing.
func TestCreateDemo(t *testing.T) {
	ctx := context.Background()
	sys := rule.SystemContext(ctx)
	db := storetest.Open(t)
	demo, err := seed.CreateDemo(ctx, db)
	if err != nil || demo == nil {
		t.Fatalf("CreateDemo: %+v, %v", demo, err)
	}
	orgID := uuid.MustParse(demo.OrgID)

	v, err := (&store.KeyCache{}).Authenticate(ctx, db.Client, demo.APIKey, time.Now())
	if err != nil || v.OrgID != orgID {
		t.Fatalf("the demo key does not authenticate for its organization: %+v, %v", v, err)
	}
	for _, s := range viewer.AllScopes {
		if !slices.Contains(v.Scopes, s) {
			t.Errorf("the demo key lacks %s", s)
		}
	}
	if _, err := store.OrgByConnectorToken(ctx, db.Client, demo.ConnectorToken); err != nil {
		t.Errorf("the demo connector token: %v", err)
	}

	users := db.Client.User.Query().Where(user.OrgID(orgID))
	advisors, _ := users.Clone().Where(user.RoleEQ(user.RoleAdvisor), user.TeamIDNotNil()).Count(sys)
	agents, _ := users.Clone().Where(user.RoleEQ(user.RoleAgent), user.TeamIDNotNil()).Count(sys)
	if advisors < 2 || agents < 2 || advisors != demo.Advisors || agents != demo.Agents {
		t.Errorf("%d advisors and %d agents in a team (reported %d and %d), want at least 2 of each", advisors, agents, demo.Advisors, demo.Agents)
	}
	leads, err := db.Client.Lead.Query().Where(lead.OrgID(orgID)).WithStage().All(sys)
	if err != nil {
		t.Fatal(err)
	}
	stages, assigned := map[string]bool{}, 0
	for _, l := range leads {
		stages[l.Edges.Stage.StageKey] = true
		if l.PrimaryAdvisorID != nil {
			assigned++
		}
	}
	if len(leads) != demo.Leads || len(stages) < 5 || assigned < 3 || assigned == len(leads) {
		t.Errorf("%d leads (reported %d) in %d stages, %d assigned: want several stages, some assigned and some not",
			len(leads), demo.Leads, len(stages), assigned)
	}
	if total, err := db.LeadTotal(ctx, orgID); err != nil || total != len(leads) {
		t.Errorf("lead total %d, %v; want %d (the leads were written through the hooks)", total, err, len(leads))
	}

	// A small lending book, built through the lending flows: their rules
	// hold, their events were written, every status is there.
	b, err := readBook(ctx, db, orgID)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range b.violations(time.Now()) {
		t.Error(v)
	}
	statuses := map[application.Status]int{}
	for _, a := range b.apps {
		statuses[a.Status]++
	}
	if len(b.lenders) != demo.Lenders || len(b.apps) != demo.Applications || len(b.deals) != demo.Deals ||
		demo.Lenders < 2 || len(statuses) != 6 || demo.Deals != 1 {
		t.Errorf("%d lenders, applications %v, %d deals (reported %d, %d, %d): want a few lenders, every status, one deal",
			len(b.lenders), statuses, len(b.deals), demo.Lenders, demo.Applications, demo.Deals)
	}
	for _, cm := range b.commissions {
		if cm.Status != commission.StatusPartiallyPaid || len(b.payments[cm.ID]) != 1 {
			t.Errorf("the demo commission is %s with %d payments; want partly paid", cm.Status, len(b.payments[cm.ID]))
		}
	}
	for _, e := range []string{"application.submitted", "application.approved", "application.declined", "deal.funded", "deal.commission_paid"} {
		if n, _ := db.Client.WebhookEvent.Query().Where(webhookevent.OrgID(orgID), webhookevent.EventType(e)).Count(sys); n == 0 {
			t.Errorf("no %s event", e)
		}
	}
	if total, err := db.LenderDealTotal(ctx, orgID, b.deals[0].LenderID, nil, nil); err != nil || total != 1 {
		t.Errorf("the deal's lender total %d, %v; want 1 (the funding counted it)", total, err)
	}

	again, err := seed.CreateDemo(ctx, db)
	if err != nil || again != nil {
		t.Fatalf("second CreateDemo: %+v, %v; want nothing made", again, err)
	}
	if n, _ := db.Client.Organization.Query().Where(organization.Name(seed.DemoOrgName)).Count(sys); n != 1 {
		t.Errorf("%d demo organizations after asking twice", n)
	}
}

// Seeding an organization the database does not hold names the cause.
func TestSeedUnknownOrganization(t *testing.T) {
	db := storetest.Open(t)
	id := uuid.New()
	err := seed.Leads(context.Background(), db, id, 10, nil)
	if err == nil || !strings.Contains(err.Error(), id.String()) || strings.Contains(err.Error(), "<nil>") {
		t.Fatalf("Leads for an unknown organization: %v; want an error naming it and its cause", err)
	}
}

// Replicas starting at once, each with its own connections, make one demo
// organization between them.
func TestCreateDemoOnceAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	url := storetest.URL(t)
	const replicas = 4
	dbs := make([]*store.DB, replicas)
	for i := range dbs {
		db, err := store.Open(ctx, url, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs[i] = db
	}
	made := make(chan bool, replicas)
	start := make(chan struct{})
	for _, db := range dbs {
		go func() {
			<-start
			demo, err := seed.CreateDemo(ctx, db)
			if err != nil {
				t.Errorf("CreateDemo: %v", err)
			}
			made <- demo != nil
		}()
	}
	close(start)
	created := 0
	for range replicas {
		if <-made {
			created++
		}
	}
	n, err := dbs[0].Client.Organization.Query().Where(organization.Name(seed.DemoOrgName)).Count(rule.SystemContext(ctx))
	if err != nil || n != 1 || created != 1 {
		t.Fatalf("%d demo organizations, %d replicas said they made one (%v); want 1 and 1", n, created, err)
	}
}
