package loadtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/lendingpipe/svc/ent/organization"
	"github.com/lendingpipe/svc/ent/rule"
	"github.com/lendingpipe/svc/ent/store"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/ent/viewer"
)

const orgName = "Load test"

// fixtures are what the scenarios draw on.
type fixtures struct {
	key       string
	leads     []uuid.UUID
	agents    []uuid.UUID
	leadCount int
}

// prepare finds or seeds the load organization and makes a key for the run.
func prepare(ctx context.Context, cfg Config) (*fixtures, error) {
	db, err := store.Open(ctx, cfg.DatabaseURL, store.Options{})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	sys := rule.SystemContext(ctx)
	org, err := db.Client.Organization.Query().Where(organization.Name(orgName)).First(sys)
	if err != nil {
		if org, _, err = store.CreateOrganization(ctx, db.Client, orgName); err != nil {
			return nil, err
		}
		quiet := viewer.WithBulkLoad(ctx)
		if err := db.SeedLeads(quiet, org.ID, cfg.Leads, nil); err != nil {
			return nil, err
		}
		if _, err := db.SeedAgents(quiet, org.ID, cfg.Agents); err != nil {
			return nil, err
		}
	}
	fx := &fixtures{}
	if fx.key, _, err = store.CreateAPIKey(ctx, db.Client, org.ID, "live", "load test", viewer.AllScopes); err != nil {
		return nil, err
	}
	if fx.leads, err = db.SomeLeadIDs(ctx, org.ID, 5000); err != nil {
		return nil, err
	}
	if fx.agents, err = db.Client.User.Query().Where(user.OrgID(org.ID), user.RoleEQ(user.RoleAgent)).IDs(sys); err != nil {
		return nil, err
	}
	if fx.leadCount, err = db.LeadTotal(ctx, org.ID); err != nil {
		return nil, err
	}
	if len(fx.leads) == 0 || len(fx.agents) == 0 {
		return nil, fmt.Errorf("the load organization needs leads and agents (--leads, --agents)")
	}
	return fx, nil
}

// scenario is one endpoint's traffic.
type scenario struct {
	name     string
	compare  bool // report the ratio to the baseline
	targeter vegeta.Targeter
}

// Searches as a broker types them: a business, a contact, an email. Seeded
// names are combinations of a small vocabulary, so each still matches
// hundreds to thousands of a million leads. broadWords match one lead in
// sixteen each: the worst case, reported on its own.
var (
	searchTerms = []string{"summit dental group", "harbor logistics", "priya tanaka", "omar haddad", "cedar bakery inc",
		"ana.garcia", "zenith plumbing", "kofi okafor"}
	broadWords = []string{"acme", "harbor", "cedar", "maple", "zenith"}
)

func scenarios(fx *fixtures, server, baseline string) []scenario {
	var seq atomic.Int64
	header := http.Header{"Authorization": {"Bearer " + fx.key}, "Content-Type": {"application/json"}}
	lead := func() uuid.UUID { return fx.leads[rand.IntN(len(fx.leads))] }
	agent := func() uuid.UUID { return fx.agents[rand.IntN(len(fx.agents))] }
	target := func(method string, url func() string, body func() string) vegeta.Targeter {
		return func(t *vegeta.Target) error {
			t.Method, t.URL, t.Header = method, url(), header
			t.Body = nil
			if body != nil {
				t.Body = []byte(body())
			}
			return nil
		}
	}
	return []scenario{
		{"baseline", false, target("GET", func() string { return baseline + "/leads/" + lead().String() }, nil)},
		{"get lead", true, target("GET", func() string { return server + "/v1/leads/" + lead().String() }, nil)},
		{"list page 1", false, target("GET", func() string { return server + "/v1/leads?page=1&limit=20" }, nil)},
		{"search", false, target("GET", func() string {
			return server + "/v1/leads?search=" + url.QueryEscape(searchTerms[rand.IntN(len(searchTerms))])
		}, nil)},
		{"search broad word", false, target("GET", func() string {
			return server + "/v1/leads?search=" + url.QueryEscape(broadWords[rand.IntN(len(broadWords))])
		}, nil)},
		{"create lead", false, target("POST", func() string { return server + "/v1/leads" }, func() string {
			n := seq.Add(1)
			return fmt.Sprintf(`{"businessName":"Load %d Logistics LLC","contactFirstName":"Ana","contactLastName":"Silva","email":"ana%d@load.example","requestedAmount":"50000","source":"api","tags":["load"]}`, n, n)
		})},
		{"patch lead", false, target("PATCH", func() string { return server + "/v1/leads/" + lead().String() }, func() string {
			return fmt.Sprintf(`{"industry":"Trucking %d","priority":"high"}`, seq.Add(1)%100)
		})},
		{"dialer event", false, target("POST", func() string { return server + "/v1/dialer/events" }, func() string {
			return fmt.Sprintf(`{"externalCallId":"load-%d","userId":"%s","leadId":"%s","eventType":"call_started","direction":"outbound","occurredAt":"%s"}`,
				seq.Add(1), agent(), lead(), time.Now().UTC().Format(time.RFC3339))
		})},
		{"presence", false, target("POST", func() string { return server + "/v1/dialer/presence" }, func() string {
			statuses := []string{"online", "break", "online", "offline"}
			return fmt.Sprintf(`{"userId":"%s","status":"%s"}`, agent(), statuses[rand.IntN(len(statuses))])
		})},
	}
}
