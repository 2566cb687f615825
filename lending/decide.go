package lending

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/decision"
	"github.com/lendingpipe/svc/analytics/rollup"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/store"
)

// Decision is a lender's answer: an approval with its offer, or a decline
// with its reason. The application hooks refuse the fields of the other
// outcome and what an approval or a decline lacks.
type Decision struct {
	Approved bool
	// The offer. ApprovedAmount defaults to the amount requested.
	ApprovedAmount   *money.Amount
	InterestRate     *money.Rate
	RateType         *application.RateType
	TermMonths       *int
	PaymentFrequency *application.PaymentFrequency
	Conditions       []string
	// The decline.
	Reason          *string
	DeclineCategory *application.DeclineCategory
}

// MarkUnderwriting records that the lender is reviewing the application.
func MarkUnderwriting(ctx context.Context, c *ent.Client, id uuid.UUID) (*ent.Application, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Application, error) {
		if _, err := writer(ctx); err != nil {
			return nil, err
		}
		// The transition check: ent/schema/lending_hooks.go, moveApplication.
		// Underwriting changes no rollup.
		a, _, err := move(ctx, c, id, store.MoveRead, func(u *ent.ApplicationUpdateOne, _ *ent.Application) {
			u.SetStatus(application.StatusUnderwriting)
		})
		return a, err
	})
}

// Decide records the lender's decision, stamped with its time, and counts
// it in the lenders report. An approval emits application.approved, counts
// the lead's first approval, makes a stipulation of each condition (or,
// with none, emits application.ready_to_fund), and moves the lead to the
// approved slot; a decline emits application.declined.
func Decide(ctx context.Context, c *ent.Client, id uuid.UUID, d Decision) (*ent.Application, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Application, error) {
		return decide(ctx, c, id, d)
	})
}

func decide(ctx context.Context, c *ent.Client, id uuid.UUID, d Decision) (*ent.Application, error) {
	if _, err := writer(ctx); err != nil {
		return nil, err
	}
	if err := refuseNUL(named{"reason", d.Reason}, named{"conditions", d.Conditions}); err != nil {
		return nil, err
	}
	status, read := application.StatusDeclined, store.MoveRead
	if d.Approved {
		status, read = application.StatusApproved, store.DecisionRead
	}
	now := apitime.Now(ctx)
	// The transition check: ent/schema/lending_hooks.go, moveApplication.
	a, l, err := move(ctx, c, id, read, func(u *ent.ApplicationUpdateOne, before *ent.Application) {
		if d.Approved && d.ApprovedAmount == nil {
			u.SetApprovedAmount(before.RequestedAmount)
		}
		u.SetStatus(status).
			SetNillableApprovedAmount(d.ApprovedAmount).SetNillableInterestRate(d.InterestRate).
			SetNillableRateType(d.RateType).SetNillableTermMonths(d.TermMonths).
			SetNillablePaymentFrequency(d.PaymentFrequency).
			SetNillableDeclineReason(d.Reason).SetNillableDeclineCategory(d.DeclineCategory)
		if d.Conditions != nil {
			u.SetConditions(d.Conditions)
		}
		if d.Approved {
			u.SetStipulationsOutstanding(len(d.Conditions))
		}
		stampDecision(u, before, now)
	})
	if err != nil {
		return nil, err
	}
	if err := rollup.ApplicationMoved(ctx, c, a, 0); err != nil {
		return nil, err
	}
	if err := recordDecided(ctx, c, a, l); err != nil {
		return nil, err
	}
	if !d.Approved {
		data := map[string]any{"applicationId": a.ID, "orgId": a.OrgID, "lenderId": a.LenderID, "reason": *a.DeclineReason}
		return a, events.Emit(ctx, c, a.OrgID, event.ApplicationDeclined, data)
	}
	data := map[string]any{"applicationId": a.ID, "orgId": a.OrgID, "lenderId": a.LenderID,
		"approvedAmount": a.ApprovedAmount.String(), "interestRate": a.InterestRate.String(), "termMonths": *a.TermMonths}
	if err := events.Emit(ctx, c, a.OrgID, event.ApplicationApproved, data); err != nil {
		return nil, err
	}
	if err := countFirstApproval(ctx, c, l, a); err != nil {
		return nil, err
	}
	if err := openStipulations(ctx, c, a); err != nil {
		return nil, err
	}
	return a, moveLead(ctx, c, l, lendingrules.SlotApproved, nil)
}

// stampDecision records when the decision was made and, for the lenders
// report's median, how many whole seconds after the submission.
func stampDecision(u *ent.ApplicationUpdateOne, before *ent.Application, now time.Time) {
	u.SetDecidedAt(now).SetDecisionSeconds(decision.Seconds(before.SubmittedAt, now))
}

// countFirstApproval counts l as approved in the pipeline report when a
// is the first of its applications approved.
func countFirstApproval(ctx context.Context, c *ent.Client, l *ent.Lead, a *ent.Application) error {
	earlier, err := store.WasApproved(ctx, c, l, a.ID)
	if err != nil || earlier {
		return err
	}
	return rollup.Approval(ctx, c, l)
}

// Withdraw takes the application out of play, with the caller's reason.
// lendingrules.FundedElsewhere is the service's own reason, given when
// another application of the lead is funded (Fund).
func Withdraw(ctx context.Context, c *ent.Client, id uuid.UUID, reason *string) (*ent.Application, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Application, error) {
		if _, err := writer(ctx); err != nil {
			return nil, err
		}
		if err := refuseNUL(named{"reason", reason}); err != nil {
			return nil, err
		}
		if reason != nil && strings.EqualFold(strings.TrimSpace(*reason), lendingrules.FundedElsewhere) {
			return nil, apperr.Invalid("reason", "%s is given only by the service, when another application of the lead is funded", lendingrules.FundedElsewhere)
		}
		// The transition check: ent/schema/lending_hooks.go, moveApplication.
		a, _, err := move(ctx, c, id, store.MoveRead, func(u *ent.ApplicationUpdateOne, _ *ent.Application) {
			u.SetStatus(application.StatusWithdrawn).SetNillableWithdrawnReason(reason)
		})
		if err != nil {
			return nil, err
		}
		if err := rollup.ApplicationMoved(ctx, c, a, 0); err != nil {
			return nil, err
		}
		return a, recordWithdrawn(ctx, c, a)
	})
}

// move takes the application's lead (read as read says), then updates the
// application as set says, given the application's lead, requested
// amount and submission time as they were: the lead's row before the application's, as every
// lending flow takes them (store.LockLead). The application hooks check
// the move against the transition table. It answers the lead as it was
// taken, which the caller moves from. The caller has checked that it may
// write (writer).
func move(ctx context.Context, c *ent.Client, id uuid.UUID, read store.LeadRead,
	set func(u *ent.ApplicationUpdateOne, before *ent.Application)) (*ent.Application, *ent.Lead, error) {
	app, err := c.Application.Query().Where(application.ID(id)).
		Select(application.FieldLeadID, application.FieldRequestedAmount, application.FieldSubmittedAt).Only(ctx)
	if err != nil {
		return nil, nil, err // NOT_FOUND for a missing application
	}
	l, err := lockLead(ctx, c, read, lead.ID(app.LeadID))
	if err != nil {
		return nil, nil, fmt.Errorf("locking the application's lead: %w", err)
	}
	u := c.Application.UpdateOneID(id)
	set(u, app)
	a, err := u.Save(ctx)
	if err != nil {
		return nil, nil, err
	}
	return a, l, nil
}
