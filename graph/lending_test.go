package graph_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

// The lending half over GraphQL (PRODUCT 1): the transition table, the
// rules the hooks hold on every path, and what funding and payments
// compute. Each test runs on SQLite, and on PostgreSQL as well when
// SVC_TEST_DATABASE_URL names a database (resttest opens the store).

// gqlExt runs an operation and returns its data and the first error's
// extensions (nil when it succeeded).
func gqlExt(t *testing.T, e *resttest.Env, key, query string, vars map[string]any) (map[string]any, map[string]any) {
	t.Helper()
	r := e.Post("/graphql", key, map[string]any{"query": query, "variables": vars})
	if r.Status != http.StatusOK {
		t.Fatalf("status %d: %s", r.Status, r.Raw)
	}
	data, _ := r.Body["data"].(map[string]any)
	errs, _ := r.Body["errors"].([]any)
	if len(errs) == 0 {
		return data, nil
	}
	ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
	if ext == nil {
		t.Fatalf("an error without extensions: %s", r.Raw)
	}
	return data, ext
}

// lendingEnv is a server with a lender panel, driven by a key of known id
// (the actor the events and submittedBy name).
type lendingEnv struct {
	*resttest.Env
	key   string // every scope
	actor string // the key's id
}

func newLendingEnv(t *testing.T) *lendingEnv {
	t.Helper()
	e := resttest.New(t)
	key, rec, err := store.CreateAPIKey(context.Background(), e.DB.Client, e.Org.ID, "live", "lending", viewer.AllScopes)
	if err != nil {
		t.Fatal(err)
	}
	return &lendingEnv{Env: e, key: key, actor: rec.ID.String()}
}

// must runs an operation that must succeed and returns its data.
func (l *lendingEnv) must(t *testing.T, query string, vars map[string]any) map[string]any {
	t.Helper()
	data, ext := gqlExt(t, l.Env, l.key, query, vars)
	if ext != nil {
		t.Fatalf("%s: %v", query, ext)
	}
	return data
}

// refused runs an operation that must fail and returns its error's extensions.
func (l *lendingEnv) refused(t *testing.T, query string, vars map[string]any) map[string]any {
	t.Helper()
	data, ext := gqlExt(t, l.Env, l.key, query, vars)
	if ext == nil {
		t.Fatalf("%s succeeded: %v", query, data)
	}
	return ext
}

// wantError fails unless ext is code naming field.
func wantError(t *testing.T, ext map[string]any, code, field string) {
	t.Helper()
	if got, _ := ext["field"].(string); ext["code"] != code || got != field {
		t.Errorf("error %v, want %s with field %q", ext, code, field)
	}
}

const lenderFields = `id name isActive minAmount maxAmount commissionRate products excludedIndustries`

// lender creates a lender; input may set any CreateLenderInput field.
func (l *lendingEnv) lender(t *testing.T, name string, input map[string]any) string {
	t.Helper()
	in := map[string]any{"name": name}
	for k, v := range input {
		in[k] = v
	}
	data := l.must(t, `mutation($in: CreateLenderInput!) { createLender(input: $in) { id } }`, map[string]any{"in": in})
	return data["createLender"].(map[string]any)["id"].(string)
}

// lead creates a lead over REST with attrs.
func (l *lendingEnv) lead(t *testing.T, attrs map[string]any) string {
	t.Helper()
	if attrs == nil {
		attrs = map[string]any{}
	}
	if _, ok := attrs["businessName"]; !ok {
		attrs["businessName"] = "Merchant"
	}
	r := l.Post("/v1/leads", l.key, attrs)
	if r.Status != http.StatusCreated {
		t.Fatalf("creating a lead: %s", r.Raw)
	}
	return r.Data()["id"].(string)
}

const appFields = `id status leadId lenderId lenderName requestedAmount product submittedBy submittedAt externalRef
	decidedAt approvedAmount interestRate rateType termMonths paymentFrequency conditions
	declineReason declineCategory withdrawnReason warnings fundedDealId`

const submitDoc = `mutation($in: SubmitApplicationInput!) { submitApplication(input: $in) { ` + appFields + ` } }`

