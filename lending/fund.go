package lending

import (
	"context"
	"fmt"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/rollup"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
)

// Funding is an approved application's funding. What it leaves out is
// computed: the amount is the approved one, the time now, the commission
// the lender's rate of the amount, the advisor the lead's.
type Funding struct {
	ApplicationID uuid.UUID
	FundedAmount  *money.Amount
	FundedAt      *time.Time
	Commission    *money.Amount
	AdvisorID     *uuid.UUID
	// WaiveOutstanding funds an application that still has stipulations
	// outstanding, waiving them with reason funded: the lender funded.
	WaiveOutstanding bool
}

// Fund turns an approved application into a deal. The lead's row is taken
// first, by the statement that finds it through the application, so
// fundings of one lead's applications run one after the other: the second
// finds its application withdrawn and is refused. Then the deal is
// created, the application moves to funded, the lead's other open
// applications are withdrawn, the commission is opened, the deal is
// counted, deal.funded is emitted, and the lead moves to won, recording
// its conversion.
func Fund(ctx context.Context, c *ent.Client, in Funding) (*ent.FundedDeal, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.FundedDeal, error) {
		return fund(ctx, c, in)
	})
}

func fund(ctx context.Context, c *ent.Client, in Funding) (*ent.FundedDeal, error) {
	org, err := writer(ctx)
	if err != nil {
		return nil, err
	}
	read := store.FundingRead
	read.Funding = in.ApplicationID
	l, err := lockLead(ctx, c, read, store.LeadOfApplication(in.ApplicationID, org))
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "no application with id %s exists in your organization", in.ApplicationID)
	}
	if err != nil {
		return nil, fmt.Errorf("locking the application's lead: %w", err)
	}
	fundedAt, err := apitime.PastOrNow(ctx, in.FundedAt, "fundedAt")
	if err != nil {
		return nil, err
	}
	// Read under the lock: a funding of another of the lead's applications
	// may have withdrawn this one meanwhile.
	a, rate, err := store.FundedApplication(ctx, c, in.ApplicationID)
	if err != nil {
		return nil, err
	}
	if a.Status != application.StatusApproved {
		return nil, lendingrules.Conflict(string(a.Status), lendingrules.Funded)
	}
	if err := settleStipulations(ctx, c, a, in.WaiveOutstanding); err != nil {
		return nil, err
	}
	create, err := newDeal(ctx, c, in, a, l, rate)
	if err != nil {
		return nil, err
	}
	d, err := create.SetFundedAt(fundedAt).SetRenewalEligibleAt(lendingrules.RenewalEligibleAt(fundedAt.UTC(), *a.TermMonths)).Save(ctx)
	if err != nil {
		return nil, err
	}
	if err := fundApplication(ctx, c, a, d); err != nil {
		return nil, err
	}
	if err := countFunded(ctx, c, a, d); err != nil {
		return nil, err
	}
	if err := withdrawOthers(ctx, c, a, l); err != nil {
		return nil, err
	}
	err = c.Commission.Create().SetID(d.CommissionID).SetOrgID(d.OrgID).SetDealID(d.ID).SetLeadID(d.LeadID).
		SetLenderID(d.LenderID).SetNillableAdvisorID(d.AdvisorID).SetExpectedAmount(d.ExpectedCommission).
		SetNillableRenewalOfDealID(d.RenewalOfDealID).SetIsRenewal(d.IsRenewal).
		Exec(rule.SystemContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("creating the commission: %w", err)
	}
	if err := rollup.CountDeal(ctx, c, d); err != nil {
		return nil, err
	}
	if err := rollup.Funding(ctx, c, l, d); err != nil {
		return nil, err
	}
	data := map[string]any{"dealId": d.ID, "orgId": d.OrgID, "applicationId": d.ApplicationID, "lenderId": d.LenderID,
		"fundedAmount": d.FundedAmount.String(), "commission": d.ExpectedCommission.String(), "advisorId": d.AdvisorID}
	if err := events.Emit(ctx, c, d.OrgID, event.DealFunded, data); err != nil {
		return nil, err
	}
	if err := recordFunded(ctx, c, d, l); err != nil {
		return nil, err
	}
	return d, moveLead(ctx, c, l, lendingrules.SlotWon, &d.FundedAt)
}

// newDeal is the deal's create: the offer copied, and what the funding
// leaves out computed. The commission defaults to rate (the lender's) of
// the funded amount.
func newDeal(ctx context.Context, c *ent.Client, in Funding, a *ent.Application, l *ent.Lead, rate money.Rate) (*ent.FundedDealCreate, error) {
	funded := *a.ApprovedAmount
	if in.FundedAmount != nil {
		funded = *in.FundedAmount
	}
	if funded <= 0 {
		return nil, apperr.Invalid("fundedAmount", "must be more than 0")
	}
	create := c.FundedDeal.Create().SetApplicationID(a.ID).SetFundedAmount(funded).
		SetLeadID(a.LeadID).SetLenderID(a.LenderID).SetLenderName(a.LenderName).
		SetInterestRate(*a.InterestRate).SetRateType(fundeddeal.RateType(*a.RateType)).SetTermMonths(*a.TermMonths).
		SetCommissionID(uuid.Must(uuid.NewV7())).
		SetNillableRenewalOfDealID(a.RenewalOfDealID).SetIsRenewal(a.IsRenewal)
	if a.PaymentFrequency != nil {
		create.SetPaymentFrequency(fundeddeal.PaymentFrequency(*a.PaymentFrequency))
	}
	payback, ok, err := lendingrules.Payback(funded, string(*a.RateType), *a.InterestRate)
	if err != nil {
		return nil, apperr.Invalid("fundedAmount", "%s", err)
	}
	if ok {
		create.SetPaybackAmount(payback)
	}
	if approved := *a.ApprovedAmount; funded > approved {
		return nil, apperr.Invalid("fundedAmount", "must not exceed the approved amount %s", approved)
	}
	advisor, err := creditedAdvisor(ctx, c, in.AdvisorID, a.OrgID, l)
	if err != nil {
		return nil, err
	}
	create.SetNillableAdvisorID(advisor)
	due := in.Commission
	if due == nil {
		expected, err := lendingrules.ExpectedCommission(funded, rate)
		if err != nil {
			return nil, apperr.Invalid("fundedAmount", "%s", err)
		}
		due = &expected
	}
	return create.SetExpectedCommission(*due), nil
}

