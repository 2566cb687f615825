package lending_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"entgo.io/ent/privacy"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/documents"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/document"
	"github.com/lendingpipe/svc/ent/stipulation"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
	"github.com/lendingpipe/svc/lending"
)

// stips is a test's organization with a lender, ready to approve
// applications with conditions.
type stips struct {
	*env
	t      *testing.T
	c      *ent.Client
	lender *ent.Lender
	// advisor may write lending records but not waive (admin only).
	advisor context.Context
}

func newStips(t *testing.T) *stips {
	e := newEnv(t)
	ld, err := e.db.Client.Lender.Create().SetName("Alpha Capital").Save(e.a.as)
	if err != nil {
		t.Fatal(err)
	}
	adv := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: e.a.ID, KeyID: uuid.New(),
		Scopes: []string{viewer.ScopeLendingRead, viewer.ScopeLendingWrite}})
	return &stips{env: e, t: t, c: e.db.Client, lender: ld, advisor: adv}
}

// approved is a new lead's application approved with conditions.
func (s *stips) approved(conditions ...string) *ent.Application {
	s.t.Helper()
	name := "Stip Bakery"
	l, err := leads.Create(s.a.as, s.c, ent.CreateLeadInput{BusinessName: &name})
	if err != nil {
		s.t.Fatal(err)
	}
	amount := money.FromCents(2_500_000)
	a, err := lending.Submit(s.a.as, s.c, lending.Submission{LeadID: l.ID, LenderID: s.lender.ID, RequestedAmount: &amount})
	if err != nil {
		s.t.Fatal(err)
	}
	rate, _ := money.ParseRate("1.3")
	a, err = lending.Decide(s.a.as, s.c, a.ID, lending.Decision{Approved: true, InterestRate: &rate,
		RateType: ptr(application.RateTypeFactor), TermMonths: ptr(6), Conditions: conditions})
	if err != nil {
		s.t.Fatal(err)
	}
	return a
}

// upload attaches a small PDF to the record.
func (s *stips) upload(record uuid.UUID) *ent.Document {
	s.t.Helper()
	pdf := []byte("%PDF-1.4\n%stipulation\n")
	d, err := documents.Upload(s.a.as, s.c, s.db.Files, documents.Input{RecordID: record, Filename: "statement.pdf",
		Category: document.CategoryBankStatement, File: bytes.NewReader(pdf), Size: int64(len(pdf)), MaxBytes: 1 << 20})
	if err != nil {
		s.t.Fatal(err)
	}
	return d
}

func (s *stips) list(a *ent.Application) []*ent.Stipulation {
	s.t.Helper()
	list, err := lending.ApplicationStipulations(s.a.as, s.c, a.ID)
	if err != nil {
		s.t.Fatal(err)
	}
	return list
}

// reread is the application as stored.
func (s *stips) reread(a *ent.Application) *ent.Application {
	s.t.Helper()
	got, err := s.c.Application.Get(s.a.as, a.ID)
	if err != nil {
		s.t.Fatal(err)
	}
	return got
}

// readyEvents counts application.ready_to_fund events of the application.
func (s *stips) readyEvents(a *ent.Application) int {
	s.t.Helper()
	evs, err := s.c.WebhookEvent.Query().Where(webhookevent.OrgID(s.a.ID), webhookevent.EventType(event.ApplicationReady)).
		All(rule.SystemContext(context.Background()))
	if err != nil {
		s.t.Fatal(err)
	}
	n := 0
	for _, ev := range evs {
		if ev.Data["applicationId"] == a.ID.String() {
			n++
			if ev.Data["leadId"] != a.LeadID.String() || ev.Data["lenderId"] != a.LenderID.String() || ev.Data["readyAt"] == nil {
				s.t.Errorf("application.ready_to_fund carries %v", ev.Data)
			}
		}
	}
	return n
}

func wantCode(t *testing.T, err error, code, field string) *apperr.Error {
	t.Helper()
	e, ok := apperr.As(err)
	if !ok || e.Code != code || e.Field != field {
		t.Fatalf("got %v; want %s naming %s", err, code, field)
	}
	return e
}

