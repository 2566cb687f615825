package autorun

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/automationrun"
	"github.com/lendingpipe/svc/ent/commission"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/autodef"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
	"github.com/lendingpipe/svc/lending"
)

// book is a lender with one application of a lead, submitted with the
// lender's reference.
type book struct {
	lender *ent.Lender
	lead   *ent.Lead
	app    *ent.Application
}

// submit creates a lender (commission 8 %), a lead and its application to
// the lender with externalRef ref, as the dashboard does.
func (e *env) submit(t *testing.T, lenderName, ref string) book {
	t.Helper()
	l, err := e.db.Client.Lender.Create().SetName(lenderName).SetCommissionRate(rate(t, "0.08")).Save(e.admin)
	if err != nil {
		t.Fatalf("creating the lender: %v", err)
	}
	return e.submitTo(t, l, ref)
}

// submitTo submits a new lead to l with externalRef ref.
func (e *env) submitTo(t *testing.T, l *ent.Lender, ref string) book {
	t.Helper()
	ld, err := leads.Create(e.admin, e.db.Client, ent.CreateLeadInput{}, leads.Fields(e.db.Client.Lead.Create().SetBusinessName("Harborview Dental "+ref).SetRequestedAmount("60000")))
	if err != nil {
		t.Fatalf("creating the lead: %v", err)
	}
	a, err := lending.Submit(e.admin, e.db.Client, lending.Submission{LeadID: ld.ID, LenderID: l.ID, ExternalRef: &ref})
	if err != nil {
		t.Fatalf("submitting the application: %v", err)
	}
	return book{lender: l, lead: ld, app: a}
}