// submitInput is a submission of lead to lender with extra fields.
func submitInput(lead, lender string, extra map[string]any) map[string]any {
	in := map[string]any{"leadId": lead, "lenderId": lender}
	for k, v := range extra {
		in[k] = v
	}
	return map[string]any{"in": in}
}

// submit submits lead to lender and returns the application.
func (l *lendingEnv) submit(t *testing.T, lead, lender string, extra map[string]any) map[string]any {
	t.Helper()
	if extra == nil {
		extra = map[string]any{"requestedAmount": "25000.00"}
	}
	return l.must(t, submitDoc, submitInput(lead, lender, extra))["submitApplication"].(map[string]any)
}

// The operations of the transition table, each on the application $id.
const (
	underwriteDoc = `mutation($id: ID!) { op: markApplicationUnderwriting(id: $id) { id status } }`
	approveDoc    = `mutation($id: ID!) { op: decideApplication(id: $id, input: {decision: APPROVED, interestRate: "1.35", rateType: factor, termMonths: 12}) { id status } }`
	declineDoc    = `mutation($id: ID!) { op: decideApplication(id: $id, input: {decision: DECLINED, reason: "Too little time in business"}) { id status } }`
	withdrawDoc   = `mutation($id: ID!) { op: withdrawApplication(id: $id, reason: "the merchant changed its mind") { id status } }`
	fundDoc       = `mutation($id: ID!) { op: fundDeal(input: {applicationId: $id}) { id application { id status } } }`
)

// do runs one of the operations above on app and returns its answer.
func (l *lendingEnv) do(t *testing.T, doc, app string) map[string]any {
	t.Helper()
	return l.must(t, doc, map[string]any{"id": app})["op"].(map[string]any)
}

// application reads an application.
func (l *lendingEnv) application(t *testing.T, id string) map[string]any {
	t.Helper()
	data := l.must(t, `query($id: ID!) { node(id: $id) { ... on Application { `+appFields+` } } }`, map[string]any{"id": id})
	return data["node"].(map[string]any)
}

// leadState reads what the lending half changes of a lead.
func (l *lendingEnv) leadState(t *testing.T, id string) map[string]any {
	t.Helper()
	data := l.must(t, `query($id: ID!) { lead(id: $id) { stage { id stageKey semanticSlot } convertedAt primaryAdvisorId } }`, map[string]any{"id": id})
	return data["lead"].(map[string]any)
}

func slotOf(lead map[string]any) string {
	return lead["stage"].(map[string]any)["semanticSlot"].(string)
}

// moveLead puts a lead in the organization's stage of slot.
func (l *lendingEnv) moveLead(t *testing.T, lead, slot string) {
	t.Helper()
	for _, s := range l.Stages(l.Org.ID) {
		if string(s.SemanticSlot) == slot {
			l.must(t, `mutation($id: ID!, $s: ID!) { moveLeadToStage(id: $id, stageId: $s) { id } }`, map[string]any{"id": lead, "s": s.ID})
			return
		}
	}
	t.Fatalf("no stage of slot %s", slot)
}

// outbox lists the data of org A's events of type in the outbox, oldest first.
func (l *lendingEnv) outbox(t *testing.T, eventType string) []map[string]any {
	t.Helper()
	evs, err := l.DB.Client.WebhookEvent.Query().
		Where(webhookevent.OrgID(l.Org.ID), webhookevent.EventType(eventType)).
		Order(webhookevent.ByOccurredAt(), webhookevent.ByID()).All(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]map[string]any, len(evs))
	for i, ev := range evs {
		out[i] = ev.Data
	}
	return out
}

// inStatus returns a new application (of a new lead, to lender) brought
// to status through the operations themselves.
func (l *lendingEnv) inStatus(t *testing.T, lender, status string) (app, lead string) {
	t.Helper()
	lead = l.lead(t, nil)
	app = l.submit(t, lead, lender, nil)["id"].(string)
	steps := map[string][]string{
		"submitted":    nil,
		"underwriting": {underwriteDoc},
		"approved":     {approveDoc},
		"declined":     {declineDoc},
		"withdrawn":    {withdrawDoc},
		"funded":       {approveDoc, fundDoc},
	}[status]
	for _, doc := range steps {
		l.do(t, doc, app)
	}
	if got := l.application(t, app)["status"]; got != status {
		t.Fatalf("set-up: the application is %v, want %s", got, status)
	}
	return app, lead
}

