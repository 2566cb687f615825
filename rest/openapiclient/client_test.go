package openapiclient_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/openapiclient"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks/webhookstest"
)

// The committed snapshot the client was generated from is the document the
// server serves, so the client is generated from the truth.
func TestSnapshotIsServed(t *testing.T) {
	snapshot, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	served, err := rest.OpenAPIDocument()
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := json.Compact(&a, snapshot); err != nil {
		t.Fatal(err)
	}
	if err := json.Compact(&b, served); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("openapi.json is stale: run go generate ./...")
	}
}

// A client generated from the document creates, reads, patches and lists a
// lead against a live server (which checks each exchange against the
// document as well).
func TestGeneratedClient(t *testing.T) {
	e := resttest.New(t)
	c := authedClient(t, e)
	ctx := context.Background()
	name, amount := "Harbor Freight Co", "75000.50"
	email := openapi_types.Email("ops@harbor.example")
	tags := []string{"vip"}
	key := "client-test-1"
	created, err := c.CreateLeadWithResponse(ctx, &openapiclient.CreateLeadParams{IdempotencyKey: &key}, openapiclient.LeadCreate{
		BusinessName: &name, Email: &email, RequestedAmount: &amount, Tags: &tags,
	})
	if err != nil {
		t.Fatal(err)
	}
	if created.JSON201 == nil {
		t.Fatalf("create: %d %s", created.StatusCode(), created.Body)
	}
	lead := created.JSON201.Data
	if *lead.Attributes.BusinessName != name || *lead.Attributes.Email != string(email) || *lead.Attributes.RequestedAmount != amount {
		t.Fatalf("created lead = %+v", lead.Attributes)
	}

	got, err := c.GetLeadWithResponse(ctx, lead.Id, nil)
	if err != nil || got.JSON200 == nil {
		t.Fatalf("get: %v %s", err, got.Body)
	}
	if got.JSON200.Data.Attributes.Stage.StageKey == "" || got.JSON200.Data.Attributes.Tags[0] != "vip" {
		t.Fatalf("got %+v", got.JSON200.Data.Attributes)
	}

	priority := openapiclient.LeadPriorityOrNull("urgent")
	industry := "Logistics"
	patched, err := c.UpdateLeadWithResponse(ctx, lead.Id, nil, openapiclient.LeadPatch{Priority: &priority, Industry: &industry})
	if err != nil || patched.JSON200 == nil {
		t.Fatalf("patch: %v %s", err, patched.Body)
	}
	if a := patched.JSON200.Data.Attributes; a.Priority != "urgent" || *a.Industry != industry || *a.BusinessName != name {
		t.Fatalf("patched %+v", a)
	}

	search := "harbor"
	list, err := c.ListLeadsWithResponse(ctx, &openapiclient.ListLeadsParams{Search: &search})
	if err != nil || list.JSON200 == nil {
		t.Fatalf("list: %v %s", err, list.Body)
	}
	if list.JSON200.Meta.Total != 1 || list.JSON200.Data[0].Id != lead.Id {
		t.Fatalf("list = %+v", list.JSON200)
	}

	missing, err := c.GetLeadWithResponse(ctx, [16]byte{1}, nil)
	if err != nil || missing.JSON404 == nil || missing.JSON404.Errors[0].Code != "NOT_FOUND" {
		t.Fatalf("missing lead: %v %d %s", err, missing.StatusCode(), missing.Body)
	}
}

// Every operation of the document, whatever its tag, has its method in the
// generated client: the client is generated from the whole document.
func TestEveryOperationGenerated(t *testing.T) {
	doc, err := rest.LoadOpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	client := reflect.TypeOf(&openapiclient.ClientWithResponses{})
	tags := map[string]int{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			name := strings.ToUpper(op.OperationID[:1]) + op.OperationID[1:] + "WithResponse"
			if _, ok := client.MethodByName(name); !ok {
				t.Errorf("%s %s (%s, tag %v): no %s in the generated client", method, path, op.OperationID, op.Tags, name)
			}
			for _, tag := range op.Tags {
				tags[tag]++
			}
		}
	}
	if len(tags) != len(doc.Tags) {
		t.Errorf("operations carry tags %v; the document lists %d", tags, len(doc.Tags))
	}
	t.Logf("%d tags: %v", len(tags), tags)
}

// smokeCalls drives each tag's operations through the generated client.
var smokeCalls = map[string]func(s *smoke, t *testing.T){
	"meta":         (*smoke).meta,
	"leads":        (*smoke).leads,
	"organization": (*smoke).organization,
	"lending":      (*smoke).lending,
	"analytics":    (*smoke).analytics,
	"dialer":       (*smoke).dialer,
	"connector":    (*smoke).connector,
	"webhooks":     (*smoke).webhooks,
	"inbound":      (*smoke).inbound,
	"automations":  (*smoke).automations,
	"apps":         (*smoke).apps,
	"documents":    (*smoke).documents,
	"sign-in":      (*smoke).signIn,
	"tasks":        (*smoke).tasks,
	"renewals":     (*smoke).renewals,
	"exports":      (*smoke).exports,
}

