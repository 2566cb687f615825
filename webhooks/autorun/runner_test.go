package autorun

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/automationrun"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/autodef"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/leads"
)

// The runner takes the queued runs that are due, and only those, and
// applies the automation's actions in order through the operations: the
// lead is created, tagged, assigned and moved as the API would, with its
// events written by the automation at the run's depth.
func TestRunnerAppliesDueRuns(t *testing.T) {
	e := newEnv(t)
	advisor, err := store.CreateUser(context.Background(), e.db.Client, store.UserSpec{OrgID: e.org.ID, First: "Al", Last: "Advisor", Email: "al@acme.example", Role: "advisor"})
	if err != nil {
		t.Fatal(err)
	}
	a := e.automate(t, e.onEndpoint(t),
		autodef.Action{Type: autodef.CreateLead},
		autodef.Action{Type: autodef.AddTags, Tags: []string{"hot"}},
		autodef.Action{Type: autodef.AssignAdvisor, AdvisorID: &advisor.ID},
		autodef.Action{Type: autodef.MoveStage, StageID: &e.stages[2].ID})
	due := e.queue(t, a, map[string]any{"businessName": "Runner Co", "email": "ops@runner.example"}, 0)
	later := e.queue(t, a, map[string]any{"businessName": "Later Co"}, time.Hour)

	if n := e.step(t); n != 1 {
		t.Fatalf("the runner took %d runs, want the 1 due", n)
	}
	run := e.reload(t, due)
	wantStatus(t, run, automationrun.StatusSucceeded, 1)
	if run.Error != nil || !run.FinishedAt.Equal(e.clock.now()) {
		t.Errorf("run error %v, finished at %v; want none, at %v", deref(run.Error), run.FinishedAt, e.clock.now())
	}
	var steps []string
	for _, s := range run.Applied {
		steps = append(steps, fmt.Sprint(s["action"]))
	}
	want := []string{autodef.CreateLead, autodef.AddTags, autodef.AssignAdvisor, autodef.MoveStage}
	if !slices.Equal(steps, want) {
		t.Errorf("applied %v, want %v", steps, want)
	}
	leads := e.leads(t)
	if len(leads) != 1 || run.LeadID == nil || *run.LeadID != leads[0].ID {
		t.Fatalf("%d leads; run's lead %v", len(leads), run.LeadID)
	}
	l := leads[0]
	actor := "automation:" + a.ID.String()
	if deref(l.BusinessName) != "Runner Co" || deref(l.Email) != "ops@runner.example" || !slices.Equal(l.Tags, []string{"hot"}) ||
		deref(l.PrimaryAdvisorID) != advisor.ID || l.StageID != e.stages[2].ID || l.Source != "api" || deref(l.CreatedBy) != actor {
		t.Errorf("lead = %+v", l)
	}
	evs, err := e.db.Client.WebhookEvent.Query().Where(webhookevent.OrgID(e.org.ID)).Order(webhookevent.ByOccurredAt(), webhookevent.ByID()).All(e.sys)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, ev := range evs {
		types = append(types, ev.EventType)
		if ev.Depth != run.Depth {
			t.Errorf("%s at depth %d, want the run's %d", ev.EventType, ev.Depth, run.Depth)
		}
	}
	if want := []string{event.LeadCreated, event.LeadUpdated, event.LeadAssigned, event.LeadStatusChanged, event.LeadStageChanged}; !slices.Equal(types, want) {
		t.Errorf("events %v, want %v", types, want)
	}
	if by := evs[len(evs)-1].Data["changedBy"]; by != actor {
		t.Errorf("changedBy = %v, want %s", by, actor)
	}

	wantStatus(t, e.reload(t, later), automationrun.StatusQueued, 0)
	if n := e.step(t); n != 0 {
		t.Fatalf("the runner took %d runs before the next was due", n)
	}
	e.clock.advance(time.Hour)
	if n := e.step(t); n != 1 {
		t.Fatalf("the runner took %d runs once the next was due, want 1", n)
	}
	wantStatus(t, e.reload(t, later), automationrun.StatusSucceeded, 1)
	wantStatus(t, e.reload(t, due), automationrun.StatusSucceeded, 1) // not run again
	if n := len(e.leads(t)); n != 2 {
		t.Errorf("%d leads, want 2", n)
	}
}