// TestApplicationTransitions runs every operation on an application in
// every status (PRODUCT 1.3): an allowed move answers with the new
// status; any other is CONFLICT with extensions {field: status, from, to}
// and changes nothing.
func TestApplicationTransitions(t *testing.T) {
	l := newLendingEnv(t)
	lender := l.lender(t, "Table Capital", nil)
	ops := []struct {
		name, doc, to string
		from          []string // the statuses it is allowed from
	}{
		{"markApplicationUnderwriting", underwriteDoc, "underwriting", []string{"submitted"}},
		{"decideApplication/APPROVED", approveDoc, "approved", []string{"submitted", "underwriting"}},
		{"decideApplication/DECLINED", declineDoc, "declined", []string{"submitted", "underwriting"}},
		{"withdrawApplication", withdrawDoc, "withdrawn", []string{"submitted", "underwriting", "approved"}},
		{"fundDeal", fundDoc, "funded", []string{"approved"}},
	}
	cells := 0
	for _, from := range []string{"submitted", "underwriting", "approved", "declined", "withdrawn", "funded"} {
		for _, op := range ops {
			t.Run(from+"/"+op.name, func(t *testing.T) {
				app, lead := l.inStatus(t, lender, from)
				allowed := false
				for _, f := range op.from {
					allowed = allowed || f == from
				}
				data, ext := gqlExt(t, l.Env, l.key, op.doc, map[string]any{"id": app})
				cells++
				if !allowed {
					if ext["code"] != "CONFLICT" || ext["field"] != "status" || ext["from"] != from || ext["to"] != op.to {
						t.Fatalf("%s on %s: %v, want CONFLICT {field: status, from: %s, to: %s}", op.name, from, ext, from, op.to)
					}
					if got := l.application(t, app)["status"]; got != from {
						t.Errorf("a refused move left the application %v, want %s", got, from)
					}
					return
				}
				if ext != nil {
					t.Fatalf("%s on %s refused: %v", op.name, from, ext)
				}
				answer := data["op"].(map[string]any)
				if a, ok := answer["application"].(map[string]any); ok {
					answer = a // fundDeal answers with the deal
				}
				if answer["status"] != op.to || answer["id"] != app {
					t.Errorf("answer %v, want application %s %s", answer, app, op.to)
				}
				if got := l.application(t, app)["status"]; got != op.to {
					t.Errorf("stored status %v, want %s", got, op.to)
				}
				deals := l.must(t, `query($l: ID) { fundedDealsPage(leadId: $l) { total } }`, map[string]any{"l": lead})
				wantDeals := 0.0
				if from == "funded" || op.to == "funded" {
					wantDeals = 1
				}
				if got := deals["fundedDealsPage"].(map[string]any)["total"]; got != wantDeals {
					t.Errorf("the lead has %v deals, want %v", got, wantDeals)
				}
			})
		}
	}
	if cells != 30 {
		t.Errorf("%d cells run, want 6 statuses x 5 operations", cells)
	}
}

// A refused move of an application of another organization, or of none,
// is NOT_FOUND, not a CONFLICT that would tell its status.
func TestApplicationMovesOfUnknownApplications(t *testing.T) {
	l := newLendingEnv(t)
	app, _ := l.inStatus(t, l.lender(t, "Hidden Funding", nil), "approved")
	_, otherKey := l.NewOrg("Elsewhere", viewer.AllScopes...)
	for name, doc := range map[string]string{"underwrite": underwriteDoc, "approve": approveDoc, "decline": declineDoc,
		"withdraw": withdrawDoc, "fund": fundDoc} {
		for who, key := range map[string]string{"OtherOrg": otherKey, "Nobody": l.key} {
			id := app
			if who == "Nobody" {
				id = "01a20222-250a-71dd-a76a-00a0ed013e5d"
			}
			_, ext := gqlExt(t, l.Env, key, doc, map[string]any{"id": id})
			if ext["code"] != "NOT_FOUND" {
				t.Errorf("%s by %s: %v, want NOT_FOUND", name, who, ext)
			}
		}
	}
	if got := l.application(t, app)["status"]; got != "approved" {
		t.Errorf("the application is %v after another organization's calls", got)
	}
}
