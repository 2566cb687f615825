package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/lendingpipe/svc/analytics"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/lender"
	"github.com/lendingpipe/svc/ent/organization"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/seed"
)

const orgName = "Load test"

// fixtures are what the scenarios draw on.
type fixtures struct {
	key       string
	leads     []uuid.UUID
	agents    []uuid.UUID
	leadCount int
	// The lending book: leads with applications, and the lenders.
	appliedLeads []uuid.UUID
	lenders      []uuid.UUID
	// The pipeline's stages, for the board's columns.
	stages []uuid.UUID
}

// prepare finds or seeds the load organization and makes a key for the run.
func prepare(ctx context.Context, cfg Config) (*fixtures, error) {
	db, err := store.Open(ctx, cfg.DatabaseURL, store.Options{Bus: store.BusMemory}) // fixtures only: no server hears them
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
		if _, err := seed.LeadsWithLending(quiet, db, org.ID, cfg.Leads, nil); err != nil {
			return nil, err
		}
		if _, err := seed.Agents(quiet, db, org.ID, cfg.Agents); err != nil {
			return nil, err
		}
		if err := analytics.RebuildRollups(ctx, db.Client, org.ID); err != nil {
			return nil, err
		}
	}
	fx := &fixtures{}
	if fx.key, _, err = store.CreateAPIKey(ctx, db.Client, org.ID, "live", "load test", viewer.AllScopes); err != nil {
		return nil, err
	}
	if fx.leads, err = seed.SomeLeadIDs(ctx, db, org.ID, 5000); err != nil {
		return nil, err
	}
	if fx.agents, err = db.Client.User.Query().Where(user.OrgID(org.ID), user.RoleEQ(user.RoleAgent)).IDs(sys); err != nil {
		return nil, err
	}
	if fx.leadCount, err = db.LeadTotal(ctx, org.ID); err != nil {
		return nil, err
	}
	apps, err := db.Client.Application.Query().Where(application.OrgID(org.ID)).Limit(5000).All(sys)
	if err != nil {
		return nil, err
	}
	for _, a := range apps {
		fx.appliedLeads = append(fx.appliedLeads, a.LeadID)
	}
	if fx.lenders, err = db.Client.Lender.Query().Where(lender.OrgID(org.ID)).IDs(sys); err != nil {
		return nil, err
	}
	if fx.stages, err = db.Client.PipelineStage.Query().Where(pipelinestage.OrgID(org.ID)).IDs(sys); err != nil {
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
	graphql  bool // an answer with GraphQL errors counts as an error
	targeter vegeta.Targeter
}

// The lending lists are named by their REST paths. Config.LendingVia says
// whether they are asked there or through the GraphQL fields the REST
// routes translate onto (applicationsPage, fundedDealsPage), with the same
// arguments and every attribute a REST answer carries.
const (
	applicationsByLead = "GET /v1/applications?leadId="
	dealsByLender      = "GET /v1/funded-deals?lenderId=&fundedFrom="
)

const (
	applicationsPageQuery = `query($leadId: ID!) { applicationsPage(leadId: $leadId, page: 1, limit: 20) { total page limit hasMore nodes {
		id leadId lenderId lenderName status product requestedAmount submittedAt submittedBy externalRef decidedAt approvedAmount
		interestRate rateType termMonths paymentFrequency conditions declineReason declineCategory withdrawnReason warnings
		fundedDealId createdAt updatedAt } } }`
	fundedDealsPageQuery = `query($lenderId: ID!, $fundedFrom: Time!) { fundedDealsPage(lenderId: $lenderId, fundedFrom: $fundedFrom, page: 1, limit: 20) {
		total page limit hasMore nodes { id applicationId leadId lenderId lenderName advisorId fundedAmount interestRate rateType
		termMonths paymentFrequency paybackAmount expectedCommission commissionId fundedAt createdAt updatedAt } } }`
)

// The dashboard's reads: a pipeline board's column (a stage's 25 newest
// leads and its total) and a lead's page (the lead with its applications,
// deals and latest calls).
const (
	boardColumnQuery = `query($stage: ID!) { leads(first: 25, where: {stageId: $stage}, orderBy: {field: CREATED_AT, direction: DESC}) {
		totalCount edges { node { id businessName requestedAmount priority primaryAdvisorName } } } }`
	leadPageQuery = `query($id: ID!) { lead(id: $id) {
		id businessName contactFirstName contactLastName email phone requestedAmount priority tags primaryAdvisorName
		stage { id stageLabel color }
		applications { id status product requestedAmount lenderName submittedAt decidedAt approvedAmount }
		fundedDeals { id lenderName fundedAmount expectedCommission fundedAt }
		callEvents(first: 10, orderBy: {field: OCCURRED_AT, direction: DESC}) { totalCount edges { node { id eventType direction disposition occurredAt } } } } }`
	// A lead's history as its page first shows it: 20 newest entries.
	leadActivityQuery = `query($id: ID!) { lead(id: $id) { activity(first: 20) { totalCount pageInfo { hasNextPage endCursor }
		edges { node { id at kind summary recordId actor { type id name } changes { field from to } } } } } }`
	// A lead's approved offers side by side, as its lending section reads them.
	leadOffersQuery = `query($id: ID!) { lead(id: $id) { offers { applicationId lenderId lenderName approvedAmount rateType interestRate
		termMonths paymentFrequency paybackAmount payments paymentAmount costOfCapital readyToFund } } }`
	// The renewal queue's first page, as the Renewals screen reads it.
	renewalQueueQuery = `{ renewalQueue(page: 1, limit: 20) { total hasMore nodes { dealId leadId businessName lenderId lenderName
		advisorId fundedAmount fundedAt renewalEligibleAt } } }`
)

