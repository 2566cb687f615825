package leads_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/lendingpipe/svc/activity"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/history"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/leads"
)

// The lead flows write the lead's history in their transaction: each
// entry's kind, changes and actor, newest first; a rolled-back change
// leaves none.
func TestFlowsRecordTheLeadsHistory(t *testing.T) {
	e := newEnv(t)
	c := e.db.Client
	name, phone := "Acme Bakery", "555-0100"
	l, err := leads.Create(e.as, c, ent.CreateLeadInput{BusinessName: &name, Tags: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	renamed := "Acme Bakery & Cafe"
	if _, err := leads.Update(e.as, c, l.ID, ent.UpdateLeadInput{BusinessName: &renamed, Phone: &phone, AppendTags: []string{"b"}}); err != nil {
		t.Fatal(err)
	}
	// Setting what is already there changes nothing: no entry.
	if _, err := leads.Update(e.as, c, l.ID, ent.UpdateLeadInput{Phone: &phone}); err != nil {
		t.Fatal(err)
	}
	if _, err := leads.MoveStage(e.as, c, l.ID, e.stages[1].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := leads.MarkDoNotCall(e.as, c, l, time.Now(), nil); err != nil {
		t.Fatal(err)
	}
	// A change rolled back leaves no entry.
	boom := errors.New("boom")
	err = store.WithTx(e.as, c, func(ctx context.Context, tx *ent.Client) error {
		other := "Rolled Back"
		if _, err := leads.Update(ctx, tx, l.ID, ent.UpdateLeadInput{BusinessName: &other}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("the rolled-back update: %v", err)
	}

	page, err := activity.List(e.as, c, l.ID, activity.Query{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, it := range page.Items {
		kinds = append(kinds, it.Kind)
		if it.Actor.Type != history.ActorAPIKey || it.Actor.ID == nil {
			t.Errorf("%s: actor %+v, want the API key", it.Kind, it.Actor)
		}
	}
	want := []string{history.LeadUpdated, history.LeadStageChanged, history.LeadUpdated, history.LeadCreated}
	if !slices.Equal(kinds, want) || page.Total != 4 || page.HasMore {
		t.Fatalf("kinds %v (total %d, more %v), want %v", kinds, page.Total, page.HasMore, want)
	}
	update := page.Items[2]
	wantChanges := []history.Change{
		{Field: "businessName", From: name, To: renamed},
		{Field: "phone", From: nil, To: phone},
		{Field: "tags", From: []any{"a"}, To: []any{"a", "b"}},
	}
	if !equalChanges(update.Changes, wantChanges) {
		t.Errorf("update changes %+v, want %+v", update.Changes, wantChanges)
	}
	move := page.Items[1]
	if move.Summary != "Moved from "+e.stages[0].StageLabel+" to "+e.stages[1].StageLabel {
		t.Errorf("move summary %q", move.Summary)
	}
	dnc := page.Items[0]
	if len(dnc.Changes) != 2 || dnc.Changes[0].Field != "isDoNotCall" || dnc.Changes[1].Field != "dncAt" {
		t.Errorf("do-not-call changes %+v, want isDoNotCall and dncAt", dnc.Changes)
	}

	// Pages follow each other by cursor.
	first, err := activity.List(e.as, c, l.ID, activity.Query{Limit: 3})
	if err != nil || !first.HasMore || len(first.Items) != 3 {
		t.Fatalf("first page: %d items, more %v, %v", len(first.Items), first.HasMore, err)
	}
	rest, err := activity.List(e.as, c, l.ID, activity.Query{Limit: 3, After: first.Cursors[2]})
	if err != nil || rest.HasMore || len(rest.Items) != 1 || rest.Items[0].Kind != history.LeadCreated {
		t.Fatalf("second page: %+v, %v", rest.Items, err)
	}
}

func equalChanges(got, want []history.Change) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i].Field != want[i].Field || !equalJSONValue(got[i].From, want[i].From) || !equalJSONValue(got[i].To, want[i].To) {
			return false
		}
	}
	return true
}

func equalJSONValue(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