// creditedAdvisor is the advisor the deal is credited to in the funding
// report: the one given, who must be an advisor or an admin of the
// organization, else the lead's primary advisor when one who can be
// credited (a lead assigned to a dialer agent funds a deal credited to no
// one).
func creditedAdvisor(ctx context.Context, c *ent.Client, given *uuid.UUID, org uuid.UUID, l *ent.Lead) (*uuid.UUID, error) {
	sys := rule.SystemContext(ctx)
	if given != nil {
		u, err := c.User.Query().Where(user.ID(*given), user.OrgID(org)).Only(sys)
		if err != nil {
			return nil, apperr.RefError(err, ent.IsNotFound, "advisorId", "user")
		}
		if !credited(u) {
			return nil, apperr.Invalid("advisorId", "must name an advisor or an admin; this user is a dialer %s", u.Role)
		}
		return given, nil
	}
	if l.PrimaryAdvisorID == nil {
		return nil, nil
	}
	u, err := c.User.Query().Where(user.ID(*l.PrimaryAdvisorID)).Only(sys)
	if err != nil {
		return nil, fmt.Errorf("reading the lead's primary advisor: %w", err)
	}
	if !credited(u) {
		return nil, nil
	}
	return &u.ID, nil
}

// credited reports whether a deal may be credited to u in the funding
// report: an advisor or an admin, never a dialer agent.
func credited(u *ent.User) bool { return u.Role == user.RoleAdvisor || u.Role == user.RoleAdmin }

// fundApplication moves the application a, read under the lead's lock, to
// funded with its deal d. The transition hook (ent/schema/lending_hooks.go,
// moveApplication) makes the update conditional on approved; a row moved
// since it was read is refused as it refuses one.
func fundApplication(ctx context.Context, c *ent.Client, a *ent.Application, d *ent.FundedDeal) error {
	sys := rule.SystemContext(ctx)
	n, err := c.Application.Update().Where(application.ID(a.ID)).
		SetStatus(application.StatusFunded).SetFundedDealID(d.ID).Save(sys)
	if err != nil {
		return err
	}
	if n == 0 {
		now, err := c.Application.Get(sys, a.ID)
		if err != nil {
			return err
		}
		return lendingrules.Conflict(string(now.Status), lendingrules.Funded)
	}
	return nil
}

// countFunded counts the funding of a, as read under the lead's lock, in
// the lenders report, with its deal's amount.
func countFunded(ctx context.Context, c *ent.Client, a *ent.Application, d *ent.FundedDeal) error {
	funded := *a
	funded.Status = application.StatusFunded
	return rollup.ApplicationMoved(ctx, c, &funded, d.FundedAmount)
}

// withdrawOthers withdraws the lead's open applications other than a,
// unless l, read under the lock, says it has none, and counts their
// withdrawal in the lenders report. The rows are read first; the lead's
// lock keeps them as read.
func withdrawOthers(ctx context.Context, c *ent.Client, a *ent.Application, l *ent.Lead) error {
	open, err := store.MayHaveOthersOpen(l)
	if err != nil || !open {
		return err
	}
	sys := rule.SystemContext(ctx)
	others, err := c.Application.Query().
		Where(application.LeadID(a.LeadID), application.IDNEQ(a.ID), sql.FieldIn(application.FieldStatus, lendingrules.Open...)).
		Select(application.FieldOrgID, application.FieldLeadID, application.FieldLenderID, application.FieldLenderName,
			application.FieldSubmittedAt).All(sys)
	if err != nil {
		return fmt.Errorf("reading the lead's other open applications: %w", err)
	}
	if len(others) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(others))
	for i, o := range others {
		ids[i] = o.ID
	}
	// The transition check: ent/schema/lending_hooks.go, moveApplication.
	err = c.Application.Update().Where(application.IDIn(ids...)).
		SetStatus(application.StatusWithdrawn).SetWithdrawnReason(lendingrules.FundedElsewhere).
		Exec(sys)
	if err != nil {
		return fmt.Errorf("withdrawing the lead's other applications: %w", err)
	}
	if err := rollup.ApplicationsWithdrawn(ctx, c, a.OrgID, others); err != nil {
		return err
	}
	return recordWithdrawn(ctx, c, others...)
}

// settleStipulations is the funding guard (PRODUCT 11.4): an application
// with stipulations outstanding funds only when the funding says to waive
// them, and they are then waived with reason funded.
func settleStipulations(ctx context.Context, c *ent.Client, a *ent.Application, waive bool) error {
	n := a.StipulationsOutstanding
	if n == 0 {
		return nil
	}
	if !waive {
		return &apperr.Error{Code: apperr.Conflict, Field: "stipulations",
			Message: fmt.Sprintf("the application has %d stipulation(s) outstanding: satisfy or waive them, or fund with waiveOutstanding", n),
			Detail:  map[string]any{"outstanding": n}}
	}
	return waiveOutstanding(ctx, c, a)
}
