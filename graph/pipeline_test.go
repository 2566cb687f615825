package graph_test

import (
	"context"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

const totalsDoc = `query($w: LeadWhereInput, $s: String) { boardTotals(where: $w, search: $s) { stageId leads requestedAmount requestedAmountIsExact } }`

// column is one stage's entry of boardTotals, as text.
type column struct {
	leads  int
	amount string
	exact  bool
}

// boardTotals reads boardTotals(where, search) by stage id.
func boardTotals(t *testing.T, e *resttest.Env, key string, where map[string]any, search string) map[string]column {
	t.Helper()
	vars := map[string]any{"w": where}
	if search != "" {
		vars["s"] = search
	}
	data, code := gql(t, e, key, totalsDoc, vars)
	if code != "" {
		t.Fatalf("boardTotals(%v, %q): %s", where, search, code)
	}
	out := map[string]column{}
	for _, r := range data["boardTotals"].([]any) {
		m := r.(map[string]any)
		out[m["stageId"].(string)] = column{int(m["leads"].(float64)), m["requestedAmount"].(string), m["requestedAmountIsExact"].(bool)}
	}
	return out
}

// boardColumns reads what the board's columns list under where (each
// column's where with its stage, as the console asks), and sums it here:
// the amounts exactly, rounded half-even to the cent once.
func boardColumns(t *testing.T, e *resttest.Env, where map[string]any) map[string]column {
	t.Helper()
	out := map[string]column{}
	for _, s := range e.Stages(e.Org.ID) {
		w := maps.Clone(where)
		if w == nil {
			w = map[string]any{}
		}
		w["stageId"] = s.ID.String()
		data, code := gql(t, e, e.Key, `query($w: LeadWhereInput!) { leads(first: 100, where: $w) { totalCount edges { node { requestedAmount } } } }`,
			map[string]any{"w": w})
		if code != "" {
			t.Fatalf("leads(%v): %s", w, code)
		}
		conn := data["leads"].(map[string]any)
		sum := new(big.Rat)
		for _, edge := range conn["edges"].([]any) {
			if a, ok := edge.(map[string]any)["node"].(map[string]any)["requestedAmount"].(string); ok {
				r, _ := new(big.Rat).SetString(a)
				sum.Add(sum, r)
			}
		}
		out[s.ID.String()] = column{int(conn["totalCount"].(float64)), halfEvenCents(sum), true}
	}
	return out
}

// halfEvenCents writes r rounded half-even to the cent, as "1234.56".
func halfEvenCents(r *big.Rat) string {
	cents := new(big.Rat).Mul(r, big.NewRat(100, 1))
	q, m := new(big.Int).QuoRem(cents.Num(), cents.Denom(), new(big.Int))
	twice := new(big.Int).Lsh(m, 1)
	if c := twice.Cmp(cents.Denom()); c > 0 || c == 0 && q.Bit(0) == 1 {
		q.Add(q, big.NewInt(1))
	}
	s := fmt.Sprintf("%03d", q)
	return s[:len(s)-2] + "." + s[len(s)-2:]
}

// newLead creates a lead over GraphQL and returns its id.
func newLead(t *testing.T, e *resttest.Env, input map[string]any) string {
	t.Helper()
	data, code := gql(t, e, e.Key, `mutation($i: CreateLeadInput!) { createLead(input: $i) { id } }`, map[string]any{"i": input})
	if code != "" {
		t.Fatalf("createLead(%v): %s", input, code)
	}
	return data["createLead"].(map[string]any)["id"].(string)
}

// boardBook creates leads over the stages, with amounts of every form
// (none, whole, four decimals, ties of the half-even rounding), two
// advisors and two priorities, then moves and edits some of them.
func boardBook(t *testing.T, e *resttest.Env) (advisor string) {
	t.Helper()
	stages := e.Stages(e.Org.ID)
	advisor = e.NewUser(e.Org.ID, "Ada", "Advisor", "advisor", "Closers").ID.String()
	amounts := []any{nil, "25000", "1234.5650", "0.0050", "99999.99", "1234.5750", "0.0001", "750000.1234"}
	var ids []string
	for i := range 24 {
		in := map[string]any{"businessName": fmt.Sprintf("Shop %d", i), "stageId": stages[i%3].ID.String()}
		if a := amounts[i%len(amounts)]; a != nil {
			in["requestedAmount"] = a
		}
		if i%2 == 0 {
			in["priority"] = "high"
		}
		if i%3 == 0 {
			in["contactFirstName"] = "Bakerella"
		}
		ids = append(ids, newLead(t, e, in))
	}
	for i, id := range ids[:6] {
		if _, code := gql(t, e, e.Key, `mutation($id: ID!, $s: ID!) { moveLeadToStage(id: $id, stageId: $s) { id } }`,
			map[string]any{"id": id, "s": stages[3+i%2].ID.String()}); code != "" {
			t.Fatalf("move: %s", code)
		}
	}
	for i, id := range ids[6:12] {
		in := map[string]any{"requestedAmount": fmt.Sprintf("%d.%04d", 1000*i, i)}
		if i%3 == 0 {
			in = map[string]any{"clearRequestedAmount": true}
		}
		if _, code := gql(t, e, e.Key, `mutation($id: ID!, $i: UpdateLeadInput!) { updateLead(id: $id, input: $i) { id } }`,
			map[string]any{"id": id, "i": in}); code != "" {
			t.Fatalf("update: %s", code)
		}
	}
	for _, id := range ids[12:16] {
		if _, code := gql(t, e, e.Key, `mutation($id: ID!, $u: ID!) { assignLead(id: $id, advisorId: $u) { id } }`,
			map[string]any{"id": id, "u": advisor}); code != "" {
			t.Fatalf("assign: %s", code)
		}
	}
	return advisor
}

// The board's totals are, under every filter, the count and sum of the
// leads its columns list under that filter; unfiltered they are the kept
// sums, which a rebuild leaves as they were.
func TestBoardTotalsAreWhatTheBoardLists(t *testing.T) {
	e := resttest.New(t)
	advisor := boardBook(t, e)
	stages := e.Stages(e.Org.ID)
	for _, c := range []struct {
		name   string
		where  map[string]any
		search string
		board  map[string]any
	}{
		{"unfiltered", nil, "", nil},
		{"a stage", map[string]any{"stageId": stages[1].ID.String()}, "", map[string]any{"stageIdIn": []string{stages[1].ID.String()}}},
		{"priority", map[string]any{"priority": "high"}, "", nil},
		{"advisor", map[string]any{"primaryAdvisorId": advisor}, "", nil},
		{"search", nil, "BAKERELLA", map[string]any{"search": "BAKERELLA"}},
		{"search and priority", map[string]any{"priority": "high"}, "Bakerella", map[string]any{"priority": "high", "search": "Bakerella"}},
		{"search, the last word a prefix", nil, "shop bak", map[string]any{"search": "shop bak"}},
		{"where's search", map[string]any{"search": "bakerella", "priority": "high"}, "", nil},
		{"no match", map[string]any{"businessNameContainsFold": "nobody"}, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			board := c.board
			if board == nil {
				board = c.where
			}
			got, want := boardTotals(t, e, e.Key, c.where, c.search), boardColumns(t, e, board)
			if c.name == "a stage" {
				for id := range want {
					if id != stages[1].ID.String() {
						want[id] = column{0, "0.00", true}
					}
				}
			}
			if !maps.Equal(got, want) {
				t.Errorf("boardTotals = %v\nthe board lists %v", got, want)
			}
		})
	}
	// The search is the leads list's full-text search: a third of the
	// leads have the word, and a stage's column lists what leadsPage
	// finds with the stage as its filter.
	searched, stage := 0, ""
	for id, c := range boardTotals(t, e, e.Key, nil, "bakerella") {
		searched += c.leads
		if c.leads > 0 && c.leads < searched {
			stage = id // a stage holding some of them, not all
		}
	}
	if searched != 8 || stage == "" {
		t.Fatalf("boardTotals(search: bakerella) counts %d leads, want 8 over more than one stage", searched)
	}
	listed, code := gql(t, e, e.Key, `query($w: LeadWhereInput) { leadsPage(search: "bakerella", where: $w, limit: 100) { total nodes { id } } }`,
		map[string]any{"w": map[string]any{"stageId": stage}})
	if code != "" {
		t.Fatalf("leadsPage(search, where): %s", code)
	}
	if got, want := int(listed["leadsPage"].(map[string]any)["total"].(float64)), boardColumns(t, e, map[string]any{"search": "bakerella"})[stage].leads; got != want || got == 0 {
		t.Errorf("leadsPage(search, where: {stageId}) total %d, the column lists %d", got, want)
	}
	// The kept sums (read unfiltered) equal the leads' own (a filter that
	// matches every lead sums them), and a rebuild changes neither.
	everyLead := map[string]any{"createdAtGTE": "1970-01-01T00:00:00Z"}
	kept := boardTotals(t, e, e.Key, nil, "")
	if summed := boardTotals(t, e, e.Key, everyLead, ""); !maps.Equal(kept, summed) {
		t.Errorf("kept %v\nsummed %v", kept, summed)
	}
	if err := analytics.RebuildRollups(rule.SystemContext(context.Background()), e.DB.Client, e.Org.ID); err != nil {
		t.Fatal(err)
	}
	if rebuilt := boardTotals(t, e, e.Key, nil, ""); !maps.Equal(kept, rebuilt) {
		t.Errorf("kept %v\nrebuilt %v", kept, rebuilt)
	}
	order := data(t, e, `{ boardTotals { stageId } }`)["boardTotals"].([]any)
	for i, s := range stages {
		if order[i].(map[string]any)["stageId"] != s.ID.String() {
			t.Fatalf("boardTotals is not in pipeline order: %v", order)
		}
	}
}

