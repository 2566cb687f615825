package lending_test

import (
	"context"
	"errors"
	"testing"

	"entgo.io/ent/privacy"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
	"github.com/lendingpipe/svc/lending"
)

// A NUL character in a submission's text is refused as every write refuses
// one (BAD_REQUEST naming the field), before the flow reads anything by
// it: PostgreSQL would refuse the query, a 500.
func TestSubmitRefusesNULBeforeReading(t *testing.T) {
	e := newEnv(t)
	var lead, lender uuid.UUID
	err := e.tx(e.a.as, func(ctx context.Context, c *ent.Client) error {
		l, err := leads.Create(ctx, c, ent.CreateLeadInput{}, leads.Fields(c.Lead.Create().SetBusinessName("Nul Test Bakery").SetRequestedAmount("50000")))
		if err != nil {
			return err
		}
		ld, err := c.Lender.Create().SetName("Nul Test Capital").Save(ctx)
		lead, lender = l.ID, ld.ID
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []lending.Submission{
		{LeadID: lead, LenderID: lender, ExternalRef: ptr("REF-\x00-1")},
		{LeadID: lead, LenderID: lender, Notes: ptr("a\x00b")},
	} {
		_, err := lending.Submit(e.a.as, e.db.Client, in)
		ae, ok := apperr.As(err)
		if !ok || ae.Code != apperr.BadRequest {
			t.Errorf("submitting %+v: %v; want BAD_REQUEST", in, err)
		}
	}
	n, err := e.db.Client.Application.Query().Count(rule.SystemContext(context.Background()))
	if err != nil || n != 0 {
		t.Errorf("%d applications stored (%v); want none", n, err)
	}
}

// A caller who may not write lending records is refused before the flow
// reads or checks anything it names: a withdrawal giving the service's
// own reason, for an application that does not exist, is still denied.
func TestFlowsAskTheScopeFirst(t *testing.T) {
	e := newEnv(t)
	reader := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: e.a.ID, KeyID: uuid.New(),
		Scopes: []string{viewer.ScopeLendingRead}})
	missing := uuid.New()
	calls := map[string]func() error{
		"withdraw": func() error {
			_, err := lending.Withdraw(reader, e.db.Client, missing, ptr("funded_elsewhere"))
			return err
		},
		"decide": func() error {
			_, err := lending.Decide(reader, e.db.Client, missing, lending.Decision{})
			return err
		},
		"fund": func() error {
			_, err := lending.Fund(reader, e.db.Client, lending.Funding{ApplicationID: missing})
			return err
		},
		"pay": func() error {
			_, err := lending.RecordPayment(reader, e.db.Client, lending.Payment{DealID: missing, Amount: 100})
			return err
		},
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, privacy.Deny) {
			t.Errorf("%s without lending:write: %v; want the privacy denial", name, err)
		}
	}
}