// A run whose conditions do not hold, or whose automation was deactivated
// after it was queued, is skipped with the reason and changes nothing.
func TestRunnerSkipsWithTheReason(t *testing.T) {
	e := newEnv(t)
	conditional := e.automate(t, func(c *ent.AutomationCreate) {
		e.onEndpoint(t)(c)
		c.SetConditions([]autodef.Condition{{Path: "$.requestedAmount", Op: autodef.OpGte, Value: 10000.0}})
	}, autodef.Action{Type: autodef.CreateLead})
	small := e.queue(t, conditional, map[string]any{"businessName": "Small", "requestedAmount": "500"}, 0)
	deactivated := e.automate(t, e.onEndpoint(t), autodef.Action{Type: autodef.CreateLead})
	queued := e.queue(t, deactivated, map[string]any{"businessName": "Too late"}, 0)
	if err := e.db.Client.Automation.UpdateOneID(deactivated.ID).SetIsActive(false).Exec(e.admin); err != nil {
		t.Fatal(err)
	}
	if n := e.step(t); n != 2 {
		t.Fatalf("the runner took %d runs, want 2", n)
	}
	for run, why := range map[*ent.AutomationRun]string{
		small:  "conditions[0] ($.requestedAmount gte) does not hold",
		queued: "the automation was deactivated before the run was applied",
	} {
		got := e.reload(t, run)
		wantStatus(t, got, automationrun.StatusSkipped, 1)
		if deref(got.Error) != why || len(got.Applied) != 0 || got.LeadID != nil {
			t.Errorf("skipped run: reason %q, applied %v, lead %v; want %q and nothing applied", deref(got.Error), got.Applied, got.LeadID, why)
		}
	}
	if n := len(e.leads(t)); n != 0 {
		t.Errorf("skipped runs created %d leads", n)
	}
}

// A run that cannot succeed by waiting (a required field missing, an
// action the rules refuse) fails at its first attempt with the reason, and
// what its earlier actions did is undone: a run is applied whole or not at
// all. Other runs of the same batch stand.
func TestRunnerFailsAtOnceWhenRetryingCannotHelp(t *testing.T) {
	e := newEnv(t)
	required := e.automate(t, func(c *ent.AutomationCreate) {
		e.onEndpoint(t)(c)
		c.SetRequiredFields([]string{"email"})
	}, autodef.Action{Type: autodef.CreateLead})
	missing := e.queue(t, required, map[string]any{"businessName": "No email"}, 0)
	tagging := e.automate(t, e.onEndpoint(t), autodef.Action{Type: autodef.CreateLead}, autodef.Action{Type: autodef.AddTags, Tags: []string{"one too many"}})
	full := make([]string, 50)
	for i := range full {
		full[i] = fmt.Sprint("tag", i)
	}
	halfway := e.queue(t, tagging, map[string]any{"businessName": "Half applied", "tags": full}, 0)
	fine := e.queue(t, required, map[string]any{"businessName": "Fine", "email": "fine@example.com"}, 0)

	if n := e.step(t); n != 3 {
		t.Fatalf("the runner took %d runs, want 3", n)
	}
	for run, why := range map[*ent.AutomationRun]string{
		missing: "email: is required by the automation but the mapping found no value",
		halfway: "tags: actions[1] (add_tags): at most 50 tags are allowed",
	} {
		got := e.reload(t, run)
		wantStatus(t, got, automationrun.StatusFailed, 1)
		if deref(got.Error) != why || got.LeadID != nil {
			t.Errorf("failed run: error %q, lead %v; want %q and no lead", deref(got.Error), got.LeadID, why)
		}
	}
	wantStatus(t, e.reload(t, fine), automationrun.StatusSucceeded, 1)
	leads := e.leads(t)
	if len(leads) != 1 || deref(leads[0].BusinessName) != "Fine" {
		t.Fatalf("leads after the batch: %d; want only the successful run's", len(leads))
	}
	n, err := e.db.Client.WebhookEvent.Query().Where(webhookevent.EventType(event.LeadCreated)).Count(e.sys)
	if err != nil || n != 1 {
		t.Errorf("%d lead.created events (%v): the failed run's create_lead was announced", n, err)
	}
}