// data runs doc with org A's key and fails on an error.
func data(t *testing.T, e *resttest.Env, doc string) map[string]any {
	t.Helper()
	d, code := gql(t, e, e.Key, doc, nil)
	if code != "" {
		t.Fatalf("%s: %s", doc, code)
	}
	return d
}

// A stage's kept sum holds amounts up to 1,000,000,000.0000 a lead; a
// larger one (a lead's field admits 15 integer digits) is summed from the
// leads, exactly; a sum beyond what an amount can be written as is the
// largest amount, marked inexact.
func TestBoardTotalsAtTheEdgesOfTheSums(t *testing.T) {
	e := resttest.New(t)
	stages := e.Stages(e.Org.ID)
	first, second := stages[0].ID.String(), stages[1].ID.String()
	newLead(t, e, map[string]any{"businessName": "Kept", "stageId": first, "requestedAmount": "1000000000.0000"})
	newLead(t, e, map[string]any{"businessName": "Outsized", "stageId": first, "requestedAmount": "1000000000.0001"})
	big := newLead(t, e, map[string]any{"businessName": "Largest", "stageId": first, "requestedAmount": "999999999999999.9999"})
	got := boardTotals(t, e, e.Key, nil, "")
	if want := (column{3, "1000002000000000.00", true}); got[first] != want {
		t.Errorf("the first stage: %v, want %v", got[first], want)
	}
	// The outsized lead moves out, and its amount with it.
	if _, code := gql(t, e, e.Key, `mutation($id: ID!, $s: ID!) { moveLeadToStage(id: $id, stageId: $s) { id } }`,
		map[string]any{"id": big, "s": second}); code != "" {
		t.Fatal(code)
	}
	got = boardTotals(t, e, e.Key, nil, "")
	if want := (column{2, "2000000000.00", true}); got[first] != want {
		t.Errorf("the first stage after the move: %v, want %v", got[first], want)
	}
	if want := (column{1, "1000000000000000.00", true}); got[second] != want {
		t.Errorf("the second stage after the move: %v, want %v", got[second], want)
	}
	// 93 of the largest amounts are beyond 92233720368547758.07.
	for i := range 92 {
		newLead(t, e, map[string]any{"businessName": fmt.Sprint("Large ", i), "stageId": second, "requestedAmount": "999999999999999.9999"})
	}
	for _, where := range []map[string]any{nil, {"createdAtGTE": "1970-01-01T00:00:00Z"}} {
		got = boardTotals(t, e, e.Key, where, "")
		if want := (column{93, "92233720368547758.07", false}); got[second] != want {
			t.Errorf("where %v: the second stage: %v, want %v", where, got[second], want)
		}
		if want := (column{2, "2000000000.00", true}); got[first] != want {
			t.Errorf("where %v: the first stage: %v, want %v", where, got[first], want)
		}
	}
}