// A client generated from the whole document calls operations of every
// tag against a live server, which checks each exchange against the
// document as well. A tag of the document without smoke calls fails.
func TestGeneratedClientEveryTag(t *testing.T) {
	doc, err := rest.LoadOpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	s := newSmoke(t)
	for _, tag := range doc.Tags {
		call, ok := smokeCalls[tag.Name]
		if !ok {
			t.Errorf("tag %s has no smoke calls", tag.Name)
			continue
		}
		t.Run(tag.Name, func(t *testing.T) { call(s, t) })
	}
	if len(smokeCalls) != len(doc.Tags) {
		t.Errorf("smoke calls for %d tags; the document has %d", len(smokeCalls), len(doc.Tags))
	}
}

// smoke is a live server, a client for it with an all-scopes key, and the
// ids one tag's calls leave for the next.
type smoke struct {
	e      *resttest.Env
	c      *openapiclient.ClientWithResponses
	public *openapiclient.ClientWithResponses
	ctx    context.Context
	agent  openapi_types.UUID
	stage  openapi_types.UUID
	lead   openapi_types.UUID
}

func newSmoke(t *testing.T) *smoke {
	e := resttest.New(t)
	c := authedClient(t, e)
	public, err := openapiclient.NewClientWithResponses(e.Server.URL)
	if err != nil {
		t.Fatal(err)
	}
	e.NewUser(e.Org.ID, "Maya", "Chen", "advisor", "Closers")
	e.NewUser(e.Org.ID, "Riley", "Brooks", "agent", "Closers")
	return &smoke{e: e, c: c, public: public, ctx: context.Background()}
}

// must fails the test unless the call succeeded with want.
func must(t *testing.T, what string, err error, status int, body []byte, want int) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if status != want {
		t.Fatalf("%s: %d, want %d: %s", what, status, want, body)
	}
}

func (s *smoke) meta(t *testing.T) {
	status, err := s.public.GetStatusWithResponse(s.ctx, nil)
	must(t, "status", err, status.StatusCode(), status.Body, http.StatusOK)
	if status.JSON200.Data.Attributes.ApiVersion != rest.APIVersion {
		t.Errorf("status = %+v", status.JSON200.Data.Attributes)
	}
	live, err := s.public.GetLivenessWithResponse(s.ctx, nil)
	must(t, "healthz", err, live.StatusCode(), live.Body, http.StatusOK)
	ready, err := s.public.GetReadinessWithResponse(s.ctx, nil)
	must(t, "readyz", err, ready.StatusCode(), ready.Body, http.StatusOK)
	doc, err := s.public.GetOpenAPIWithResponse(s.ctx, nil)
	must(t, "openapi.json", err, doc.StatusCode(), doc.Body, http.StatusOK)
	if (*doc.JSON200)["openapi"] != "3.0.3" {
		t.Errorf("document = %.80s", doc.Body)
	}
	// A pinned version this build does not serve reaches the server and
	// is answered with the documented 400.
	old := openapiclient.APIVersion("1999-01-01")
	refused, err := s.c.ListLeadsWithResponse(s.ctx, &openapiclient.ListLeadsParams{SVCAPIVersion: &old})
	must(t, "unsupported version", err, refused.StatusCode(), refused.Body, http.StatusBadRequest)
	if refused.JSON400 == nil || refused.JSON400.Errors[0].Code != "BAD_REQUEST" {
		t.Errorf("unsupported version: %s", refused.Body)
	}
}

// signIn signs a person in and out with the session cookie; single
// sign-on, not configured here, is the documented 404.
func (s *smoke) signIn(t *testing.T) {
	const password = "correct horse battery staple"
	u := s.e.NewPerson(s.e.Org.ID, "Sage", "Smoke", "advisor", password)
	in, err := s.public.SignInWithResponse(s.ctx, nil, openapiclient.SignIn{Email: u.Email, Password: password})
	must(t, "sign in", err, in.StatusCode(), in.Body, http.StatusOK)
	var cookie string
	for _, c := range in.HTTPResponse.Cookies() {
		if c.Name == rest.SessionCookie {
			cookie = c.Name + "=" + c.Value
		}
	}
	withSession := func(csrf bool) openapiclient.RequestEditorFn {
		return func(_ context.Context, req *http.Request) error {
			req.Header.Set("Cookie", cookie)
			if csrf {
				req.Header.Set(rest.CSRFHeader, in.JSON200.CsrfToken)
			}
			return nil
		}
	}
	got, err := s.public.GetSessionWithResponse(s.ctx, nil, withSession(false))
	must(t, "session", err, got.StatusCode(), got.Body, http.StatusOK)
	if got.JSON200.User.Id != u.ID.String() {
		t.Errorf("session = %+v", got.JSON200)
	}
	out, err := s.public.SignOutWithResponse(s.ctx, nil, withSession(true))
	must(t, "sign out", err, out.StatusCode(), out.Body, http.StatusNoContent)
	sso, err := s.public.StartSingleSignOnWithResponse(s.ctx, nil)
	must(t, "single sign-on", err, sso.StatusCode(), sso.Body, http.StatusNotFound)
	if sso.JSON404 == nil || sso.JSON404.Errors[0].Code != "NOT_FOUND" {
		t.Errorf("single sign-on: %s", sso.Body)
	}
}

