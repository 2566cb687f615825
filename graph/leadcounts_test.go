package graph_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics"
	"github.com/lendingpipe/svc/analytics/rollup"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/leads"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/seed"
)

// stageTotals is what each surface says a stage holds: the leads
// connection's totalCount filtered on the stage alone (a kept count), the
// same with a filter no kept count covers (a count of the rows), the REST
// list's total, and a count of the rows in the database.
func stageTotals(t *testing.T, e *resttest.Env, stage uuid.UUID) [4]int {
	t.Helper()
	data, code := gql(t, e, e.Key, `query($s: ID!) {
		kept: leads(first: 1, where: {stageId: $s}) { totalCount totalCountIsExact }
		rows: leads(first: 1, where: {stageId: $s, businessNameNEQ: "-"}) { totalCount totalCountIsExact } }`,
		map[string]any{"s": stage})
	if code != "" {
		t.Fatalf("error %s", code)
	}
	var out [4]int
	for i, name := range []string{"kept", "rows"} {
		conn := data[name].(map[string]any)
		if conn["totalCountIsExact"] != true {
			t.Errorf("%s: totalCountIsExact = %v", name, conn["totalCountIsExact"])
		}
		out[i] = int(conn["totalCount"].(float64))
	}
	r := e.Get("/v1/leads?limit=1&stageId="+stage.String(), e.Key)
	if r.Status != http.StatusOK {
		t.Fatalf("list: %s", r.Raw)
	}
	out[2] = int(r.Meta()["total"].(float64))
	n, err := e.DB.Client.Lead.Query().Where(lead.OrgID(e.Org.ID), lead.StageID(stage)).
		Count(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	out[3] = n
	return out
}

// A stage's totalCount, read from the kept counts, stays exact through
// creations, concurrent moves between stages and an import's batch, on
// both surfaces.
func TestStageTotalCountIsKept(t *testing.T) {
	e := resttest.New(t)
	stages := e.Stages(e.Org.ID)
	a, b := stages[0].ID, stages[1].ID
	var ids []string
	for i := range 12 {
		body := map[string]any{"businessName": fmt.Sprintf("Lead %d", i)}
		if i%3 == 0 {
			body["stageId"] = b
		}
		r := e.Post("/v1/leads", e.Key, body)
		if r.Status != http.StatusCreated {
			t.Fatalf("create: %s", r.Raw)
		}
		ids = append(ids, r.Data()["id"].(string))
	}
	check := func(when string, want map[uuid.UUID]int) {
		t.Helper()
		for stage, n := range want {
			if got := stageTotals(t, e, stage); got != [4]int{n, n, n, n} {
				t.Errorf("%s: stage %s: kept, counted, REST, rows = %v, want %d", when, stage, got, n)
			}
		}
	}
	check("after creating", map[uuid.UUID]int{a: 8, b: 4})

	// Every lead moves to b and back to a, some of them at once.
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			for _, to := range []uuid.UUID{b, a} {
				if r := e.Post("/v1/leads/"+id+"/stage", e.Key, map[string]any{"stageId": to}); r.Status != http.StatusOK {
					t.Errorf("move: %s", r.Raw)
				}
			}
		})
	}
	wg.Wait()
	check("after the moves", map[uuid.UUID]int{a: 12, b: 0})

	// An import's batch adds its leads to the counts once, at its end.
	err := store.WithTx(rule.SystemContext(context.Background()), e.DB.Client, func(ctx context.Context, tx *ent.Client) error {
		bctx, batch := rollup.WithCreateBatch(ctx)
		for i := range 5 {
			_, err := leads.Create(bctx, tx, ent.CreateLeadInput{}, leads.Fields(tx.Lead.Create().SetOrgID(e.Org.ID).SetStageID(b).SetBusinessName(fmt.Sprintf("Imported %d", i))))
			if err != nil {
				return err
			}
		}
		return batch.Flush(ctx, tx)
	})
	if err != nil {
		t.Fatal(err)
	}
	check("after an import", map[uuid.UUID]int{a: 12, b: 5})

	// Both stages at once.
	data, _ := gql(t, e, e.Key, `query($s: [ID!]) { leads(first: 1, where: {stageIdIn: $s}) { totalCount } }`,
		map[string]any{"s": []uuid.UUID{a, b, a}})
	if n := data["leads"].(map[string]any)["totalCount"]; n != 17.0 {
		t.Errorf("stageIdIn totalCount = %v, want 17", n)
	}
}

// Counts kept before they were kept by stage (rows without a stage) could
// be any stage's: until the rebuild replaces them, a stage's total is a
// count of its leads.
func TestStageTotalCountWithCountsFromBeforeStages(t *testing.T) {
	e := resttest.New(t)
	stage := e.Stages(e.Org.ID)[0].ID
	for range 3 {
		if r := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Acme"}); r.Status != http.StatusCreated {
			t.Fatalf("create: %s", r.Raw)
		}
	}
	sys := rule.SystemContext(context.Background())
	if _, err := e.DB.Client.LeadCount.Delete().Exec(sys); err != nil {
		t.Fatal(err)
	}
	if err := e.DB.Client.LeadCount.Create().SetOrgID(e.Org.ID).SetSlot(0).SetN(3).Exec(sys); err != nil {
		t.Fatal(err)
	}
	if got := stageTotals(t, e, stage); got != [4]int{3, 3, 3, 3} {
		t.Errorf("kept, counted, REST, rows = %v, want 3 each", got)
	}
	if err := analytics.RebuildRollups(context.Background(), e.DB.Client, e.Org.ID); err != nil {
		t.Fatal(err)
	}
	if got := stageTotals(t, e, stage); got != [4]int{3, 3, 3, 3} {
		t.Errorf("after the rebuild: kept, counted, REST, rows = %v, want 3 each", got)
	}
}

// A filter no kept count covers is counted up to graph.MaxCounted matches;
// beyond, totalCount is MaxCounted and totalCountIsExact false. The REST
// list's total stays exact (SPEC).
func TestUncoveredFilterCountIsBounded(t *testing.T) {
	e := resttest.New(t)
	if err := seed.Leads(context.Background(), e.DB, e.Org.ID, graph.MaxCounted+5, nil); err != nil {
		t.Fatal(err)
	}
	data, code := gql(t, e, e.Key, `{
		some: leads(first: 1, where: {businessNameNEQ: "-"}) { totalCount totalCountIsExact }
		few: leads(first: 1, where: {businessNameNEQ: "-", createdAtLT: "2000-01-01T00:00:00Z"}) { totalCount totalCountIsExact }
		all: leads(first: 1) { totalCount totalCountIsExact } }`, nil)
	if code != "" {
		t.Fatalf("error %s", code)
	}
	for name, want := range map[string][2]any{
		"some": {float64(graph.MaxCounted), false},
		"few":  {0.0, true},
		"all":  {float64(graph.MaxCounted + 5), true},
	} {
		conn := data[name].(map[string]any)
		if got := [2]any{conn["totalCount"], conn["totalCountIsExact"]}; got != want {
			t.Errorf("%s: totalCount, totalCountIsExact = %v, want %v", name, got, want)
		}
	}
	r := e.Get("/v1/leads?limit=1&priority=high", e.Key)
	want, err := e.DB.Client.Lead.Query().Where(lead.OrgID(e.Org.ID), lead.PriorityEQ(lead.PriorityHigh)).
		Count(rule.SystemContext(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != http.StatusOK || r.Meta()["total"] != float64(want) {
		t.Errorf("REST total %v, want %d: %s", r.Meta()["total"], want, r.Raw)
	}
}