func TestBoardTotalsRefusals(t *testing.T) {
	e := resttest.New(t)
	for _, c := range []struct {
		name string
		vars map[string]any
		code string
	}{
		{"search too long", map[string]any{"s": strings.Repeat("a", 201)}, "VALIDATION_ERROR"},
		{"a reversed range", map[string]any{"w": map[string]any{"createdAtGTE": "2024-02-01T00:00:00Z", "createdAtLT": "2024-01-01T00:00:00Z"}}, "VALIDATION_ERROR"},
		{"a malformed id", map[string]any{"w": map[string]any{"stageId": "nope"}}, "VALIDATION_ERROR"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, code := gql(t, e, e.Key, totalsDoc, c.vars); code != c.code {
				t.Errorf("code %q, want %s", code, c.code)
			}
		})
	}
	// leads:read is enough; no scope is FORBIDDEN; another organization
	// sees its own stages only.
	if got := boardTotals(t, e, e.NewKey(e.Org.ID, viewer.ScopeLeadsRead), nil, ""); len(got) != len(e.Stages(e.Org.ID)) {
		t.Errorf("a leads:read key: %v", got)
	}
	if _, code := gql(t, e, e.NewKey(e.Org.ID, viewer.ScopeDialerWrite), totalsDoc, nil); code != "FORBIDDEN" {
		t.Errorf("a key without leads:read: %q, want FORBIDDEN", code)
	}
	newLead(t, e, map[string]any{"businessName": "Ours", "requestedAmount": "10"})
	other, otherKey := e.NewOrg("Other Shop", viewer.AllScopes...)
	got := boardTotals(t, e, otherKey, nil, "")
	for _, s := range e.Stages(other.ID) {
		if got[s.ID.String()] != (column{0, "0.00", true}) {
			t.Errorf("another organization's stage %s: %v", s.StageKey, got[s.ID.String()])
		}
	}
	if len(got) != len(e.Stages(other.ID)) {
		t.Errorf("another organization sees %d stages", len(got))
	}
}