func rate(t *testing.T, s string) money.Rate {
	t.Helper()
	r, err := money.ParseRate(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// applyOnce applies a run of a with input, as the runner does, and rolls
// back: it returns the action's error as the runner classifies it.
func (e *env) applyOnce(t *testing.T, a *ent.Automation, input map[string]any) error {
	t.Helper()
	errApplied := errors.New("applied")
	ctx := apitime.WithClock(context.Background(), e.clock.now)
	err := store.WithTx(ctx, e.db.Client, func(ctx context.Context, tx *ent.Client) error {
		if _, err := e.runner.apply(ctx, tx, a, &ent.AutomationRun{Input: input, Depth: 1}); err != nil {
			return err
		}
		return errApplied
	})
	if errors.Is(err, errApplied) {
		return nil
	}
	return err
}

func (e *env) events(t *testing.T, types ...string) []*ent.WebhookEvent {
	t.Helper()
	evs, err := e.db.Client.WebhookEvent.Query().Where(webhookevent.OrgID(e.org.ID), webhookevent.EventTypeIn(types...)).
		Order(webhookevent.ByOccurredAt(), webhookevent.ByID()).All(e.sys)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// A lender's decision, its funding notice and its commission remittance,
// each found by the lender's reference, go through the same operations as
// the dashboard's: the application is approved with its offer, then
// funded into a deal with its commission, then paid; the lead moves to the
// approved and won slots; each emits its event at the run's depth, naming
// the automation. Amounts arrive as strings or JSON numbers alike, exactly.
func TestLendingActionsApplyTheLendersNews(t *testing.T) {
	e := newEnv(t)
	b := e.submit(t, "Tidewater Merchant Capital", "TMC-20417")
	decide := e.automate(t, e.onEndpoint(t), autodef.Action{Type: autodef.DecideApplication},
		autodef.Action{Type: autodef.AddTags, Tags: []string{"approved-by-portal"}})
	fund := e.automate(t, e.onEndpoint(t), autodef.Action{Type: autodef.FundDeal})
	pay := e.automate(t, e.onEndpoint(t), autodef.Action{Type: autodef.RecordCommissionPayment})
	ref := map[string]any{"lenderId": b.lender.ID.String(), "externalRef": "TMC-20417"}
	with := func(fields map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range ref {
			out[k] = v
		}
		for k, v := range fields {
			out[k] = v
		}
		return out
	}

	decided := e.queue(t, decide, with(map[string]any{
		"decision": "Approved", "approvedAmount": 50000.1, "interestRate": "1.35", "rateType": "FACTOR",
		"termMonths": 12.0, "paymentFrequency": "daily", "conditions": "voided check", "event": "decision",
	}), 0)
	e.step(t)
	run := e.reload(t, decided)
	wantStatus(t, run, automationrun.StatusSucceeded, 1)
	if got := run.Applied[0]; got["matchedBy"] != "lenderId+externalRef" || got["applicationId"] != b.app.ID.String() ||
		got["status"] != "approved" || got["leadId"] != b.lead.ID.String() {
		t.Errorf("applied = %v", got)
	}
	if run.LeadID == nil || *run.LeadID != b.lead.ID {
		t.Errorf("run's lead = %v, want the application's %s", run.LeadID, b.lead.ID)
	}
	a, err := e.db.Client.Application.Get(e.sys, b.app.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != application.StatusApproved || fmt.Sprint(a.ApprovedAmount) != "50000.10" || fmt.Sprint(a.InterestRate) != "1.35" ||
		*a.RateType != application.RateTypeFactor || *a.TermMonths != 12 || *a.PaymentFrequency != application.PaymentFrequencyDaily ||
		!slices.Equal(a.Conditions, []string{"voided check"}) {
		t.Errorf("application = %+v", a)
	}
	ld, err := e.db.Client.Lead.Query().Where(lead.ID(b.lead.ID)).WithStage().Only(e.sys)
	if err != nil {
		t.Fatal(err)
	}
	if ld.Edges.Stage.SemanticSlot != pipelinestage.SemanticSlotApproved || !slices.Contains(ld.Tags, "approved-by-portal") {
		t.Errorf("lead in slot %s with tags %v; want approved and the tag a later action added", ld.Edges.Stage.SemanticSlot, ld.Tags)
	}

	fundedAt := e.clock.now().Add(-2 * time.Hour)
	// applicationId comes first: the lenderId beside it, the portal's own
	// code for the lender, is not read.
	funded := e.queue(t, fund, map[string]any{"applicationId": b.app.ID.String(), "lenderId": "TMC", "fundedAmount": "50000.10",
		"fundedAt": fundedAt.Format(time.RFC3339Nano), "commission": 4000}, 0)
	e.step(t)
	run = e.reload(t, funded)
	wantStatus(t, run, automationrun.StatusSucceeded, 1)
	d, err := e.db.Client.FundedDeal.Query().Where(fundeddeal.ApplicationID(b.app.ID)).Only(e.sys)
	if err != nil {
		t.Fatal(err)
	}
	if run.Applied[0]["dealId"] != d.ID.String() || run.Applied[0]["matchedBy"] != "applicationId" {
		t.Errorf("applied = %v, deal %s", run.Applied[0], d.ID)
	}
	if fmt.Sprint(d.FundedAmount) != "50000.10" || fmt.Sprint(d.ExpectedCommission) != "4000.00" || !d.FundedAt.Equal(fundedAt) ||
		fmt.Sprint(d.PaybackAmount) != "67500.14" {
		t.Errorf("deal = %+v", d)
	}

	paid := e.queue(t, pay, with(map[string]any{"amount": 1000.5, "paidAt": fundedAt.Add(time.Hour).Format(time.RFC3339Nano), "reference": 98765}), 0)
	e.step(t)
	run = e.reload(t, paid)
	wantStatus(t, run, automationrun.StatusSucceeded, 1)
	cm, err := e.db.Client.Commission.Query().Where(commission.DealID(d.ID)).WithPayments().Only(e.sys)
	if err != nil {
		t.Fatal(err)
	}
	if cm.Status != commission.StatusPartiallyPaid || fmt.Sprint(cm.PaidAmount) != "1000.50" || len(cm.Edges.Payments) != 1 ||
		deref(cm.Edges.Payments[0].Reference) != "98765" {
		t.Errorf("commission = %+v, payments %+v", cm, cm.Edges.Payments)
	}
	if run.Applied[0]["commissionId"] != cm.ID.String() || run.Applied[0]["status"] != "partially_paid" {
		t.Errorf("applied = %v", run.Applied[0])
	}

	evs := e.events(t, event.ApplicationApproved, event.DealFunded, event.DealCommissionPaid)
	var types []string
	for _, ev := range evs {
		types = append(types, ev.EventType)
		if ev.Depth != 1 {
			t.Errorf("%s at depth %d, want the run's 1", ev.EventType, ev.Depth)
		}
	}
	if want := []string{event.ApplicationApproved, event.DealFunded, event.DealCommissionPaid}; !slices.Equal(types, want) {
		t.Fatalf("events %v, want %v", types, want)
	}
	if data := evs[0].Data; data["approvedAmount"] != "50000.10" || data["interestRate"] != "1.35" || data["termMonths"] != 12.0 {
		t.Errorf("application.approved data = %v", data)
	}
	if data := evs[1].Data; data["fundedAmount"] != "50000.10" || data["commission"] != "4000.00" {
		t.Errorf("deal.funded data = %v", data)
	}
	if data := evs[2].Data; data["amount"] != "1000.50" || data["paidAmount"] != "1000.50" || data["status"] != "partially_paid" {
		t.Errorf("deal.commission_paid data = %v", data)
	}
	// The lead's moves to the approved and won slots name the automation
	// that made each (the move at submission, the dashboard's, is the
	// system's here).
	by := map[string]int{}
	for _, mv := range e.events(t, event.LeadStatusChanged) {
		by[fmt.Sprint(mv.Data["changedBy"])]++
	}
	if want := map[string]int{"system": 1, "automation:" + decide.ID.String(): 1, "automation:" + fund.ID.String(): 1}; !maps.Equal(by, want) {
		t.Errorf("lead.status_changed by %v, want %v", by, want)
	}
}

// A move the transition table refuses fails the run at once with the
// operation's CONFLICT, its field and its from and to, and keeps nothing;
// the run's record names the action and both statuses.
func TestLendingActionRefusedMoveIsConflict(t *testing.T) {
	e := newEnv(t, 0, time.Minute, time.Minute)
	b := e.submit(t, "Tidewater Merchant Capital", "TMC-1")
	if _, err := lending.Decide(e.admin, e.db.Client, b.app.ID, lending.Decision{Reason: ptr("revenue too low")}); err != nil {
		t.Fatal(err)
	}
	decide := e.automate(t, e.onEndpoint(t), autodef.Action{Type: autodef.DecideApplication})
	input := map[string]any{"applicationId": b.app.ID.String(), "decision": "approved", "interestRate": "1.3", "rateType": "factor", "termMonths": 9}

	err := e.applyOnce(t, decide, input)
	ae, ok := apperr.As(err)
	if !ok || ae.Code != apperr.Conflict || ae.Field != "status" || ae.Detail["from"] != "declined" || ae.Detail["to"] != "approved" {
		t.Fatalf("err = %v (%+v), want CONFLICT on status from declined to approved", err, ae)
	}
	if retryable(err) {
		t.Error("a refused move is retried")
	}

	run := e.queue(t, decide, input, 0)
	e.step(t)
	got := e.reload(t, run)
	wantStatus(t, got, automationrun.StatusFailed, 1)
	if want := "status: actions[0] (decide_application): the application cannot move from declined to approved"; deref(got.Error) != want {
		t.Errorf("error %q, want %q", deref(got.Error), want)
	}
	a, err := e.db.Client.Application.Get(e.sys, b.app.ID)
	if err != nil || a.Status != application.StatusDeclined || a.ApprovedAmount != nil {
		t.Errorf("application %+v (%v): the refused decision was kept", a, err)
	}
	if n := len(e.events(t, event.ApplicationApproved)); n != 0 {
		t.Errorf("%d application.approved events for a refused move", n)
	}

	// Funding a declined application is the same refusal.
	fund := e.automate(t, e.onEndpoint(t), autodef.Action{Type: autodef.FundDeal})
	err = e.applyOnce(t, fund, map[string]any{"lenderId": b.lender.ID.String(), "externalRef": "TMC-1"})
	if ae, ok := apperr.As(err); !ok || ae.Code != apperr.Conflict || ae.Detail["from"] != "declined" || ae.Detail["to"] != "funded" {
		t.Errorf("funding a declined application: %v, want CONFLICT from declined to funded", err)
	}
}

// A value of the wrong form is VALIDATION_ERROR naming its input field,
// found before any record is looked up; so are the operations' own
// refusals (a decline needs its reason). None is retried.
func TestLendingActionsValidateTheirInput(t *testing.T) {
	e := newEnv(t)
	b := e.submit(t, "Tidewater Merchant Capital", "TMC-7")
	auto := map[string]*ent.Automation{}
	for _, typ := range []string{autodef.DecideApplication, autodef.FundDeal, autodef.RecordCommissionPayment} {
		auto[typ] = e.automate(t, e.onEndpoint(t), autodef.Action{Type: typ})
	}
	app := b.app.ID.String()
	approve := func(extra map[string]any) map[string]any {
		in := map[string]any{"applicationId": app, "decision": "approved", "interestRate": "1.3", "rateType": "factor", "termMonths": 9}
		for k, v := range extra {
			in[k] = v
		}
		return in
	}
	tests := []struct {
		name, action string
		input        map[string]any
		field        string
	}{
		{"NoDecision", autodef.DecideApplication, map[string]any{"applicationId": app}, "decision"},
		{"UnknownDecision", autodef.DecideApplication, approve(map[string]any{"decision": "maybe"}), "decision"},
		{"DecisionNotText", autodef.DecideApplication, approve(map[string]any{"decision": true}), "decision"},
		{"AmountThreeDecimals", autodef.DecideApplication, approve(map[string]any{"approvedAmount": "12.345"}), "approvedAmount"},
		{"AmountNumberThreeDecimals", autodef.DecideApplication, approve(map[string]any{"approvedAmount": 100.005}), "approvedAmount"},
		{"AmountNegative", autodef.DecideApplication, approve(map[string]any{"approvedAmount": -5.0}), "approvedAmount"},
		{"AmountTooLarge", autodef.DecideApplication, approve(map[string]any{"approvedAmount": 1e13}), "approvedAmount"},
		{"AmountHuge", autodef.DecideApplication, approve(map[string]any{"approvedAmount": 1e300}), "approvedAmount"},
		{"AmountObject", autodef.DecideApplication, approve(map[string]any{"approvedAmount": map[string]any{"value": "1"}}), "approvedAmount"},
		{"RateTooHigh", autodef.DecideApplication, approve(map[string]any{"interestRate": 10.5}), "interestRate"},
		{"RateSevenDecimals", autodef.DecideApplication, approve(map[string]any{"interestRate": "0.1234567"}), "interestRate"},
		{"UnknownRateType", autodef.DecideApplication, approve(map[string]any{"rateType": "fixed"}), "rateType"},
		{"FractionalTerm", autodef.DecideApplication, approve(map[string]any{"termMonths": 12.5}), "termMonths"},
		{"TermInWords", autodef.DecideApplication, approve(map[string]any{"termMonths": "twelve"}), "termMonths"},
		{"TermOutOfRange", autodef.DecideApplication, approve(map[string]any{"termMonths": 601}), "termMonths"},
		{"UnknownFrequency", autodef.DecideApplication, approve(map[string]any{"paymentFrequency": "yearly"}), "paymentFrequency"},
		{"ConditionsNotText", autodef.DecideApplication, approve(map[string]any{"conditions": []any{"ok", 2.0}}), "conditions"},
		{"ApprovalWithoutRate", autodef.DecideApplication, map[string]any{"applicationId": app, "decision": "APPROVED", "rateType": "apr", "termMonths": 24}, "interestRate"},
		{"DeclineWithoutReason", autodef.DecideApplication, map[string]any{"applicationId": app, "decision": "declined"}, "reason"},
		{"DeclineWithOffer", autodef.DecideApplication, map[string]any{"applicationId": app, "decision": "declined", "reason": "credit", "termMonths": 6}, "termMonths"},
		{"UnknownCategory", autodef.DecideApplication, map[string]any{"applicationId": app, "decision": "declined", "reason": "r", "declineCategory": "mood"}, "declineCategory"},
		{"ApplicationIDNotUUID", autodef.DecideApplication, approve(map[string]any{"applicationId": "APP-1"}), "applicationId"},
		{"NothingNamed", autodef.DecideApplication, map[string]any{"decision": "approved"}, "applicationId"},
		{"RefWithoutLender", autodef.DecideApplication, map[string]any{"decision": "declined", "reason": "r", "externalRef": "TMC-7"}, "lenderId"},
		{"LenderWithoutRef", autodef.DecideApplication, map[string]any{"decision": "declined", "reason": "r", "lenderId": b.lender.ID.String()}, "externalRef"},
		{"LenderIDNotUUID", autodef.DecideApplication, map[string]any{"decision": "declined", "reason": "r", "lenderId": 7.0, "externalRef": "TMC-7"}, "lenderId"},
		{"FundedAtNotATime", autodef.FundDeal, map[string]any{"applicationId": app, "fundedAt": "yesterday"}, "fundedAt"},
		{"FundedAtYearOne", autodef.FundDeal, map[string]any{"applicationId": app, "fundedAt": "0001-01-01T00:00:00Z"}, "fundedAt"},
		{"FundedAtBeforeEpoch", autodef.FundDeal, map[string]any{"applicationId": app, "fundedAt": "1969-12-31T23:59:59Z"}, "fundedAt"},
		{"FundedAtDateOnly", autodef.FundDeal, map[string]any{"applicationId": app, "fundedAt": "2026-03-01"}, "fundedAt"},
		{"CommissionText", autodef.FundDeal, map[string]any{"applicationId": app, "commission": "4,000"}, "commission"},
		{"FundedNothingNamed", autodef.FundDeal, map[string]any{"fundedAmount": "1.00"}, "applicationId"},
		{"NoAmount", autodef.RecordCommissionPayment, map[string]any{"applicationId": app}, "amount"},
		{"PaymentNothingNamed", autodef.RecordCommissionPayment, map[string]any{"amount": "10.00"}, "dealId"},
		{"DealIDNotUUID", autodef.RecordCommissionPayment, map[string]any{"amount": "10.00", "dealId": "D-1"}, "dealId"},
		{"PaidAtNotATime", autodef.RecordCommissionPayment, map[string]any{"amount": "10.00", "applicationId": app, "paidAt": 1700000000}, "paidAt"},
		{"ReferenceNotText", autodef.RecordCommissionPayment, map[string]any{"amount": "10.00", "applicationId": app, "reference": []any{"a"}}, "reference"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := e.applyOnce(t, auto[tt.action], tt.input)
			ae, ok := apperr.As(err)
			if !ok || ae.Code != apperr.Validation || ae.Field != tt.field {
				t.Fatalf("err = %v, want VALIDATION_ERROR naming %s", err, tt.field)
			}
			if retryable(err) {
				t.Errorf("%v is retried", err)
			}
		})
	}
	if a, err := e.db.Client.Application.Get(e.sys, b.app.ID); err != nil || a.Status != application.StatusSubmitted {
		t.Errorf("application %v (%v) after refused runs, want submitted", a.Status, err)
	}
}

// An application not found by the lender's reference is awaited, as
// update_lead's lead is: the run is retried and succeeds once the
// submission is recorded. One named by an id that does not exist, in
// another organization, or of a lender the organization does not have,
// fails at once with NOT_FOUND.
func TestLendingActionsAwaitAReferenceNotYetRecorded(t *testing.T) {
	e := newEnv(t, 0, time.Minute, time.Minute)
	b := e.submit(t, "Tidewater Merchant Capital", "TMC-1")
	decide := e.automate(t, e.onEndpoint(t), autodef.Action{Type: autodef.DecideApplication})
	decline := map[string]any{"decision": "DECLINED", "reason": "time in business", "declineCategory": "Time_In_Business"}
	with := func(fields map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range decline {
			out[k] = v
		}
		for k, v := range fields {
			out[k] = v
		}
		return out
	}

	early := e.queue(t, decide, with(map[string]any{"lenderId": b.lender.ID.String(), "externalRef": "TMC-2"}), 0)
	e.step(t)
	got := e.reload(t, early)
	wantStatus(t, got, automationrun.StatusQueued, 1)
	want := fmt.Sprintf(`externalRef: actions[0] (decide_application): lender %s has no application with externalRef "TMC-2"`, b.lender.ID)
	if deref(got.Error) != want {
		t.Errorf("error %q, want %q", deref(got.Error), want)
	}
	late := e.submitTo(t, b.lender, "TMC-2")
	e.clock.advance(time.Minute)
	e.step(t)
	got = e.reload(t, early)
	wantStatus(t, got, automationrun.StatusSucceeded, 2)
	if a, err := e.db.Client.Application.Get(e.sys, late.app.ID); err != nil || a.Status != application.StatusDeclined ||
		deref(a.DeclineCategory) != application.DeclineCategoryTimeInBusiness || deref(a.DeclineReason) != "time in business" {
		t.Errorf("the awaited application: %+v (%v)", a, err)
	}
	if evs := e.events(t, event.ApplicationDeclined); len(evs) != 1 || evs[0].Data["reason"] != "time in business" {
		t.Errorf("application.declined events: %v", evs)
	}

	other, _, err := store.CreateOrganization(context.Background(), e.db.Client, "Other Brokers")
	if err != nil {
		t.Fatal(err)
	}
	admin := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: other.ID, Scopes: viewer.AllScopes})
	theirs := (&env{db: e.db, org: other, admin: admin, clock: e.clock}).submit(t, "Their Lender", "TMC-1")
	for name, tt := range map[string]struct {
		input map[string]any
		field string
	}{
		"UnknownApplication":   {with(map[string]any{"applicationId": uuid.NewString()}), "applicationId"},
		"OtherOrgsApplication": {with(map[string]any{"applicationId": theirs.app.ID.String()}), "applicationId"},
		"UnknownLender":        {with(map[string]any{"lenderId": uuid.NewString(), "externalRef": "TMC-1"}), "lenderId"},
		"OtherOrgsLender":      {with(map[string]any{"lenderId": theirs.lender.ID.String(), "externalRef": "TMC-1"}), "lenderId"},
	} {
		t.Run(name, func(t *testing.T) {
			err := e.applyOnce(t, decide, tt.input)
			if ae, ok := apperr.As(err); !ok || ae.Code != apperr.NotFound || ae.Field != tt.field || retryable(err) {
				t.Errorf("err = %v, want NOT_FOUND naming %s, not retried", err, tt.field)
			}
		})
	}
	if a, err := e.db.Client.Application.Get(e.sys, theirs.app.ID); err != nil || a.Status != application.StatusSubmitted {
		t.Errorf("the other organization's application: %v (%v)", a.Status, err)
	}
}

// A commission payment finds its deal by dealId or through its
// application. An application approved but not funded yet is awaited (its
// funding notice may be on its way); one declined fails at once, and so
// does a deal id that names no deal.
func TestCommissionPaymentFindsItsDeal(t *testing.T) {
	e := newEnv(t, 0, time.Minute)
	b := e.submit(t, "Tidewater Merchant Capital", "TMC-1")
	if _, err := lending.Decide(e.admin, e.db.Client, b.app.ID, lending.Decision{Approved: true,
		InterestRate: ptr(rate(t, "1.4")), RateType: ptr(application.RateTypeFactor), TermMonths: ptr(10)}); err != nil {
		t.Fatal(err)
	}
	declined := e.submitTo(t, b.lender, "TMC-2")
	if _, err := lending.Decide(e.admin, e.db.Client, declined.app.ID, lending.Decision{Reason: ptr("no")}); err != nil {
		t.Fatal(err)
	}
	pay := e.automate(t, e.onEndpoint(t), autodef.Action{Type: autodef.RecordCommissionPayment})

	err := e.applyOnce(t, pay, map[string]any{"applicationId": b.app.ID.String(), "amount": "100.00"})
	if ae, ok := apperr.As(err); !ok || ae.Code != apperr.NotFound || !retryable(err) {
		t.Errorf("paying an approved, unfunded application: %v; want NOT_FOUND, awaited", err)
	}
	err = e.applyOnce(t, pay, map[string]any{"lenderId": b.lender.ID.String(), "externalRef": "TMC-2", "amount": "100.00"})
	if ae, ok := apperr.As(err); !ok || ae.Code != apperr.NotFound || retryable(err) {
		t.Errorf("paying a declined application: %v; want NOT_FOUND at once", err)
	}
	err = e.applyOnce(t, pay, map[string]any{"dealId": uuid.NewString(), "amount": "100.00"})
	if ae, ok := apperr.As(err); !ok || ae.Code != apperr.NotFound || retryable(err) {
		t.Errorf("paying an unknown deal: %v; want NOT_FOUND at once", err)
	}

	run := e.queue(t, pay, map[string]any{"lenderId": b.lender.ID.String(), "externalRef": "TMC-1", "amount": 2000, "reference": "RM-1"}, 0)
	e.step(t)
	wantStatus(t, e.reload(t, run), automationrun.StatusQueued, 1)
	d, err := lending.Fund(e.admin, e.db.Client, lending.Funding{ApplicationID: b.app.ID})
	if err != nil {
		t.Fatal(err)
	}
	e.clock.advance(time.Minute)
	e.step(t)
	got := e.reload(t, run)
	wantStatus(t, got, automationrun.StatusSucceeded, 2)
	cm, err := e.db.Client.Commission.Query().Where(commission.DealID(d.ID)).Only(e.sys)
	if err != nil {
		t.Fatal(err)
	}
	// The lender's 8 % of the approved amount (the lead's 60000.00) is
	// 4800.00: 2000.00 of it is paid.
	if fmt.Sprint(cm.PaidAmount) != "2000.00" || fmt.Sprint(cm.ExpectedAmount) != "4800.00" || cm.Status != commission.StatusPartiallyPaid {
		t.Errorf("commission = %+v", cm)
	}
	if got.Applied[0]["dealId"] != d.ID.String() {
		t.Errorf("applied = %v", got.Applied[0])
	}

	// By its id, the deal takes a second payment that completes it.
	if err := e.applyOnceKeep(t, pay, map[string]any{"dealId": d.ID.String(), "amount": "2800"}); err != nil {
		t.Fatal(err)
	}
	if cm, err = e.db.Client.Commission.Get(e.sys, cm.ID); err != nil || cm.Status != commission.StatusPaid {
		t.Errorf("commission after the second payment: %v (%v)", cm.Status, err)
	}
}

// JSON numbers are read by their decimal text, never by arithmetic: every
// amount and rate the API accepts arrives exactly as the payload wrote it.
func TestLendingNumbersArriveExactly(t *testing.T) {
	e := newEnv(t)
	decide := e.automate(t, e.onEndpoint(t), autodef.Action{Type: autodef.DecideApplication})
	for i, tt := range []struct {
		amount, rate any
		want         [2]string
	}{
		{999999999999.99, 0.000001, [2]string{"999999999999.99", "0.000001"}},
		{1e12, 10, [2]string{"1000000000000.00", "10"}},
		{0.1, 0.3, [2]string{"0.10", "0.3"}},
		{25000.07, 1.499999, [2]string{"25000.07", "1.499999"}},
		{123456789012.34, 9.999999, [2]string{"123456789012.34", "9.999999"}},
		{"0.01", "0", [2]string{"0.01", "0"}},
	} {
		b := e.submit(t, fmt.Sprintf("Lender %d", i), "R-1")
		err := e.applyOnceKeep(t, decide, map[string]any{"applicationId": b.app.ID.String(), "decision": "approved",
			"approvedAmount": tt.amount, "interestRate": tt.rate, "rateType": "apr", "termMonths": 24})
		if err != nil {
			t.Errorf("%v, %v: %v", tt.amount, tt.rate, err)
			continue
		}
		a, err := e.db.Client.Application.Get(e.sys, b.app.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := [2]string{fmt.Sprint(a.ApprovedAmount), fmt.Sprint(a.InterestRate)}; got != tt.want {
			t.Errorf("%v, %v read as %v, want %v", tt.amount, tt.rate, got, tt.want)
		}
	}
}

// applyOnceKeep applies a run of a with input and commits what it did.
func (e *env) applyOnceKeep(t *testing.T, a *ent.Automation, input map[string]any) error {
	t.Helper()
	ctx := apitime.WithClock(context.Background(), e.clock.now)
	return store.WithTx(ctx, e.db.Client, func(ctx context.Context, tx *ent.Client) error {
		_, err := e.runner.apply(ctx, tx, a, &ent.AutomationRun{Input: input, Depth: 1})
		return err
	})
}

// A portal sends one shape for both outcomes, the other outcome's fields
// null, blank or empty: those set nothing, so neither outcome is refused
// for carrying the other's fields.
func TestOneMappingServesBothOutcomes(t *testing.T) {
	e := newEnv(t)
	decide := e.automate(t, e.onEndpoint(t), autodef.Action{Type: autodef.DecideApplication})
	empty := map[string]any{"approvedAmount": "", "interestRate": nil, "rateType": " ", "termMonths": "",
		"paymentFrequency": nil, "conditions": []any{}, "reason": "", "declineCategory": nil}
	for _, tt := range []struct {
		decision string
		set      map[string]any
		want     application.Status
	}{
		{"declined", map[string]any{"reason": "Too many open positions", "declineCategory": "existing_positions"}, application.StatusDeclined},
		{"approved", map[string]any{"interestRate": 0.189, "rateType": "APR", "termMonths": "24"}, application.StatusApproved},
	} {
		b := e.submit(t, "Lender "+tt.decision, "R-1")
		input := map[string]any{"applicationId": b.app.ID.String(), "decision": tt.decision}
		maps.Copy(input, empty)
		maps.Copy(input, tt.set)
		if err := e.applyOnceKeep(t, decide, input); err != nil {
			t.Fatalf("%s with the other outcome's fields empty: %v", tt.decision, err)
		}
		a, err := e.db.Client.Application.Get(e.sys, b.app.ID)
		if err != nil || a.Status != tt.want {
			t.Errorf("%s: application %v (%v)", tt.decision, a.Status, err)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// An approval an automation sends without a part of the offer fails, and
// the run's record names the missing field in words.
func TestLendingActionApprovalNamesMissingField(t *testing.T) {
	e := newEnv(t, 0, time.Minute, time.Minute)
	b := e.submit(t, "Plain Words Capital", "PWC-1")
	decide := e.automate(t, e.onEndpoint(t), autodef.Action{Type: autodef.DecideApplication})
	input := map[string]any{"applicationId": b.app.ID.String(), "decision": "approved", "approvedAmount": "30000.00"}

	run := e.queue(t, decide, input, 0)
	e.step(t)
	got := e.reload(t, run)
	wantStatus(t, got, automationrun.StatusFailed, 1)
	if want := "interestRate is required to approve an application"; !strings.Contains(fmt.Sprint(deref(got.Error)), want) {
		t.Errorf("error %q, want it to contain %q", deref(got.Error), want)
	}
}