func (s *smoke) leads(t *testing.T) {
	name := "Smoke Freight"
	created, err := s.c.CreateLeadWithResponse(s.ctx, nil, openapiclient.LeadCreate{BusinessName: &name})
	must(t, "create lead", err, created.StatusCode(), created.Body, http.StatusCreated)
	s.lead = created.JSON201.Data.Id
	list, err := s.c.ListLeadsWithResponse(s.ctx, nil)
	must(t, "list leads", err, list.StatusCode(), list.Body, http.StatusOK)
	got, err := s.c.GetLeadWithResponse(s.ctx, s.lead, nil)
	must(t, "get lead", err, got.StatusCode(), got.Body, http.StatusOK)
	industry := "Freight"
	patched, err := s.c.UpdateLeadWithResponse(s.ctx, s.lead, nil, openapiclient.LeadPatch{Industry: &industry})
	must(t, "update lead", err, patched.StatusCode(), patched.Body, http.StatusOK)
}

// tasks lists the lead's tasks (GraphQL writes them): none yet.
func (s *smoke) tasks(t *testing.T) {
	open := openapiclient.TaskStatus("open")
	list, err := s.c.ListTasksWithResponse(s.ctx, &openapiclient.ListTasksParams{Status: &open})
	must(t, "list tasks", err, list.StatusCode(), list.Body, http.StatusOK)
	if list.JSON200 == nil || len(list.JSON200.Data) != 0 {
		t.Fatalf("tasks = %s", list.Body)
	}
}

// renewals lists the renewal queue: no deal is due yet.
func (s *smoke) renewals(t *testing.T) {
	list, err := s.c.ListRenewalsWithResponse(s.ctx, &openapiclient.ListRenewalsParams{})
	must(t, "list renewals", err, list.StatusCode(), list.Body, http.StatusOK)
	if list.JSON200 == nil || len(list.JSON200.Data) != 0 {
		t.Fatalf("renewals = %s", list.Body)
	}
}

// exports downloads each list as CSV: a header row, then the rows.
func (s *smoke) exports(t *testing.T) {
	leads, err := s.c.ExportLeadsWithResponse(s.ctx, nil)
	must(t, "export leads", err, leads.StatusCode(), leads.Body, http.StatusOK)
	if !strings.HasPrefix(string(leads.Body), "id,") || !strings.Contains(string(leads.Body), s.lead.String()) {
		t.Fatalf("leads.csv = %s", leads.Body)
	}
	apps, err := s.c.ExportApplicationsWithResponse(s.ctx, nil)
	must(t, "export applications", err, apps.StatusCode(), apps.Body, http.StatusOK)
	deals, err := s.c.ExportFundedDealsWithResponse(s.ctx, nil)
	must(t, "export funded deals", err, deals.StatusCode(), deals.Body, http.StatusOK)
	comms, err := s.c.ExportCommissionsWithResponse(s.ctx, nil)
	must(t, "export commissions", err, comms.StatusCode(), comms.Body, http.StatusOK)
}

// organization discovers the ids the writes take, and uses them.
func (s *smoke) organization(t *testing.T) {
	stages, err := s.c.ListStagesWithResponse(s.ctx, nil)
	must(t, "list stages", err, stages.StatusCode(), stages.Body, http.StatusOK)
	if len(stages.JSON200.Data) != 7 || stages.JSON200.Data[0].Attributes.StageKey != "new" {
		t.Fatalf("stages = %+v", stages.JSON200.Data)
	}
	s.stage = stages.JSON200.Data[2].Id
	teams, err := s.c.ListTeamsWithResponse(s.ctx, nil)
	must(t, "list teams", err, teams.StatusCode(), teams.Body, http.StatusOK)
	team := teams.JSON200.Data[0].Id
	role := openapiclient.UserRole("agent")
	agents, err := s.c.ListUsersWithResponse(s.ctx, &openapiclient.ListUsersParams{Role: &role, TeamId: &team})
	must(t, "list agents", err, agents.StatusCode(), agents.Body, http.StatusOK)
	if agents.JSON200.Meta.Total != 1 || *agents.JSON200.Data[0].Attributes.TeamName != "Closers" {
		t.Fatalf("agents = %+v", agents.JSON200)
	}
	s.agent = agents.JSON200.Data[0].Id
	advisor := openapiclient.UserRole("advisor")
	advisors, err := s.c.ListUsersWithResponse(s.ctx, &openapiclient.ListUsersParams{Role: &advisor})
	must(t, "list advisors", err, advisors.StatusCode(), advisors.Body, http.StatusOK)
	bad := openapiclient.UserRole("boss")
	refused, err := s.c.ListUsersWithResponse(s.ctx, &openapiclient.ListUsersParams{Role: &bad})
	must(t, "list a bad role", err, refused.StatusCode(), refused.Body, http.StatusUnprocessableEntity)

	moved, err := s.c.MoveLeadStageWithResponse(s.ctx, s.lead, nil, openapiclient.MoveLeadStageJSONRequestBody{StageId: s.stage})
	must(t, "move lead", err, moved.StatusCode(), moved.Body, http.StatusOK)
	assigned, err := s.c.AssignLeadWithResponse(s.ctx, s.lead, nil, openapiclient.AssignLeadJSONRequestBody{AdvisorId: advisors.JSON200.Data[0].Id})
	must(t, "assign lead", err, assigned.StatusCode(), assigned.Body, http.StatusOK)
	if a := assigned.JSON200.Data.Attributes; a.Stage.Id != s.stage || *a.PrimaryAdvisorName != "Maya Chen" {
		t.Fatalf("lead = %+v", a)
	}
}