// The approval makes a stipulation of each condition; satisfying, waiving
// and reopening move them as the table says and keep readyToFund; the
// funding is refused while one is outstanding; application.ready_to_fund
// is emitted each time the application becomes ready.
func TestStipulationsFromApprovalToFunding(t *testing.T) {
	s := newStips(t)
	a := s.approved("Last 3 months of bank statements", "Voided check")
	list := s.list(a)
	if len(list) != 2 || list[0].Text != "Last 3 months of bank statements" || list[1].Text != "Voided check" {
		t.Fatalf("the approval's stipulations: %+v", list)
	}
	for _, st := range list {
		if st.Status != stipulation.StatusOutstanding || st.LeadID != a.LeadID {
			t.Errorf("a new stipulation: %+v", st)
		}
	}
	if got := s.reread(a); got.StipulationsOutstanding != 2 || lendingrules.ReadyToFund(got.Status.String(), got.StipulationsOutstanding) {
		t.Errorf("approved with two conditions: outstanding %d", got.StipulationsOutstanding)
	}
	if n := s.readyEvents(a); n != 0 {
		t.Errorf("ready_to_fund emitted %d times with two outstanding", n)
	}

	// Funding waits for them.
	_, err := lending.Fund(s.a.as, s.c, lending.Funding{ApplicationID: a.ID})
	if e := wantCode(t, err, apperr.Conflict, "stipulations"); e.Detail["outstanding"] != 2 {
		t.Errorf("the funding's refusal details %v; want outstanding 2", e.Detail)
	}

	// A document of another lead does not satisfy it; one of the lead does.
	other := s.approved()
	_, err = lending.SatisfyStipulation(s.a.as, s.c, list[0].ID, []uuid.UUID{s.upload(other.LeadID).ID})
	wantCode(t, err, apperr.Validation, "documentIds")
	_, err = lending.SatisfyStipulation(s.a.as, s.c, list[0].ID, nil)
	wantCode(t, err, apperr.Validation, "documentIds")
	doc := s.upload(a.LeadID)
	got, err := lending.SatisfyStipulation(s.advisor, s.c, list[0].ID, []uuid.UUID{doc.ID, doc.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != stipulation.StatusReceived || len(got.DocumentIds) != 1 || got.DocumentIds[0] != doc.ID || got.ReceivedAt == nil {
		t.Errorf("received: %+v", got)
	}
	// Received is not received again.
	_, err = lending.SatisfyStipulation(s.a.as, s.c, list[0].ID, []uuid.UUID{doc.ID})
	if e := wantCode(t, err, apperr.Conflict, "status"); e.Detail["from"] != "received" || e.Detail["to"] != "received" {
		t.Errorf("details %v", e.Detail)
	}

	// Waiving is an admin's.
	if _, err = lending.WaiveStipulation(s.advisor, s.c, list[1].ID, "the lender agreed"); !errors.Is(err, privacy.Deny) {
		t.Errorf("an advisor's waiver: %v; want the privacy rule's denial (FORBIDDEN)", err)
	}
	_, err = lending.WaiveStipulation(s.a.as, s.c, list[1].ID, "  ")
	wantCode(t, err, apperr.Validation, "reason")
	waived, err := lending.WaiveStipulation(s.a.as, s.c, list[1].ID, "the lender agreed")
	if err != nil {
		t.Fatal(err)
	}
	if waived.Status != stipulation.StatusWaived || waived.WaiveReason == nil || *waived.WaiveReason != "the lender agreed" || waived.WaivedBy == nil {
		t.Errorf("waived: %+v", waived)
	}
	if got := s.reread(a); got.StipulationsOutstanding != 0 {
		t.Errorf("outstanding %d after both", got.StipulationsOutstanding)
	}
	if n := s.readyEvents(a); n != 1 {
		t.Errorf("ready_to_fund emitted %d times; want 1", n)
	}

	// Reopened, it is outstanding again, cleared; met again, ready again.
	reopened, err := lending.ReopenStipulation(s.advisor, s.c, list[0].ID, "statements were unreadable")
	if err != nil {
		t.Fatal(err)
	}
	if reopened.Status != stipulation.StatusOutstanding || len(reopened.DocumentIds) != 0 || reopened.ReceivedAt != nil {
		t.Errorf("reopened: %+v", reopened)
	}
	_, err = lending.ReopenStipulation(s.advisor, s.c, list[0].ID, "again")
	wantCode(t, err, apperr.Conflict, "status")
	// Added, one more is outstanding.
	added, err := lending.AddStipulation(s.advisor, s.c, a.ID, "Signed contract")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.reread(a); got.StipulationsOutstanding != 2 || added.Status != stipulation.StatusOutstanding {
		t.Errorf("outstanding %d after a reopening and an addition", got.StipulationsOutstanding)
	}
	// The text's length is the schema's rule, which the API renders as
	// VALIDATION_ERROR naming text.
	if _, err = lending.AddStipulation(s.advisor, s.c, a.ID, ""); !ent.IsValidationError(err) {
		t.Errorf("an empty stipulation: %v; want the schema's validation error", err)
	}

	// The funding that says so waives what is left, with reason funded.
	if _, err := lending.SatisfyStipulation(s.advisor, s.c, list[0].ID, []uuid.UUID{doc.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := lending.Fund(s.a.as, s.c, lending.Funding{ApplicationID: a.ID, WaiveOutstanding: true}); err != nil {
		t.Fatal(err)
	}
	after := s.list(a)
	if st := after[2]; st.Status != stipulation.StatusWaived || *st.WaiveReason != lendingrules.WaivedByFunding {
		t.Errorf("the funding left %+v", st)
	}
	if after[0].Status != stipulation.StatusReceived {
		t.Errorf("the funding changed a received stipulation: %+v", after[0])
	}
	if n := s.readyEvents(a); n != 1 {
		t.Errorf("ready_to_fund emitted %d times; want 1 (a funding's waiver is no announcement)", n)
	}
	// Funded, the checklist is history.
	_, err = lending.ReopenStipulation(s.a.as, s.c, list[1].ID, "too late")
	wantCode(t, err, apperr.Conflict, "applicationId")
	_, err = lending.AddStipulation(s.a.as, s.c, a.ID, "One more")
	wantCode(t, err, apperr.Conflict, "applicationId")

	// With no conditions, the approval itself is ready.
	if n := s.readyEvents(other); n != 1 {
		t.Errorf("an approval with no conditions emitted ready_to_fund %d times; want 1", n)
	}
}

// Another organization's stipulations are not found, and its documents
// satisfy nothing here.
func TestStipulationsStayInTheirOrganization(t *testing.T) {
	s := newStips(t)
	a := s.approved("Voided check")
	st := s.list(a)[0]
	o2, _, err := storeOrg(s.env, "Other Brokers")
	if err != nil {
		t.Fatal(err)
	}
	theirs := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: o2, KeyID: uuid.New(), Scopes: viewer.AllScopes})
	for name, try := range map[string]func() error{
		"satisfy": func() error {
			_, err := lending.SatisfyStipulation(theirs, s.c, st.ID, []uuid.UUID{uuid.New()})
			return err
		},
		"waive":  func() error { _, err := lending.WaiveStipulation(theirs, s.c, st.ID, "mine now"); return err },
		"reopen": func() error { _, err := lending.ReopenStipulation(theirs, s.c, st.ID, "mine now"); return err },
		"add":    func() error { _, err := lending.AddStipulation(theirs, s.c, a.ID, "mine now"); return err },
	} {
		if err := try(); !ent.IsNotFound(err) {
			if e, ok := apperr.As(err); !ok || e.Code != apperr.NotFound {
				t.Errorf("%s from another organization: %v; want NOT_FOUND", name, err)
			}
		}
	}
	n, err := lending.ListStipulations(s.c, lending.StipulationFilter{}).Count(theirs)
	if err != nil || n != 0 {
		t.Errorf("another organization lists %d stipulations (%v)", n, err)
	}
}

// After any sequence of operations, readyToFund is "approved and none
// outstanding", and the kept count is the number outstanding.
func TestStipulationCountHoldsUnderAnySequence(t *testing.T) {
	s := newStips(t)
	r := rand.New(rand.NewPCG(7, uint64(len(t.Name()))))
	for round := range 4 {
		conds := []string{}
		for i := range r.IntN(4) {
			conds = append(conds, []string{"Bank statements", "Voided check", "ID", "Lease"}[i])
		}
		a := s.approved(conds...)
		doc := s.upload(a.ID)
		for range 25 {
			list := s.list(a)
			var err error
			switch op := r.IntN(4); {
			case op == 0 || len(list) == 0:
				_, err = lending.AddStipulation(s.a.as, s.c, a.ID, "Added")
			case op == 1:
				_, err = lending.SatisfyStipulation(s.a.as, s.c, list[r.IntN(len(list))].ID, []uuid.UUID{doc.ID})
			case op == 2:
				_, err = lending.WaiveStipulation(s.a.as, s.c, list[r.IntN(len(list))].ID, "waived")
			default:
				_, err = lending.ReopenStipulation(s.a.as, s.c, list[r.IntN(len(list))].ID, "reopened")
			}
			if e, ok := apperr.As(err); err != nil && (!ok || e.Code != apperr.Conflict || e.Field != "status") {
				t.Fatalf("round %d: %v", round, err)
			}
			outstanding, err := lending.ListStipulations(s.c, lending.StipulationFilter{ApplicationID: &a.ID,
				Status: ptr(stipulation.StatusOutstanding)}).Count(s.a.as)
			if err != nil {
				t.Fatal(err)
			}
			got := s.reread(a)
			if got.StipulationsOutstanding != outstanding {
				t.Fatalf("round %d: the kept count %d; %d outstanding", round, got.StipulationsOutstanding, outstanding)
			}
			if ready := lendingrules.ReadyToFund(got.Status.String(), got.StipulationsOutstanding); ready != (outstanding == 0) {
				t.Fatalf("round %d: readyToFund %v with %d outstanding", round, ready, outstanding)
			}
		}
	}
}

// storeOrg creates another organization in the test's database.
func storeOrg(e *env, name string) (uuid.UUID, *ent.Organization, error) {
	o, _, err := store.CreateOrganization(context.Background(), e.db.Client, name)
	if err != nil {
		return uuid.Nil, nil, err
	}
	return o.ID, o, nil
}