// A run that may succeed later (the lead update_lead matches is not there
// yet) is retried on the schedule: not before its delay, once per step,
// until the schedule is spent, when it fails with the last reason.
func TestRunnerRetriesWithBackoffThenGivesUp(t *testing.T) {
	schedule := []time.Duration{0, time.Minute, 5 * time.Minute}
	e := newEnv(t, schedule...)
	a := e.automate(t, e.onEndpoint(t), autodef.Action{Type: autodef.UpdateLead, MatchBy: "email"},
		autodef.Action{Type: autodef.AddTags, Tags: []string{"matched"}})
	run := e.queue(t, a, map[string]any{"email": "later@example.com", "industry": "Freight"}, 0)
	why := `actions[0] (update_lead): no lead has email = "later@example.com"`
	for attempt := 1; attempt <= len(schedule); attempt++ {
		if n := e.step(t); n != 1 {
			t.Fatalf("attempt %d: the runner took %d runs, want 1", attempt, n)
		}
		got := e.reload(t, run)
		if deref(got.Error) != why {
			t.Errorf("attempt %d: error %q, want %q", attempt, deref(got.Error), why)
		}
		if attempt == len(schedule) {
			wantStatus(t, got, automationrun.StatusFailed, attempt)
			break
		}
		wantStatus(t, got, automationrun.StatusQueued, attempt)
		delay := schedule[attempt]
		if want := e.clock.now().Add(delay); !got.NextAttemptAt.Equal(want) {
			t.Fatalf("attempt %d: next attempt at %v, want %v", attempt, got.NextAttemptAt, want)
		}
		e.clock.advance(delay - time.Millisecond)
		if n := e.step(t); n != 0 {
			t.Fatalf("attempt %d: the runner retried %d runs before the delay was over", attempt, n)
		}
		e.clock.advance(time.Millisecond)
	}
	e.clock.advance(time.Hour)
	if n := e.step(t); n != 0 {
		t.Errorf("the runner took %d runs after giving up", n)
	}
}

// Once the cause clears, the retry succeeds, and the earlier failure's
// reason is cleared from the record.
func TestRunnerRetrySucceedsOnceTheCauseClears(t *testing.T) {
	e := newEnv(t, 0, time.Minute, time.Minute)
	a := e.automate(t, e.onEndpoint(t), autodef.Action{Type: autodef.UpdateLead, MatchBy: "email"})
	run := e.queue(t, a, map[string]any{"email": "late@example.com", "industry": "Freight"}, 0)
	e.step(t)
	wantStatus(t, e.reload(t, run), automationrun.StatusQueued, 1)
	l, err := leads.Create(e.admin, e.db.Client, ent.CreateLeadInput{}, leads.Fields(e.db.Client.Lead.Create().SetBusinessName("Late Arrival").SetEmail("late@example.com")))
	if err != nil {
		t.Fatal(err)
	}
	e.clock.advance(time.Minute)
	e.step(t)
	got := e.reload(t, run)
	wantStatus(t, got, automationrun.StatusSucceeded, 2)
	if got.Error != nil || got.LeadID == nil || *got.LeadID != l.ID {
		t.Errorf("run: error %v, lead %v; want no error and %s", deref(got.Error), got.LeadID, l.ID)
	}
	if l, err = e.db.Client.Lead.Get(e.sys, l.ID); err != nil || deref(l.Industry) != "Freight" {
		t.Errorf("lead industry %v (%v), want the run's update", deref(l.Industry), err)
	}
}

