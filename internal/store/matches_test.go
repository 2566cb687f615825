package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
)

// The lender matches' statements of the similar applications each read a
// range of an index that holds every column they read: SQLite says it
// searches a covering index (ent shortens the indexes' long names to a
// prefix and a hash), never that it scans the table, and the middle
// decisions' walks need no sort.
func TestMatchReadsAreCoveringIndexRanges(t *testing.T) {
	db := storetest.Open(t)
	if db.Dialect != dialect.SQLite {
		t.Skip("the plan is SQLite's words")
	}
	ctx := context.Background()
	decided := map[uuid.UUID]int{uuid.New(): 3, uuid.New(): 4}
	counts, countArgs, middle, middleArgs := store.MatchStatements(uuid.New(), time.Now(), 1, "bakery", decided)
	for i, query := range []string{counts, middle} {
		args := [][]any{countArgs, middleArgs}[i]
		rows, err := db.SQL.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		got := strings.Join(plan, "; ")
		if !strings.Contains(got, "SEARCH applications USING COVERING INDEX application_org_id_") || strings.Contains(got, "SCAN applications") ||
			i == 1 && strings.Contains(got, "TEMP B-TREE") {
			t.Errorf("%s\nplan: %s\nwant a covering index range", query, got)
		}
		t.Logf("%s", got)
	}
}

// An application kept before applications carried their amount band and
// industry key gets them when the database opens.
func TestMatchKeysBackfill(t *testing.T) {
	ctx := context.Background()
	sys := rule.SystemContext(ctx)
	url := storetest.URL(t)
	db, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	org, _, err := store.CreateOrganization(ctx, db.Client, "Old Brokers")
	if err != nil {
		t.Fatal(err)
	}
	stage, err := db.Client.PipelineStage.Query().First(sys)
	if err != nil {
		t.Fatal(err)
	}
	industry := "  Dental Practice"
	l, err := db.Client.Lead.Create().SetOrgID(org.ID).SetStageID(stage.ID).SetBusinessName("Old Lead").SetIndustry(industry).Save(sys)
	if err != nil {
		t.Fatal(err)
	}
	ld, err := db.Client.Lender.Create().SetOrgID(org.ID).SetName("Old Lender").Save(sys)
	if err != nil {
		t.Fatal(err)
	}
	a, err := db.Client.Application.Create().SetOrgID(org.ID).SetLeadID(l.ID).SetLenderID(ld.ID).SetLenderName(ld.Name).
		SetRequestedAmount(money.FromCents(7_500_000)).SetSubmittedAt(time.Now()).SetSubmittedBy("system").Save(sys)
	if err != nil {
		t.Fatal(err)
	}
	if a.AmountBand != nil {
		t.Fatal("the application was given a band on creation")
	}
	db.Close()
	db, err = store.Open(ctx, url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Client.Application.Query().Where(application.ID(a.ID)).Only(sys)
	if err != nil {
		t.Fatal(err)
	}
	if got.AmountBand == nil || *got.AmountBand != 2 || got.IndustryKey == nil || *got.IndustryKey != "dental practice" ||
		!got.UpdatedAt.Equal(a.UpdatedAt) {
		t.Fatalf("after the backfill: band %v, industry key %v, updatedAt %v (was %v)", got.AmountBand, got.IndustryKey, got.UpdatedAt, a.UpdatedAt)
	}
}