// dashboardScenarios are the board column and the lead page, over GraphQL.
func dashboardScenarios(fx *fixtures, server string, target func(string, func() string, func() string) vegeta.Targeter) []scenario {
	if len(fx.stages) == 0 {
		return nil
	}
	graphql := func() string { return server + "/graphql" }
	pageLeads := fx.appliedLeads
	if len(pageLeads) == 0 {
		pageLeads = fx.leads
	}
	return []scenario{
		{name: "board column", graphql: true, targeter: target("POST", graphql, func() string {
			return graphqlBody(boardColumnQuery, map[string]any{"stage": fx.stages[rand.IntN(len(fx.stages))]})
		})},
		{name: "lead page", graphql: true, targeter: target("POST", graphql, func() string {
			return graphqlBody(leadPageQuery, map[string]any{"id": pageLeads[rand.IntN(len(pageLeads))]})
		})},
		{name: "lead activity", graphql: true, targeter: target("POST", graphql, func() string {
			return graphqlBody(leadActivityQuery, map[string]any{"id": pageLeads[rand.IntN(len(pageLeads))]})
		})},
		{name: "lead offers", graphql: true, targeter: target("POST", graphql, func() string {
			return graphqlBody(leadOffersQuery, map[string]any{"id": pageLeads[rand.IntN(len(pageLeads))]})
		})},
		{name: "renewal queue", graphql: true, targeter: target("POST", graphql, func() string {
			return graphqlBody(renewalQueueQuery, nil)
		})},
	}
}

// graphqlBody is a POST /graphql body.
func graphqlBody(query string, vars map[string]any) string {
	raw, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	return string(raw)
}

// Searches as a broker types them: a business, a contact, an email. Seeded
// names are combinations of a small vocabulary, so each still matches
// hundreds to thousands of a million leads. broadWords match one lead in
// sixteen each: the worst case, reported on its own.
var (
	searchTerms = []string{"summit dental group", "harbor logistics", "priya tanaka", "omar haddad", "cedar bakery inc",
		"ana.garcia", "zenith plumbing", "kofi okafor"}
	broadWords = []string{"acme", "harbor", "cedar", "maple", "zenith"}
	// prefixes are a word as it is being typed: each begins one or two of
	// the vocabulary's words, so matches one lead in sixteen to one in six.
	prefixes = []string{"ced", "harb", "ma", "pa", "sum"}
)

