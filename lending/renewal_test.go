package lending_test

import (
	"errors"
	"testing"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/commission"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/leads"
	"github.com/lendingpipe/svc/lending"
)

// A renewal is submitted against one of the lead's funded deals: it leaves
// the lead where it is, and the application, its deal and its commission
// carry the deal renewed. Another lead's deal is refused by name.
func TestRenewalCarriesTheDealRenewed(t *testing.T) {
	e := newEnv(t)
	c := e.db.Client
	ld, err := c.Lender.Create().SetName("Alpha Capital").Save(e.a.as)
	if err != nil {
		t.Fatal(err)
	}
	amount := money.FromCents(2_500_000)
	rate, _ := money.ParseRate("1.3")
	offer := lending.Decision{Approved: true, InterestRate: &rate, RateType: ptr(application.RateTypeFactor), TermMonths: ptr(6)}
	fund := func(l *ent.Lead, renewing *ent.FundedDeal) (*ent.Application, *ent.FundedDeal) {
		t.Helper()
		in := lending.Submission{LeadID: l.ID, LenderID: ld.ID, RequestedAmount: &amount}
		if renewing != nil {
			in.RenewalOfDealID = &renewing.ID
		}
		a, err := lending.Submit(e.a.as, c, in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lending.Decide(e.a.as, c, a.ID, offer); err != nil {
			t.Fatal(err)
		}
		d, err := lending.Fund(e.a.as, c, lending.Funding{ApplicationID: a.ID})
		if err != nil {
			t.Fatal(err)
		}
		return a, d
	}
	newLead := func(name string) *ent.Lead {
		l, err := leads.Create(e.a.as, c, ent.CreateLeadInput{BusinessName: &name})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	l, other := newLead("Renewal Bakery"), newLead("Other Bakery")
	first, deal := fund(l, nil)
	if first.IsRenewal || deal.IsRenewal || deal.RenewalOfDealID != nil {
		t.Errorf("a first funding reads as a renewal: application %v, deal %v %v", first.IsRenewal, deal.IsRenewal, deal.RenewalOfDealID)
	}
	stageOf := func() string {
		t.Helper()
		s, err := c.Lead.Query().Where(lead.ID(l.ID)).Only(rule.SystemContext(e.a.as))
		if err != nil {
			t.Fatal(err)
		}
		return s.StageID.String()
	}
	won := stageOf()

	// Another lead's deal is not this lead's to renew.
	_, err = lending.Submit(e.a.as, c, lending.Submission{LeadID: other.ID, LenderID: ld.ID, RequestedAmount: &amount, RenewalOfDealID: &deal.ID})
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.Validation || ae.Field != "renewalOfDealId" {
		t.Errorf("renewing another lead's deal: %v; want VALIDATION_ERROR naming renewalOfDealId", err)
	}

	app, renewed := fund(l, deal)
	if !app.IsRenewal || app.RenewalOfDealID == nil || *app.RenewalOfDealID != deal.ID {
		t.Errorf("the renewal application carries %v %v; want true %s", app.IsRenewal, app.RenewalOfDealID, deal.ID)
	}
	if !renewed.IsRenewal || renewed.RenewalOfDealID == nil || *renewed.RenewalOfDealID != deal.ID {
		t.Errorf("the renewal's deal carries %v %v; want true %s", renewed.IsRenewal, renewed.RenewalOfDealID, deal.ID)
	}
	cm, err := c.Commission.Query().Where(commission.DealID(renewed.ID)).Only(rule.SystemContext(e.a.as))
	if err != nil {
		t.Fatal(err)
	}
	if !cm.IsRenewal || cm.RenewalOfDealID == nil || *cm.RenewalOfDealID != deal.ID {
		t.Errorf("the renewal's commission carries %v %v; want true %s", cm.IsRenewal, cm.RenewalOfDealID, deal.ID)
	}
	if got := stageOf(); got != won {
		t.Errorf("the renewal moved the lead from %s to %s", won, got)
	}
}
