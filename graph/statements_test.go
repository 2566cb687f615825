package graph_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/leadcount"
	"github.com/lendingpipe/svc/ent/leadday"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/root"
	"github.com/lendingpipe/svc/seed"
)

// boardColumnQuery is a pipeline board's column: a stage's newest leads
// with the stage's total.
const boardColumnQuery = `query($stage: ID!, $first: Int!) {
	leads(first: $first, where: {stageId: $stage}, orderBy: {field: CREATED_AT, direction: DESC}) {
		totalCount edges { node { id businessName requestedAmount priority primaryAdvisorName stage { id stageLabel } } } } }`

// leadPageQuery is a lead's page: the lead, its applications with their
// lenders, its funded deals and its latest calls.
const leadPageQuery = `query($id: ID!) { lead(id: $id) {
	id businessName requestedAmount priority primaryAdvisorName stage { id stageLabel }
	applications { id status requestedAmount lenderName lender { id name } }
	fundedDeals { id fundedAmount fundedAt lender { id name } application { id status } }
	callEvents(first: 20) { totalCount edges { node { id eventType occurredAt } } } } }`

// statementServer is a server over a database whose ent driver counts its
// statements; nothing else (no webhook or automation runner) uses it, so
// the count between two points is what the requests between them ran.
type statementServer struct {
	db  *store.DB
	srv *httptest.Server
	key string
	n   atomic.Int64
}

func newStatementServer(t *testing.T) *statementServer {
	s := &statementServer{}
	s.db = storetest.OpenWithOptions(t, store.Options{WrapDriver: func(d dialect.Driver) dialect.Driver {
		return dialect.DebugWithContext(d, func(context.Context, ...any) { s.n.Add(1) })
	}})
	cfg := rest.Config{RateLimit: 100000, RateWindow: time.Minute, MaxBodyBytes: 1 << 20, Version: "test", Now: time.Now}
	srv := httptest.NewServer(root.Handler(cfg, s.db, slog.New(slog.NewTextHandler(io.Discard, nil))))
	t.Cleanup(srv.Close)
	s.srv = srv
	return s
}

// statements runs query twice and returns how many statements the second
// run ran: the first fills the caches (the key's, the stages' and
// advisors'), which would otherwise count against whichever ran first.
func (s *statementServer) statements(t *testing.T, query string, vars map[string]any) int {
	t.Helper()
	e := &resttest.Env{T: t, Server: s.srv}
	n := 0
	for range 2 {
		s.n.Store(0)
		r := e.Post("/graphql", s.key, map[string]any{"query": query, "variables": vars})
		n = int(s.n.Load())
		if r.Status != http.StatusOK {
			t.Fatalf("status %d: %s", r.Status, r.Raw)
		}
		if code, _ := r.Error(); code != "" {
			t.Fatalf("error %s: %s", code, r.Raw)
		}
	}
	return n
}

// A board column and a lead page run as many statements with one related
// row as with many: no query a row (N+1).
func TestReadsRunNoQueryPerRow(t *testing.T) {
	s := newStatementServer(t)
	ctx := context.Background()
	org, key := resttest.OrgWithKey(t, s.db, "Counted", viewer.AllScopes...)
	s.key = key
	quiet := viewer.WithBulkLoad(ctx)
	if _, err := seed.LeadsWithLending(quiet, s.db, org.ID, 400, nil); err != nil {
		t.Fatal(err)
	}
	agents, err := seed.Agents(quiet, s.db, org.ID, 4)
	if err != nil {
		t.Fatal(err)
	}
	// The calls go to leads with a lending book, so some lead has several
	// of both whatever the seed drew.
	leads, err := s.db.Client.Lead.Query().Where(lead.OrgID(org.ID), lead.HasFundedDeals()).Limit(40).IDs(rule.SystemContext(ctx))
	if err != nil || len(leads) == 0 {
		t.Fatalf("leads with funded deals: %v, %v", leads, err)
	}
	if err := seed.CallEvents(quiet, s.db, org.ID, agents, leads, 300, nil); err != nil {
		t.Fatal(err)
	}
	if err := analytics.RebuildRollups(ctx, s.db.Client, org.ID); err != nil {
		t.Fatal(err)
	}
	few, many := leadsByRelatedRows(t, s.db, org.ID)

	stage := s.db.Client.Lead.GetX(rule.SystemContext(ctx), few).StageID
	board := func(first int) int {
		return s.statements(t, boardColumnQuery, map[string]any{"stage": stage, "first": first})
	}
	if one, page := board(1), board(25); one != page {
		t.Errorf("board column: %d statements for 1 lead, %d for 25", one, page)
	}
	page := func(id uuid.UUID) int { return s.statements(t, leadPageQuery, map[string]any{"id": id}) }
	if one, more := page(few), page(many); one != more {
		t.Errorf("lead page: %d statements with 1 application and call, %d with more", one, more)
	}
}