// scenarios are the runs against servers (requests go to each in turn;
// the scenarios name the first) and the baseline.
func scenarios(fx *fixtures, servers []string, baseline, lendingVia string) []scenario {
	var seq, turn atomic.Int64
	server := servers[0]
	header := http.Header{"Authorization": {"Bearer " + fx.key}, "Content-Type": {"application/json"}}
	lead := func() uuid.UUID { return fx.leads[rand.IntN(len(fx.leads))] }
	agent := func() uuid.UUID { return fx.agents[rand.IntN(len(fx.agents))] }
	target := func(method string, url func() string, body func() string) vegeta.Targeter {
		return func(t *vegeta.Target) error {
			t.Method, t.URL, t.Header = method, url(), header
			if path, ok := strings.CutPrefix(t.URL, server); ok && len(servers) > 1 {
				t.URL = servers[turn.Add(1)%int64(len(servers))] + path
			}
			t.Body = nil
			if body != nil {
				t.Body = []byte(body())
			}
			return nil
		}
	}
	all := []scenario{
		{name: "baseline", targeter: target("GET", func() string { return baseline + "/leads/" + lead().String() }, nil)},
		{name: "get lead", compare: true, targeter: target("GET", func() string { return server + "/v1/leads/" + lead().String() }, nil)},
		{name: "list page 1", targeter: target("GET", func() string { return server + "/v1/leads?page=1&limit=20" }, nil)},
		{name: "search", targeter: target("GET", func() string {
			return server + "/v1/leads?search=" + url.QueryEscape(searchTerms[rand.IntN(len(searchTerms))])
		}, nil)},
		{name: "search broad word", targeter: target("GET", func() string {
			return server + "/v1/leads?search=" + url.QueryEscape(broadWords[rand.IntN(len(broadWords))])
		}, nil)},
		{name: "search rare word", targeter: target("GET", func() string {
			// A seeded email's number: it and the numbers it begins, about ten leads.
			return server + "/v1/leads?search=" + strconv.Itoa(10000+rand.IntN(90000))
		}, nil)},
		{name: "search prefix", targeter: target("GET", func() string {
			return server + "/v1/leads?search=" + prefixes[rand.IntN(len(prefixes))]
		}, nil)},
		{name: "lender matches", targeter: target("GET", func() string {
			return server + "/v1/leads/" + lead().String() + "/lender-matches"
		}, nil)},
		{name: "create lead", targeter: target("POST", func() string { return server + "/v1/leads" }, func() string {
			n := seq.Add(1)
			return fmt.Sprintf(`{"businessName":"Load %d Logistics LLC","contactFirstName":"Ana","contactLastName":"Silva","email":"ana%d@load.example","requestedAmount":"50000","source":"api","tags":["load"]}`, n, n)
		})},
		{name: "patch lead", targeter: target("PATCH", func() string { return server + "/v1/leads/" + lead().String() }, func() string {
			return fmt.Sprintf(`{"industry":"Trucking %d","priority":"high"}`, seq.Add(1)%100)
		})},
		{name: "dialer event", targeter: target("POST", func() string { return server + "/v1/dialer/events" }, func() string {
			return fmt.Sprintf(`{"externalCallId":"load-%d","userId":"%s","leadId":"%s","eventType":"call_started","direction":"outbound","occurredAt":"%s"}`,
				seq.Add(1), agent(), lead(), time.Now().UTC().Format(time.RFC3339))
		})},
		{name: "presence", targeter: target("POST", func() string { return server + "/v1/dialer/presence" }, func() string {
			statuses := []string{"online", "break", "online", "offline"}
			return fmt.Sprintf(`{"userId":"%s","status":"%s"}`, agent(), statuses[rand.IntN(len(statuses))])
		})},
	}
	all = append(all, dashboardScenarios(fx, server, target)...)
	all = append(all, lendingScenarios(fx, server, lendingVia, target)...)
	return append(all, analyticsScenarios(server, target)...)
}

// analyticsReports are the reports the analytics scenarios ask for.
var analyticsReports = []string{"pipeline", "funding", "lenders", "commissions", "dialer"}

// analyticsScenarios ask each report for the organization's last twelve
// months, by month and by day, as a broker's morning dashboard does.
func analyticsScenarios(server string, target func(string, func() string, func() string) vegeta.Targeter) []scenario {
	var out []scenario
	for _, interval := range []string{"month", "day"} {
		for _, report := range analyticsReports {
			out = append(out, scenario{name: "analytics " + report + " by " + interval, targeter: target("GET", func() string {
				today := time.Now().UTC()
				return server + "/v1/analytics/" + report + "?interval=" + interval +
					"&from=" + today.AddDate(0, 0, -364).Format(time.DateOnly) + "&to=" + today.Format(time.DateOnly)
			}, nil)})
		}
	}
	return out
}

// lendingScenarios read the lending book: a shopped lead's applications
// (the lead page), and a lender's deals funded since a day of the past year
// (a lender statement), with the exact total of each.
func lendingScenarios(fx *fixtures, server, via string, target func(string, func() string, func() string) vegeta.Targeter) []scenario {
	if len(fx.appliedLeads) == 0 || len(fx.lenders) == 0 {
		return nil
	}
	appliedLead := func() uuid.UUID { return fx.appliedLeads[rand.IntN(len(fx.appliedLeads))] }
	pickLender := func() uuid.UUID { return fx.lenders[rand.IntN(len(fx.lenders))] }
	since := func() string {
		return time.Now().UTC().AddDate(0, 0, -1-rand.IntN(365)).Truncate(24 * time.Hour).Format(time.RFC3339)
	}
	if via != ViaGraphQL {
		return []scenario{
			{name: applicationsByLead, targeter: target("GET", func() string {
				return server + "/v1/applications?leadId=" + appliedLead().String()
			}, nil)},
			{name: dealsByLender, targeter: target("GET", func() string {
				return server + "/v1/funded-deals?lenderId=" + pickLender().String() + "&fundedFrom=" + url.QueryEscape(since())
			}, nil)},
		}
	}
	graphql := func() string { return server + "/graphql" }
	return []scenario{
		{name: applicationsByLead, graphql: true, targeter: target("POST", graphql, func() string {
			return graphqlBody(applicationsPageQuery, map[string]any{"leadId": appliedLead()})
		})},
		{name: dealsByLender, graphql: true, targeter: target("POST", graphql, func() string {
			return graphqlBody(fundedDealsPageQuery, map[string]any{"lenderId": pickLender(), "fundedFrom": since()})
		})},
	}
}
