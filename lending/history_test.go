package lending_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/activity"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/notification"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/history"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
	"github.com/lendingpipe/svc/lending"
	"github.com/lendingpipe/svc/notify"
)

// Each lending flow writes its entry in the lead's history and tells the
// lead's advisor (the deal's, for commissions), in its transaction; the
// advisor's own decision is no news to them.
func TestLendingFlowsRecordHistoryAndNotify(t *testing.T) {
	e := newEnv(t)
	c := e.db.Client
	advisor, err := c.User.Create().SetOrgID(e.a.ID).SetFirstName("Ada").SetLastName("Byron").
		SetEmail("ada@example.com").SetRole(user.RoleAdvisor).Save(rule.SystemContext(e.a.as))
	if err != nil {
		t.Fatal(err)
	}
	asAdvisor := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: e.a.ID, UserID: advisor.ID,
		Scopes: viewer.RoleScopes[viewer.RoleAdvisor]})
	var lenders [2]*ent.Lender
	for i := range lenders {
		if lenders[i], err = c.Lender.Create().SetName([]string{"Alpha Capital", "Beta Funding"}[i]).Save(e.a.as); err != nil {
			t.Fatal(err)
		}
	}
	name := "History Bakery"
	l, err := leads.Create(e.a.as, c, ent.CreateLeadInput{BusinessName: &name, PrimaryAdvisorID: &advisor.ID})
	if err != nil {
		t.Fatal(err)
	}
	amount := money.FromCents(2_500_000)
	rate, _ := money.ParseRate("1.3")
	offer := lending.Decision{Approved: true, InterestRate: &rate, RateType: ptr(application.RateTypeFactor), TermMonths: ptr(6)}
	submit := func(ld *ent.Lender) *ent.Application {
		t.Helper()
		a, err := lending.Submit(e.a.as, c, lending.Submission{LeadID: l.ID, LenderID: ld.ID, RequestedAmount: &amount})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	mine, theirs := submit(lenders[0]), submit(lenders[1])
	// The advisor declines one themselves: no notice. The key approves the
	// other: the advisor hears of it.
	if _, err := lending.Decide(asAdvisor, c, mine.ID, lending.Decision{Reason: ptr("too small")}); err != nil {
		t.Fatal(err)
	}
	if _, err := lending.Decide(e.a.as, c, theirs.ID, offer); err != nil {
		t.Fatal(err)
	}
	deal, err := lending.Fund(e.a.as, c, lending.Funding{ApplicationID: theirs.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lending.RecordPayment(e.a.as, c, lending.Payment{DealID: deal.ID, Amount: money.FromCents(10_000)}); err != nil {
		t.Fatal(err)
	}

	page, err := activity.List(e.a.as, c, l.ID, activity.Query{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, it := range page.Items {
		if it.Kind != history.LeadStageChanged {
			kinds = append(kinds, it.Kind)
		}
	}
	slices.Reverse(kinds)
	want := []string{history.LeadCreated, history.ApplicationSubmitted, history.ApplicationSubmitted,
		history.ApplicationDeclined, history.ApplicationApproved, history.DealFunded, history.CommissionPaid}
	if !slices.Equal(kinds, want) {
		t.Errorf("the lead's history, oldest first, without moves: %v; want %v", kinds, want)
	}
	for _, it := range page.Items {
		if it.Kind == history.ApplicationDeclined && (it.Actor.Type != history.ActorUser || it.Actor.Name == nil || *it.Actor.Name != "Ada Byron") {
			t.Errorf("the advisor's decline names %+v; want the user Ada Byron", it.Actor)
		}
	}

	notes, err := c.Notification.Query().Where(notification.UserID(advisor.ID)).
		Order(notification.ByAt(), notification.ByID()).All(rule.SystemContext(e.a.as))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range notes {
		got = append(got, n.Kind)
		if n.LeadID == nil || *n.LeadID != l.ID {
			t.Errorf("%s names lead %v; want %s", n.Kind, n.LeadID, l.ID)
		}
	}
	wantNotes := []string{notify.ApplicationDecided, notify.DealFunded, notify.CommissionPaid}
	if !slices.Equal(got, wantNotes) {
		t.Errorf("the advisor's notifications %v; want %v", got, wantNotes)
	}
	unread, err := notify.Unread(asAdvisor, c)
	if err != nil || unread != 3 {
		t.Errorf("unread %d (%v); want 3", unread, err)
	}
	if n, err := notify.MarkRead(asAdvisor, c, []uuid.UUID{notes[0].ID}); err != nil || n != 1 {
		t.Errorf("marking one read: %d, %v", n, err)
	}
	if n, err := notify.MarkRead(asAdvisor, c, nil); err != nil || n != 2 {
		t.Errorf("marking the rest read: %d, %v", n, err)
	}
	// A key bound to no one has no notifications to read.
	if _, err := notify.Unread(e.a.as, c); err == nil {
		t.Error("a key bound to no one read notifications")
	}
}