// leadsByRelatedRows is a lead with one application and one call, and a
// lead with several of each, both with a funded deal.
func leadsByRelatedRows(t *testing.T, db *store.DB, org uuid.UUID) (few, many uuid.UUID) {
	t.Helper()
	sys := rule.SystemContext(context.Background())
	ls, err := db.Client.Lead.Query().Where(lead.OrgID(org), lead.HasFundedDeals(), lead.HasCallEvents()).
		WithApplications().WithCallEvents().All(sys)
	if err != nil {
		t.Fatal(err)
	}
	minN, maxN := 0, 0
	for _, l := range ls {
		n := min(len(l.Edges.Applications), len(l.Edges.CallEvents))
		if n >= 1 && (minN == 0 || len(l.Edges.Applications)+len(l.Edges.CallEvents) < minN) {
			few, minN = l.ID, len(l.Edges.Applications)+len(l.Edges.CallEvents)
		}
		if n > maxN {
			many, maxN = l.ID, n
		}
	}
	if maxN < 2 || few == uuid.Nil {
		t.Fatalf("the seeded book has no lead with several applications and calls (%d)", maxN)
	}
	return few, many
}

// A create of a lead with its event runs a fixed number of statements,
// each a round trip on PostgreSQL: begin, the first stage, the lead, its
// counts (the organization's rollup zone, its day and its stage), the
// outbox event, its history's first entry and the commit. A hook that
// adds a statement to every create makes this fail: the creates' rate on
// PostgreSQL is set by these round trips and the commit.
func TestCreateLeadStatements(t *testing.T) {
	s := newStatementServer(t)
	ctx := context.Background()
	org, key := resttest.OrgWithKey(t, s.db, "Counted", viewer.AllScopes...)
	s.key = key
	// With the rollups built, a create adds to its day as well.
	if err := analytics.RebuildRollups(ctx, s.db.Client, org.ID); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{dialect.Postgres: 9, dialect.SQLite: 9}[s.db.Dialect]
	e := &resttest.Env{T: t, Server: s.srv}
	// The first create fills the key cache. The counter also sees what a
	// background worker runs meanwhile (the outbox's fan-out of an earlier
	// create, on a busy host), so the fewest of the later creates is the
	// create's own count.
	fewest := 0
	for i := range 4 {
		s.n.Store(0)
		// The create lead scenario's body: no stage, so the lead takes its
		// organization's first one.
		r := e.Post("/v1/leads", s.key, map[string]any{"businessName": fmt.Sprintf("Counted %d LLC", i),
			"contactFirstName": "Ana", "contactLastName": "Silva", "email": fmt.Sprintf("ana%d@counted.example", i),
			"requestedAmount": "50000", "source": "api", "tags": []string{"load"}})
		if r.Status != http.StatusCreated {
			t.Fatalf("status %d: %s", r.Status, r.Raw)
		}
		if n := int(s.n.Load()); i > 0 && (fewest == 0 || n < fewest) {
			fewest = n
		}
	}
	if fewest != want {
		t.Errorf("a create on %s: %d statements, want %d", s.db.Dialect, fewest, want)
	}
	n, err := s.db.Client.LeadCount.Query().Where(leadcount.OrgID(org.ID)).Aggregate(ent.Sum(leadcount.FieldN)).Int(rule.SystemContext(ctx))
	if err != nil || n != 4 {
		t.Errorf("stage counts sum to %d (%v), want 4", n, err)
	}
}

// A create counts its lead on the day of the zone the rollups are cut in,
// even when the rollups were rebuilt in another zone since this process
// last read it: the kept days are those a rebuild computes.
func TestCreateLeadCountsItsDayAfterTheZoneChanges(t *testing.T) {
	s := newStatementServer(t)
	ctx := context.Background()
	sys := rule.SystemContext(ctx)
	org, key := resttest.OrgWithKey(t, s.db, "Zoned", viewer.AllScopes...)
	e := &resttest.Env{T: t, Server: s.srv}
	create := func(i int) {
		t.Helper()
		r := e.Post("/v1/leads", key, map[string]any{"businessName": fmt.Sprintf("Zoned %d LLC", i),
			"contactFirstName": "Ana", "contactLastName": "Silva", "requestedAmount": "50000", "source": "api"})
		if r.Status != http.StatusCreated {
			t.Fatalf("status %d: %s", r.Status, r.Raw)
		}
	}
	days := func() map[int]int {
		t.Helper()
		var rows []struct {
			Day   int `json:"day"`
			Leads int `json:"sum"`
		}
		err := s.db.Client.LeadDay.Query().Where(leadday.OrgID(org.ID)).GroupBy(leadday.FieldDay).
			Aggregate(ent.Sum(leadday.FieldLeads)).Scan(sys, &rows)
		if err != nil {
			t.Fatal(err)
		}
		out := map[int]int{}
		for _, r := range rows {
			if r.Leads != 0 {
				out[r.Day] = r.Leads
			}
		}
		return out
	}
	// Zones a day apart at any hour: a lead's day differs between them.
	for i, zone := range []string{"Pacific/Kiritimati", "Pacific/Pago_Pago", "Pacific/Kiritimati"} {
		if err := s.db.Client.Organization.UpdateOneID(org.ID).SetTimezone(zone).Exec(sys); err != nil {
			t.Fatal(err)
		}
		if err := analytics.RebuildRollups(ctx, s.db.Client, org.ID); err != nil {
			t.Fatal(err)
		}
		for j := range 3 {
			create(10*i + j)
		}
		kept := days()
		if err := analytics.RebuildRollups(ctx, s.db.Client, org.ID); err != nil {
			t.Fatal(err)
		}
		if rebuilt := days(); fmt.Sprint(kept) != fmt.Sprint(rebuilt) {
			t.Fatalf("in %s: kept days %v, rebuilt %v", zone, kept, rebuilt)
		}
	}
}