const bulkDoc = `mutation($ids: [ID!]!, $i: BulkUpdateLeadsInput!) { bulkUpdateLeads(ids: $ids, input: $i) { id stageId primaryAdvisorId priority tags } }`

// outbox is the organization's outbox events about lead id: each event's
// type and data, the lead's id left out.
func outbox(t *testing.T, e *resttest.Env, id string) []string {
	t.Helper()
	evs, err := e.DB.Client.WebhookEvent.Query().Where(webhookevent.OrgID(e.Org.ID)).
		Order(webhookevent.ByOccurredAt(), webhookevent.ByID()).All(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs {
		if ev.Data["leadId"] != id {
			continue
		}
		if ev.EventType == "lead.created" {
			continue // the twins differ by name
		}
		d := maps.Clone(ev.Data)
		delete(d, "leadId")
		out = append(out, fmt.Sprintf("%s %v", ev.EventType, d))
	}
	return out
}

// A bulk change gives each lead the events the same single mutations give
// a twin lead; it changes all its leads or none; it is bounded.
func TestBulkUpdateLeads(t *testing.T) {
	e := resttest.New(t)
	stages := e.Stages(e.Org.ID)
	advisor := e.NewUser(e.Org.ID, "Ada", "Advisor", "advisor", "Closers").ID.String()
	lead := func(name string) string {
		return newLead(t, e, map[string]any{"businessName": name, "stageId": stages[0].ID.String(), "requestedAmount": "5000.50",
			"tags": []string{"old", "keep"}})
	}
	bulk := []string{lead("Bulk one"), lead("Bulk two")}
	single := lead("Single")
	target := stages[2].ID.String()

	t.Run("ErrOneMissingRollsBackAll", func(t *testing.T) {
		missing := uuid.NewString()
		r := e.Post("/graphql", e.Key, map[string]any{"query": bulkDoc,
			"variables": map[string]any{"ids": append(slices.Clone(bulk), missing), "i": map[string]any{"stageId": target, "priority": "high"}}})
		if !strings.Contains(string(r.Raw), `"NOT_FOUND"`) || !strings.Contains(string(r.Raw), missing) {
			t.Fatalf("a bulk change naming a missing lead: %s", r.Raw)
		}
		for _, id := range bulk {
			if got := outbox(t, e, id); len(got) != 0 {
				t.Errorf("a refused bulk change left events: %v", got)
			}
		}
		if got := boardTotals(t, e, e.Key, nil, "")[target]; got.leads != 0 {
			t.Errorf("a refused bulk change moved leads: %v", got)
		}
	})
	t.Run("ErrAnotherOrganizationsLead", func(t *testing.T) {
		other, otherKey := e.NewOrg("Other Shop", viewer.AllScopes...)
		_ = other
		r := e.Post("/graphql", otherKey, map[string]any{"query": bulkDoc,
			"variables": map[string]any{"ids": bulk[:1], "i": map[string]any{"priority": "low"}}})
		if !strings.Contains(string(r.Raw), `"NOT_FOUND"`) || !strings.Contains(string(r.Raw), bulk[0]) {
			t.Fatalf("another organization's bulk change: %s", r.Raw)
		}
	})
	t.Run("ErrTooMany", func(t *testing.T) {
		ids := make([]string, 501)
		for i := range ids {
			ids[i] = uuid.NewString()
		}
		r := e.Post("/graphql", e.Key, map[string]any{"query": bulkDoc, "variables": map[string]any{"ids": ids, "i": map[string]any{"priority": "low"}}})
		if !strings.Contains(string(r.Raw), `"VALIDATION_ERROR"`) || !strings.Contains(string(r.Raw), "at most 500 ids") {
			t.Errorf("501 ids: %s", r.Raw)
		}
		// 500 are let through to the flow, which finds them missing.
		// (Selecting one field: the complexity limit prices each lead's.)
		idsDoc := `mutation($ids: [ID!]!, $i: BulkUpdateLeadsInput!) { bulkUpdateLeads(ids: $ids, input: $i) { id } }`
		r = e.Post("/graphql", e.Key, map[string]any{"query": idsDoc, "variables": map[string]any{"ids": ids[:500], "i": map[string]any{"priority": "low"}}})
		if !strings.Contains(string(r.Raw), `"NOT_FOUND"`) {
			t.Errorf("500 missing ids: %s", r.Raw)
		}
		for _, c := range []map[string]any{{}, {"addTags": []string{"x"}, "removeTags": []string{"x"}}} {
			if _, code := gql(t, e, e.Key, bulkDoc, map[string]any{"ids": bulk, "i": c}); code != "VALIDATION_ERROR" {
				t.Errorf("input %v: %q, want VALIDATION_ERROR", c, code)
			}
		}
		if _, code := gql(t, e, e.Key, bulkDoc, map[string]any{"ids": []string{bulk[0], bulk[0]}, "i": map[string]any{"priority": "low"}}); code != "VALIDATION_ERROR" {
			t.Errorf("a lead named twice: %q, want VALIDATION_ERROR", code)
		}
		if _, code := gql(t, e, e.NewKey(e.Org.ID, viewer.ScopeLeadsRead), bulkDoc, map[string]any{"ids": bulk, "i": map[string]any{"priority": "low"}}); code != "FORBIDDEN" {
			t.Errorf("a leads:read key: %q, want FORBIDDEN", code)
		}
	})
	t.Run("OKEventsAsSingleChanges", func(t *testing.T) {
		before := boardTotals(t, e, e.Key, nil, "")
		in := map[string]any{"stageId": target, "primaryAdvisorId": advisor, "priority": "high", "addTags": []string{"new"}, "removeTags": []string{"old"}}
		d, code := gql(t, e, e.Key, bulkDoc, map[string]any{"ids": bulk, "i": in})
		if code != "" {
			t.Fatal(code)
		}
		for i, l := range d["bulkUpdateLeads"].([]any) {
			m := l.(map[string]any)
			if m["id"] != bulk[i] || m["stageId"] != target || m["primaryAdvisorId"] != advisor || m["priority"] != "high" ||
				fmt.Sprint(m["tags"]) != "[keep new]" {
				t.Errorf("lead %d: %v", i, m)
			}
		}
		// The twin, changed by the single mutations.
		for _, c := range []struct {
			doc  string
			vars map[string]any
		}{
			{`mutation($id: ID!, $s: ID!) { moveLeadToStage(id: $id, stageId: $s) { id } }`, map[string]any{"id": single, "s": target}},
			{`mutation($id: ID!, $u: ID!) { assignLead(id: $id, advisorId: $u) { id } }`, map[string]any{"id": single, "u": advisor}},
			{`mutation($id: ID!) { updateLead(id: $id, input: {priority: high, tags: ["keep", "new"]}) { id } }`, map[string]any{"id": single}},
		} {
			if _, code := gql(t, e, e.Key, c.doc, c.vars); code != "" {
				t.Fatal(code)
			}
		}
		want := outbox(t, e, single)
		if len(want) != 4 {
			t.Fatalf("the single changes' events: %v", want)
		}
		for _, id := range bulk {
			if got := outbox(t, e, id); !slices.Equal(got, want) {
				t.Errorf("lead %s's events:\n%v\nthe single changes':\n%v", id, got, want)
			}
		}
		after := boardTotals(t, e, e.Key, nil, "")
		if got := after[target]; got.leads != before[target].leads+3 || got.amount != "15001.50" {
			t.Errorf("the target stage after the moves: %v", got)
		}
	})
}
