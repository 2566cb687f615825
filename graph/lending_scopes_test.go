package graph_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/lendingpipe/svc/internal/viewer"
)

// TestLendingScopes: lending:read reads the lending half, lending:write
// reads and writes it, admin does all; a key with only the leads scopes
// does neither (PRODUCT 1.6, 1.7). Every read and every write operation
// is tried with every key.
func TestLendingScopes(t *testing.T) {
	l := newLendingEnv(t)
	a := map[string]string{"lead": l.lead(t, nil)}
	lendingFixtures(t, l.Env, a)
	keys := []struct {
		name        string
		scopes      []string
		read, write bool
	}{
		{"LeadsOnly", []string{viewer.ScopeLeadsRead, viewer.ScopeLeadsWrite}, false, false},
		{"LendingRead", []string{viewer.ScopeLendingRead}, true, false},
		{"LendingWrite", []string{viewer.ScopeLendingWrite}, true, true},
		{"Admin", []string{viewer.ScopeAdmin}, true, true},
	}
	reads := map[string]struct {
		doc  string
		vars map[string]any
		want string // an id the answer must hold
	}{
		"lenders":          {`{ lenders { edges { node { id } } } }`, nil, a["lender"]},
		"applications":     {`{ applications { edges { node { id } } } }`, nil, a["application"]},
		"fundedDeals":      {`{ fundedDeals { edges { node { id } } } }`, nil, a["deal"]},
		"commissions":      {`{ commissions { edges { node { id payments { id } } } } }`, nil, a["payment"]},
		"lendersPage":      {`{ lendersPage { nodes { id } } }`, nil, a["lender"]},
		"applicationsPage": {`{ applicationsPage { nodes { id } } }`, nil, a["application"]},
		"fundedDealsPage":  {`{ fundedDealsPage { nodes { id } } }`, nil, a["deal"]},
		"commissionsPage":  {`{ commissionsPage { nodes { id } } }`, nil, a["commission"]},
		"edges": {`query($id: ID!) { node(id: $id) { ... on Application { lender { id } fundedDeal { commission { id } } } } }`,
			map[string]any{"id": a["application"]}, a["commission"]},
	}
	for _, name := range []string{"lender", "application", "deal", "commission", "payment"} {
		reads["node/"+name] = struct {
			doc  string
			vars map[string]any
			want string
		}{`query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": a[name]}, a[name]}
	}
	for _, k := range keys {
		key := l.NewKey(l.Org.ID, k.scopes...)
		t.Run(k.name, func(t *testing.T) {
			for name, r := range reads {
				raw := post(t, l.Env, key, gqlCase{r.doc, r.vars})
				switch saw := strings.Contains(raw, `"id":"`+r.want+`"`); {
				case k.read && !saw:
					t.Errorf("read %s: the answer lacks %s: %s", name, r.want, raw)
				case !k.read && (saw || !strings.Contains(raw, `"errors"`)):
					t.Errorf("read %s: a key without lending:read was answered: %s", name, raw)
				case !k.read && !strings.Contains(raw, `"FORBIDDEN"`) && !strings.Contains(raw, `"NOT_FOUND"`):
					t.Errorf("read %s: refused with another code: %s", name, raw)
				}
			}
			for _, w := range l.lendingWrites(t, a["lender"], k.name) {
				data, ext := gqlExt(t, l.Env, key, w.doc, w.vars)
				if k.write && ext != nil {
					t.Errorf("write %s refused: %v", w.name, ext)
				}
				if !k.write && (ext == nil || ext["code"] != "FORBIDDEN") {
					t.Errorf("write %s by a key without lending:write: %v %v, want FORBIDDEN", w.name, data, ext)
				}
				if !k.write && w.check != nil {
					w.check(t)
				}
			}
		})
	}
}

type lendingWrite struct {
	name  string
	doc   string
	vars  map[string]any
	check func(t *testing.T) // that a refused write changed nothing
}

// lendingWrites returns one call of each lending mutation, each on records
// of its own, made with the full key.
func (l *lendingEnv) lendingWrites(t *testing.T, lender, tag string) []lendingWrite {
	t.Helper()
	app := func(status string) string { id, _ := l.inStatus(t, lender, status); return id }
	unchanged := func(id, status string) func(*testing.T) {
		return func(t *testing.T) {
			if got := l.application(t, id)["status"]; got != status {
				t.Errorf("a refused write moved the application to %v", got)
			}
		}
	}
	underwrite, decide, withdraw, fund := app("submitted"), app("submitted"), app("approved"), app("approved")
	deal := l.fund(t, map[string]any{"applicationId": app("approved"), "commission": "100"})["id"].(string)
	l.must(t, `mutation($d: ID!) { recordCommissionPayment(input: {dealId: $d, amount: "10"}) { id } }`, map[string]any{"d": deal})
	paid := func(t *testing.T) {
		c := l.must(t, `query($d: ID) { commissionsPage(dealId: $d) { nodes { paidAmount } } }`, map[string]any{"d": deal})
		if got := c["commissionsPage"].(map[string]any)["nodes"].([]any)[0].(map[string]any)["paidAmount"]; got != "10.00" {
			t.Errorf("a refused write changed the paid amount to %v", got)
		}
	}
	return []lendingWrite{
		{"createLender", `mutation($n: String!) { createLender(input: {name: $n}) { id } }`, map[string]any{"n": "Lender of " + tag}, nil},
		{"updateLender", `mutation($id: ID!, $n: String!) { updateLender(id: $id, input: {contactEmail: $n}) { id } }`,
			map[string]any{"id": lender, "n": strings.ToLower(tag) + "@lender.example"}, nil},
		{"submitApplication", submitDoc, submitInput(l.lead(t, nil), lender, map[string]any{"requestedAmount": "100"}), nil},
		{"markApplicationUnderwriting", underwriteDoc, map[string]any{"id": underwrite}, unchanged(underwrite, "submitted")},
		{"decideApplication", approveDoc, map[string]any{"id": decide}, unchanged(decide, "submitted")},
		{"withdrawApplication", withdrawDoc, map[string]any{"id": withdraw}, unchanged(withdraw, "approved")},
		{"fundDeal", fundDoc, map[string]any{"id": fund}, unchanged(fund, "approved")},
		{"recordCommissionPayment", `mutation($d: ID!) { recordCommissionPayment(input: {dealId: $d, amount: "1"}) { id } }`,
			map[string]any{"d": deal}, paid},
		{"recordCommissionClawback", `mutation($d: ID!) { recordCommissionClawback(input: {dealId: $d, amount: "1"}) { id } }`,
			map[string]any{"d": deal}, paid},
	}
}

// The lending writes named above are every lending mutation of the schema.
func TestLendingScopesCoverEveryMutation(t *testing.T) {
	l := newLendingEnv(t)
	lender := l.lender(t, "Coverage Capital", nil)
	named := map[string]bool{}
	for _, w := range l.lendingWrites(t, lender, "x") {
		named["Mutation."+w.name] = true
	}
	for _, f := range lendingOperationFields(t) {
		if strings.HasPrefix(f, "Mutation.") && !named[f] {
			t.Errorf("%s is not tried by TestLendingScopes", f)
		}
	}
	if len(named) != 9 {
		t.Errorf("%d writes, want 9: %v", len(named), fmt.Sprint(named))
	}
}

// lendingOperationFields lists the Query and Mutation fields lending.graphql
// declares.
func lendingOperationFields(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("lending.graphql")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parser.ParseSchema(&ast.Source{Name: "lending.graphql", Input: string(src)})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, def := range doc.Extensions {
		if def.Name == "Query" || def.Name == "Mutation" {
			for _, f := range def.Fields {
				out = append(out, def.Name+"."+f.Name)
			}
		}
	}
	return out
}