// graphql runs a GraphQL operation for the smoke calls: the lending half
// is written through GraphQL and read through REST.
func (s *smoke) graphql(t *testing.T, query string, vars map[string]any) map[string]any {
	t.Helper()
	r := s.e.Post("/graphql", s.e.Key, map[string]any{"query": query, "variables": vars})
	if r.Status != http.StatusOK || r.Body["errors"] != nil {
		t.Fatalf("GraphQL %s: %d %s", query, r.Status, r.Raw)
	}
	return r.Body["data"].(map[string]any)
}

// lending writes a lender, an application, its funding and a commission
// payment over GraphQL, and reads each back through the generated client.
func (s *smoke) lending(t *testing.T) {
	name, amount := "Smoke Bakery", "30000"
	lead, err := s.c.CreateLeadWithResponse(s.ctx, nil, openapiclient.LeadCreate{BusinessName: &name, RequestedAmount: &amount})
	must(t, "create lead", err, lead.StatusCode(), lead.Body, http.StatusCreated)
	lender := s.graphql(t, `mutation { createLender(input: {name: "Smoke Capital", commissionRate: "0.025"}) { id } }`, nil)["createLender"].(map[string]any)["id"]
	app := s.graphql(t, `mutation($input: SubmitApplicationInput!) { submitApplication(input: $input) { id } }`,
		map[string]any{"input": map[string]any{"leadId": lead.JSON201.Data.Id, "lenderId": lender}})["submitApplication"].(map[string]any)["id"]
	s.graphql(t, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, interestRate: "1.4", rateType: factor, termMonths: 8}) { id } }`,
		map[string]any{"id": app})
	deal := s.graphql(t, `mutation($id: ID!) { fundDeal(input: {applicationId: $id}) { id } }`, map[string]any{"id": app})["fundDeal"].(map[string]any)["id"]
	s.graphql(t, `mutation($id: ID!) { recordCommissionPayment(input: {dealId: $id, amount: "250.00", reference: "ACH-1"}) { id } }`,
		map[string]any{"id": deal})

	active := true
	lenders, err := s.c.ListLendersWithResponse(s.ctx, &openapiclient.ListLendersParams{IsActive: &active})
	must(t, "list lenders", err, lenders.StatusCode(), lenders.Body, http.StatusOK)
	if lenders.JSON200.Meta.Total != 1 || lenders.JSON200.Data[0].Attributes.CommissionRate != "0.025" {
		t.Fatalf("lenders = %s", lenders.Body)
	}
	lenderID := lenders.JSON200.Data[0].Id
	gotLender, err := s.c.GetLenderWithResponse(s.ctx, lenderID, nil)
	must(t, "get lender", err, gotLender.StatusCode(), gotLender.Body, http.StatusOK)

	funded := openapiclient.ApplicationStatus("funded")
	apps, err := s.c.ListApplicationsWithResponse(s.ctx, &openapiclient.ListApplicationsParams{LenderId: &lenderID, Status: &funded})
	must(t, "list applications", err, apps.StatusCode(), apps.Body, http.StatusOK)
	if apps.JSON200.Meta.Total != 1 || apps.JSON200.Data[0].Attributes.ApprovedAmount == nil || *apps.JSON200.Data[0].Attributes.ApprovedAmount != "30000.00" {
		t.Fatalf("applications = %s", apps.Body)
	}
	gotApp, err := s.c.GetApplicationWithResponse(s.ctx, apps.JSON200.Data[0].Id, nil)
	must(t, "get application", err, gotApp.StatusCode(), gotApp.Body, http.StatusOK)
	dealID := *gotApp.JSON200.Data.Attributes.FundedDealId

	from := time.Now().UTC().Add(-time.Hour).Format(time.RFC3339)
	deals, err := s.c.ListFundedDealsWithResponse(s.ctx, &openapiclient.ListFundedDealsParams{LenderId: &lenderID, FundedFrom: &from})
	must(t, "list funded deals", err, deals.StatusCode(), deals.Body, http.StatusOK)
	if deals.JSON200.Meta.Total != 1 || deals.JSON200.Data[0].Id != dealID || deals.JSON200.Data[0].Attributes.Commission != "750.00" ||
		*deals.JSON200.Data[0].Attributes.PaybackAmount != "42000.00" {
		t.Fatalf("deals = %s", deals.Body)
	}
	gotDeal, err := s.c.GetFundedDealWithResponse(s.ctx, dealID, nil)
	must(t, "get funded deal", err, gotDeal.StatusCode(), gotDeal.Body, http.StatusOK)

	partly := openapiclient.CommissionStatus("partially_paid")
	commissions, err := s.c.ListCommissionsWithResponse(s.ctx, &openapiclient.ListCommissionsParams{DealId: &dealID, Status: &partly})
	must(t, "list commissions", err, commissions.StatusCode(), commissions.Body, http.StatusOK)
	if commissions.JSON200.Meta.Total != 1 {
		t.Fatalf("commissions = %s", commissions.Body)
	}
	gotCommission, err := s.c.GetCommissionWithResponse(s.ctx, gotDeal.JSON200.Data.Attributes.CommissionId, nil)
	must(t, "get commission", err, gotCommission.StatusCode(), gotCommission.Body, http.StatusOK)
	if p := gotCommission.JSON200.Data.Attributes.Payments; len(p) != 1 || p[0].Amount != "250.00" || p[0].Kind != "payment" {
		t.Fatalf("commission = %s", gotCommission.Body)
	}

	bad := openapiclient.CommissionStatus("settled")
	refused, err := s.c.ListCommissionsWithResponse(s.ctx, &openapiclient.ListCommissionsParams{Status: &bad})
	must(t, "list commissions in a bad status", err, refused.StatusCode(), refused.Body, http.StatusUnprocessableEntity)
	missing, err := s.c.GetFundedDealWithResponse(s.ctx, lenderID, nil)
	must(t, "get a deal by a lender's id", err, missing.StatusCode(), missing.Body, http.StatusNotFound)

	// Where to send the lead next: the one lender, with its record of the
	// one funded application.
	matches, err := s.c.ListLeadLenderMatchesWithResponse(s.ctx, lead.JSON201.Data.Id, &openapiclient.ListLeadLenderMatchesParams{})
	must(t, "list lender matches", err, matches.StatusCode(), matches.Body, http.StatusOK)
	if d := matches.JSON200.Data; len(d) != 1 || d[0].Id != lenderID || d[0].Attributes.Basis != "all" ||
		d[0].Attributes.Score == nil || *d[0].Attributes.Score != "1.0000" || d[0].Attributes.Components == nil ||
		d[0].Attributes.Components.SampleSize != 1 {
		t.Fatalf("lender matches = %s", matches.Body)
	}
	zero := "0"
	refusedMatches, err := s.c.ListLeadLenderMatchesWithResponse(s.ctx, lead.JSON201.Data.Id, &openapiclient.ListLeadLenderMatchesParams{Amount: &zero})
	must(t, "list lender matches for nothing", err, refusedMatches.StatusCode(), refusedMatches.Body, http.StatusUnprocessableEntity)
}

// analytics reads the five reports of what lending wrote, through the
// generated client: the range's dates and zone as sent, the series cut by
// week, the figures of the one funded deal.
func (s *smoke) analytics(t *testing.T) {
	zone := openapiclient.ReportTimezone("America/New_York")
	week := openapiclient.ReportInterval("week")
	now := time.Now().UTC()
	from, to := openapiclient.ReportFrom(now.AddDate(0, 0, -7).Format("2006-01-02")), openapiclient.ReportTo(now.Format("2006-01-02"))
	funding, err := s.c.GetFundingReportWithResponse(s.ctx, &openapiclient.GetFundingReportParams{From: &from, To: &to, Interval: &week})
	must(t, "funding report", err, funding.StatusCode(), funding.Body, http.StatusOK)
	f := funding.JSON200.Data
	if f.Id != "funding" || f.Type != "analytics" || f.Attributes.Totals.Deals != 1 || f.Attributes.Totals.FundedAmount != "30000.00" ||
		f.Attributes.Totals.ExpectedCommission != "750.00" || f.Attributes.Interval != "week" || f.Attributes.Timezone != "UTC" ||
		len(f.Attributes.ByLender) != 1 || f.Attributes.ByLender[0].Name != "Smoke Capital" {
		t.Fatalf("funding = %s", funding.Body)
	}
	commissions, err := s.c.GetCommissionsReportWithResponse(s.ctx, &openapiclient.GetCommissionsReportParams{Timezone: &zone})
	must(t, "commissions report", err, commissions.StatusCode(), commissions.Body, http.StatusOK)
	if c := commissions.JSON200.Data.Attributes; c.Totals.Paid != "250.00" || c.Totals.Outstanding != "500.00" || c.Timezone != "America/New_York" {
		t.Fatalf("commissions = %s", commissions.Body)
	}
	lenders, err := s.c.GetLendersReportWithResponse(s.ctx, nil)
	must(t, "lenders report", err, lenders.StatusCode(), lenders.Body, http.StatusOK)
	if l := lenders.JSON200.Data.Attributes.Lenders; len(l) != 1 || l[0].Funded != 1 || l[0].ApprovalRate != "1.0000" || l[0].MedianSecondsToDecision == nil {
		t.Fatalf("lenders = %s", lenders.Body)
	}
	pipeline, err := s.c.GetPipelineReportWithResponse(s.ctx, nil)
	must(t, "pipeline report", err, pipeline.StatusCode(), pipeline.Body, http.StatusOK)
	if p := pipeline.JSON200.Data.Attributes; len(p.Stages) != 7 || p.Funnel.Funded != 1 || len(p.BySource) != 6 {
		t.Fatalf("pipeline = %s", pipeline.Body)
	}
	// No calls yet (the dialer's tag comes next); a user id is no team's.
	dialer, err := s.c.GetDialerReportWithResponse(s.ctx, &openapiclient.GetDialerReportParams{TeamId: ptr(openapiclient.ReportTeamId(s.agent))})
	must(t, "dialer report", err, dialer.StatusCode(), dialer.Body, http.StatusOK)
	if d := dialer.JSON200.Data.Attributes; len(d.Agents) != 0 || len(d.Series) != 30 {
		t.Fatalf("dialer = %s", dialer.Body)
	}

	bad := openapiclient.ReportInterval("fortnight")
	refused, err := s.c.GetFundingReportWithResponse(s.ctx, &openapiclient.GetFundingReportParams{Interval: &bad})
	must(t, "a bad interval", err, refused.StatusCode(), refused.Body, http.StatusUnprocessableEntity)
	if refused.JSON422 == nil || refused.JSON422.Errors[0].Detail["field"] != "interval" {
		t.Fatalf("a bad interval: %s", refused.Body)
	}
}

func (s *smoke) dialer(t *testing.T) {
	var at openapiclient.CallEventInput_OccurredAt
	if err := at.FromCallEventInputOccurredAt0("2026-11-22T09:00:00Z"); err != nil {
		t.Fatal(err)
	}
	var event openapiclient.CallEventBody
	if err := event.FromCallEventInput(openapiclient.CallEventInput{ExternalCallId: "smoke-1", UserId: s.agent, LeadId: &s.lead,
		EventType: "call_started", OccurredAt: at}); err != nil {
		t.Fatal(err)
	}
	recorded, err := s.c.RecordCallEventWithResponse(s.ctx, nil, event)
	must(t, "record call event", err, recorded.StatusCode(), recorded.Body, http.StatusCreated)
	// The aliases a dialer vendor sends, through the same operation.
	callID, stamp := "smoke-1", "2026-11-22T09:00:30Z"
	var aliased openapiclient.CallEventBody
	if err := aliased.FromCallEventAliases(openapiclient.CallEventAliases{CallId: &callID, AgentId: &s.agent,
		EventType: ptr(openapiclient.CallEventType("call_answered")), AdditionalProperties: map[string]any{"timestamp": stamp}}); err != nil {
		t.Fatal(err)
	}
	answered, err := s.c.RecordCallEventWithResponse(s.ctx, nil, aliased)
	must(t, "record an aliased call event", err, answered.StatusCode(), answered.Body, http.StatusCreated)
	if answered.JSON201.Data.Attributes.ExternalCallId != callID {
		t.Errorf("aliased event = %+v", answered.JSON201.Data.Attributes)
	}

	var dat openapiclient.DispositionInput_OccurredAt
	if err := dat.FromDispositionInputOccurredAt1(1795341600); err != nil {
		t.Fatal(err)
	}
	var disposition openapiclient.DispositionBody
	if err := disposition.FromDispositionInput(openapiclient.DispositionInput{ExternalCallId: "smoke-1", UserId: s.agent,
		Disposition: "interested", OccurredAt: dat}); err != nil {
		t.Fatal(err)
	}
	disposed, err := s.c.RecordDispositionWithResponse(s.ctx, nil, disposition)
	must(t, "record disposition", err, disposed.StatusCode(), disposed.Body, http.StatusCreated)

	var presence openapiclient.PresenceBody
	if err := presence.FromPresenceInput(openapiclient.PresenceInput{UserId: s.agent, Status: "break"}); err != nil {
		t.Fatal(err)
	}
	present, err := s.c.UpdatePresenceWithResponse(s.ctx, nil, presence)
	must(t, "update presence", err, present.StatusCode(), present.Body, http.StatusOK)
	board, err := s.c.ListAgentsWithResponse(s.ctx, nil)
	must(t, "list agents", err, board.StatusCode(), board.Body, http.StatusOK)
	if len(board.JSON200.Data) != 1 || board.JSON200.Data[0].Attributes.Status != "break" {
		t.Errorf("board = %+v", board.JSON200.Data)
	}
}

func (s *smoke) connector(t *testing.T) {
	org, token, err := store.CreateOrganization(s.ctx, s.e.DB.Client, "Connector Shop")
	if err != nil {
		t.Fatal(err)
	}
	agent := s.e.NewUser(org.ID, "Cora", "Connector", "agent", "")
	typ := openapiclient.ConnectorEventType("call_event")
	got, err := s.public.ReceiveConnectorEventWithResponse(s.ctx, token, nil, openapiclient.ConnectorEvent{Type: &typ,
		AdditionalProperties: map[string]any{"call_id": "vendor-1", "agent_id": agent.ID.String(), "event_type": "call_started", "timestamp": 1795341600}})
	must(t, "connector JSON", err, got.StatusCode(), got.Body, http.StatusOK)
	// The generated form encoder sends only the typed members, so a
	// vendor's form fields go as an encoded body.
	form := url.Values{"type": {"call_event"}, "call_id": {"vendor-1"}, "agent_id": {agent.ID.String()},
		"event_type": {"call_ended"}, "duration": {"42"}, "timestamp": {"1795341660"}}
	formed, err := s.public.ReceiveConnectorEventWithBodyWithResponse(s.ctx, token, nil, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	must(t, "connector form", err, formed.StatusCode(), formed.Body, http.StatusOK)
	if formed.JSON200 == nil {
		t.Errorf("connector form: %s", formed.Body)
	}
	unknown, err := s.public.ReceiveConnectorEventWithResponse(s.ctx, "conn_unknown", nil, openapiclient.ConnectorEvent{Type: &typ})
	must(t, "unknown connector", err, unknown.StatusCode(), unknown.Body, http.StatusNotFound)
}

func (s *smoke) webhooks(t *testing.T) {
	catalog, err := s.public.ListEventTypesWithResponse(s.ctx, nil)
	must(t, "event catalog", err, catalog.StatusCode(), catalog.Body, http.StatusOK)
	if catalog.JSON200.Meta.Total == 0 {
		t.Fatal("empty catalog")
	}
	recv := webhookstest.NewReceiver(t, webhookstest.OK)
	created, err := s.c.CreateSubscriptionWithResponse(s.ctx, nil, openapiclient.SubscriptionCreate{Url: recv.URL, Events: []openapiclient.SubscriptionEventType{"lead.created"}})
	must(t, "create subscription", err, created.StatusCode(), created.Body, http.StatusCreated)
	id := created.JSON201.Data.Id
	if created.JSON201.Data.Attributes.Secret == nil {
		t.Error("no secret on create")
	}
	list, err := s.c.ListSubscriptionsWithResponse(s.ctx, nil)
	must(t, "list subscriptions", err, list.StatusCode(), list.Body, http.StatusOK)
	active := false
	patched, err := s.c.UpdateSubscriptionWithResponse(s.ctx, id, nil, openapiclient.SubscriptionPatch{IsActive: &active})
	must(t, "pause subscription", err, patched.StatusCode(), patched.Body, http.StatusOK)
	deliveries, err := s.c.ListDeliveriesWithResponse(s.ctx, id, nil)
	must(t, "list deliveries", err, deliveries.StatusCode(), deliveries.Body, http.StatusOK)
	replayed, err := s.c.ReplayDeliveriesWithResponse(s.ctx, id, nil, openapiclient.ReplayRequest{})
	must(t, "replay dead deliveries", err, replayed.StatusCode(), replayed.Body, http.StatusAccepted)
	deleted, err := s.c.DeleteSubscriptionWithResponse(s.ctx, id, nil)
	must(t, "delete subscription", err, deleted.StatusCode(), deleted.Body, http.StatusNoContent)
}

func (s *smoke) inbound(t *testing.T) {
	created, err := s.c.CreateInboundEndpointWithResponse(s.ctx, nil, openapiclient.InboundEndpointCreate{Name: "Partner",
		Mapping: &map[string]string{"businessName": "$.company"}})
	must(t, "create endpoint", err, created.StatusCode(), created.Body, http.StatusCreated)
	ep := created.JSON201.Data
	body := []byte(`{"company":"Inbound Co"}`)
	mac := hmac.New(sha256.New, []byte(*ep.Attributes.Secret))
	mac.Write(body)
	sign := func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-svc-Signature", "sha256="+hex.EncodeToString(mac.Sum(nil)))
		return nil
	}
	received, err := s.public.ReceiveInboundWebhookWithBodyWithResponse(s.ctx, ep.Attributes.EndpointKey, nil, "application/json", bytes.NewReader(body), sign)
	must(t, "receive", err, received.StatusCode(), received.Body, http.StatusOK)
	requests, err := s.c.ListInboundRequestsWithResponse(s.ctx, ep.Id, nil)
	must(t, "list requests", err, requests.StatusCode(), requests.Body, http.StatusOK)
	if requests.JSON200.Meta.Total != 1 || requests.JSON200.Data[0].Attributes.Mapped["businessName"] != "Inbound Co" {
		t.Errorf("requests = %s", requests.Body)
	}
	list, err := s.c.ListInboundEndpointsWithResponse(s.ctx, nil)
	must(t, "list endpoints", err, list.StatusCode(), list.Body, http.StatusOK)
	name := "Partner 2"
	patched, err := s.c.UpdateInboundEndpointWithResponse(s.ctx, ep.Id, nil, openapiclient.InboundEndpointPatch{Name: &name})
	must(t, "update endpoint", err, patched.StatusCode(), patched.Body, http.StatusOK)
	deleted, err := s.c.DeleteInboundEndpointWithResponse(s.ctx, ep.Id, nil)
	must(t, "delete endpoint", err, deleted.StatusCode(), deleted.Body, http.StatusNoContent)
}

func (s *smoke) automations(t *testing.T) {
	event := "lead.created"
	body := openapiclient.AutomationCreate{Name: "Tag new leads", Actions: []openapiclient.AutomationAction{
		{Type: "add_tags", Tags: &[]string{"auto"}}, {Type: "move_stage", StageId: &s.stage}}}
	body.Trigger.Event = &event
	created, err := s.c.CreateAutomationWithResponse(s.ctx, nil, body)
	must(t, "create automation", err, created.StatusCode(), created.Body, http.StatusCreated)
	id := created.JSON201.Data.Id
	got, err := s.c.GetAutomationWithResponse(s.ctx, id, nil)
	must(t, "get automation", err, got.StatusCode(), got.Body, http.StatusOK)
	list, err := s.c.ListAutomationsWithResponse(s.ctx, nil)
	must(t, "list automations", err, list.StatusCode(), list.Body, http.StatusOK)
	active := false
	patched, err := s.c.UpdateAutomationWithResponse(s.ctx, id, nil, openapiclient.AutomationPatch{IsActive: &active})
	must(t, "update automation", err, patched.StatusCode(), patched.Body, http.StatusOK)
	runs, err := s.c.ListAutomationRunsWithResponse(s.ctx, id, nil)
	must(t, "list runs", err, runs.StatusCode(), runs.Body, http.StatusOK)
	deleted, err := s.c.DeleteAutomationWithResponse(s.ctx, id, nil)
	must(t, "delete automation", err, deleted.StatusCode(), deleted.Body, http.StatusNoContent)
}

func ptr[T any](v T) *T { return &v }

// authedClient is a generated client that sends e's key with every request.
func authedClient(t *testing.T, e *resttest.Env) *openapiclient.ClientWithResponses {
	t.Helper()
	bearer := func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+e.Key)
		return nil
	}
	c, err := openapiclient.NewClientWithResponses(e.Server.URL, openapiclient.WithRequestEditorFn(bearer))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// apps installs an app through GraphQL (the only surface that does) and
// lists it through the client.
func (s *smoke) apps(t *testing.T) {
	r := s.e.Post("/graphql", s.e.Key, map[string]any{"query": `mutation { registerApp(input: {name: "Smoke App", scopes: ["leads:read"]}) { id } }`})
	app := r.Body["data"].(map[string]any)["registerApp"].(map[string]any)["id"]
	s.e.Post("/graphql", s.e.Key, map[string]any{"query": `mutation($a: ID!) { installApp(appId: $a, scopes: ["leads:read"]) { token } }`,
		"variables": map[string]any{"a": app}})
	list, err := s.c.ListAppInstallationsWithResponse(s.ctx, nil)
	must(t, "list installations", err, list.StatusCode(), list.Body, http.StatusOK)
	if list.JSON200.Meta.Total != 1 || list.JSON200.Data[0].Attributes.AppName != "Smoke App" {
		t.Errorf("installations = %s", list.Body)
	}
}

func (s *smoke) documents(t *testing.T) {
	lead := s.e.Post("/v1/leads", s.e.Key, map[string]any{"businessName": "Smoke Documents"}).Data()["id"].(string)
	content := []byte("%PDF-1.7 smoke")
	r := s.e.Upload(s.e.Key, `mutation($r: ID!, $file: Upload!) { uploadDocument(recordId: $r, file: $file) { id } }`,
		map[string]any{"r": lead}, resttest.File{Var: "file", Name: "smoke.pdf", Content: content})
	id, err := uuid.Parse(r.Body["data"].(map[string]any)["uploadDocument"].(map[string]any)["id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.c.GetDocumentContentWithResponse(s.ctx, id, nil)
	must(t, "download", err, got.StatusCode(), got.Body, http.StatusOK)
	if !bytes.Equal(got.Body, content) || got.HTTPResponse.Header.Get("Content-Type") != "application/pdf" {
		t.Errorf("downloaded %q as %s", got.Body, got.HTTPResponse.Header.Get("Content-Type"))
	}
	rng := "bytes=0-4"
	part, err := s.c.GetDocumentContentWithResponse(s.ctx, id, &openapiclient.GetDocumentContentParams{Range: &rng})
	must(t, "range", err, part.StatusCode(), part.Body, http.StatusPartialContent)
	head, err := s.c.HeadDocumentContentWithResponse(s.ctx, id, nil)
	must(t, "head", err, head.StatusCode(), head.Body, http.StatusOK)
}