// Runs queued for one inbound request close it once none is queued: as
// processed when all finished, as failed with the failure when one failed.
func TestRunnerClosesTheInboundRequest(t *testing.T) {
	e := newEnv(t)
	create := e.automate(t, e.onEndpoint(t), autodef.Action{Type: autodef.CreateLead})
	strict := e.automate(t, func(c *ent.AutomationCreate) {
		e.onEndpoint(t)(c)
		c.SetRequiredFields([]string{"email"})
	}, autodef.Action{Type: autodef.CreateLead})
	request := func(autos ...*ent.Automation) *ent.InboundRequest {
		req, err := e.db.Client.InboundRequest.Create().SetOrgID(e.org.ID).SetEndpointID(*autos[0].EndpointID).
			SetReceivedAt(e.clock.now()).SetSignatureValid(true).SetTimestampSigned(true).Save(e.sys)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range autos {
			err := e.db.Client.AutomationRun.Create().SetOrgID(e.org.ID).SetAutomationID(a.ID).SetInboundRequestID(req.ID).
				SetInput(map[string]any{"businessName": "Requested"}).SetNextAttemptAt(e.clock.now()).Exec(e.sys)
			if err != nil {
				t.Fatal(err)
			}
		}
		return req
	}
	ok, failed := request(create), request(create, strict)
	e.step(t)
	if got, _ := e.db.Client.InboundRequest.Get(e.sys, ok.ID); got.Status != "processed" || got.Error != nil {
		t.Errorf("request whose run succeeded: %s, %v", got.Status, deref(got.Error))
	}
	got, _ := e.db.Client.InboundRequest.Get(e.sys, failed.ID)
	if got.Status != "failed" || !strings.Contains(fmt.Sprint(deref(got.Error)), "email: is required") || deref(got.ErrorCode) != "VALIDATION_ERROR" {
		t.Errorf("request with a failed run: %s, %v (%v)", got.Status, deref(got.Error), deref(got.ErrorCode))
	}
}

// Two runners on one database, each with its own connections as two
// server processes have, drain a queue together and never apply a run
// twice: every run succeeds at its first attempt, and each created one
// lead. (SQLite is one process's file: there the two runners share it.)
func TestTwoRunnersNeverRunARunTwice(t *testing.T) {
	e := newEnv(t)
	second := e.db
	if os.Getenv(storetest.EnvURL) != "" {
		// PostgreSQL: a second pool over the same schema.
		db, err := store.Open(context.Background(), e.url, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		second = db
	}
	a := e.automate(t, e.onEndpoint(t), autodef.Action{Type: autodef.CreateLead}, autodef.Action{Type: autodef.AddTags, Tags: []string{"once"}})
	const n = 200
	for i := range n {
		e.queue(t, a, map[string]any{"businessName": fmt.Sprintf("Queued %d", i)}, 0)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, db := range []*store.DB{e.db, second} {
		r := New(db, e.cfg, time.Now, quiet())
		wg.Go(func() { r.Run(ctx) })
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		left, err := e.db.Client.AutomationRun.Query().Where(automationrun.StatusEQ(automationrun.StatusQueued)).Count(e.sys)
		if err != nil {
			t.Fatal(err)
		}
		if left == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	runs, err := e.db.Client.AutomationRun.Query().All(e.sys)
	if err != nil {
		t.Fatal(err)
	}
	leadOf := map[uuid.UUID]bool{}
	for _, run := range runs {
		if run.Status != automationrun.StatusSucceeded || run.Attempts != 1 || run.LeadID == nil {
			t.Errorf("run %s: %s after %d attempts (error %v)", run.ID, run.Status, run.Attempts, deref(run.Error))
			continue
		}
		leadOf[*run.LeadID] = true
	}
	if leads := e.leads(t); len(leads) != n || len(leadOf) != n {
		t.Errorf("%d leads, %d distinct leads named by runs; want %d of each", len(leads), len(leadOf), n)
	}
}
