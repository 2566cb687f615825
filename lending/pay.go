package lending

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/rollup"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/commission"
	"github.com/lendingpipe/svc/ent/commissionpayment"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
)

// Payment is money the lender paid on a deal's commission, or took back.
type Payment struct {
	DealID uuid.UUID
	Amount money.Amount
	// PaidAt defaults to now.
	PaidAt    *time.Time
	Reference *string
}

// RecordPayment adds a payment to the deal's commission and emits
// deal.commission_paid. It answers the commission as the payment left it.
func RecordPayment(ctx context.Context, c *ent.Client, p Payment) (*ent.Commission, error) {
	return record(ctx, c, p, commissionpayment.KindPayment)
}

// RecordClawback takes a clawback off the deal's commission's paid amount;
// the commission is clawed back from then on. The catalog has no clawback
// event.
func RecordClawback(ctx context.Context, c *ent.Client, p Payment) (*ent.Commission, error) {
	return record(ctx, c, p, commissionpayment.KindClawback)
}

// record adds a payment or a clawback to its commission's paid amount and
// sets the commission's status, in the same transaction: the UPDATE of the
// commission's row also queues concurrent payments of one commission on
// PostgreSQL.
func record(ctx context.Context, c *ent.Client, p Payment, kind commissionpayment.Kind) (*ent.Commission, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Commission, error) {
		return recordIn(ctx, c, p, kind)
	})
}

// recordIn is record in the transaction c.
func recordIn(ctx context.Context, c *ent.Client, p Payment, kind commissionpayment.Kind) (*ent.Commission, error) {
	if _, err := writer(ctx); err != nil {
		return nil, err
	}
	if err := refuseNUL(named{"reference", p.Reference}); err != nil {
		return nil, err
	}
	cm, err := c.Commission.Query().Where(commission.DealID(p.DealID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "no funded deal with id %s exists in your organization", p.DealID)
	}
	if err != nil {
		return nil, err
	}
	if p.Amount <= 0 {
		return nil, apperr.Invalid("amount", "must be more than 0")
	}
	paidAt, err := apitime.PastOrNow(ctx, p.PaidAt, "paidAt")
	if err != nil {
		return nil, err
	}
	cm, fundedAt, err := applyPayment(ctx, c, cm, p.Amount, kind)
	if err != nil {
		return nil, err
	}
	paid, err := c.CommissionPayment.Create().SetCommissionID(cm.ID).SetAmount(p.Amount).SetKind(kind).
		SetNillableReference(p.Reference).SetPaidAt(paidAt).Save(ctx)
	if err != nil {
		return nil, err
	}
	paidBefore := cm.PaidAmount - p.Amount
	if kind == commissionpayment.KindClawback {
		paidBefore = cm.PaidAmount + p.Amount
	}
	if err := rollup.Payment(ctx, c, cm, fundedAt, paidBefore, paid); err != nil {
		return nil, err
	}
	if err := recordPayment(ctx, c, cm, paid); err != nil {
		return nil, err
	}
	if kind != commissionpayment.KindPayment {
		return cm, nil
	}
	data := map[string]any{"commissionId": cm.ID, "dealId": cm.DealID, "orgId": cm.OrgID, "lenderId": cm.LenderID,
		"advisorId": cm.AdvisorID, "amount": paid.Amount.String(), "paidAt": apitime.Format(paid.PaidAt),
		"paidAmount": cm.PaidAmount.String(), "expectedAmount": cm.ExpectedAmount.String(), "status": string(cm.Status)}
	return cm, events.Emit(ctx, c, cm.OrgID, event.DealCommissionPaid, data)
}

// applyPayment updates the commission's paid amount and status, and
// answers the commission as stored, with the time its deal was funded.
func applyPayment(ctx context.Context, c *ent.Client, cm *ent.Commission, amt money.Amount, kind commissionpayment.Kind) (*ent.Commission, time.Time, error) {
	sys := rule.SystemContext(ctx)
	delta := amt
	if kind == commissionpayment.KindClawback {
		delta = -amt
	}
	n, err := c.Commission.Update().Where(commission.ID(cm.ID), commission.OrgID(cm.OrgID)).AddPaidAmount(delta).Save(sys)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("adding the payment to the commission: %w", err)
	}
	if n == 0 {
		return nil, time.Time{}, apperr.New(apperr.NotFound, "no commission with id %s exists in your organization", cm.ID)
	}
	cm, fundedAt, err := paidCommission(ctx, c, cm.ID)
	if err != nil {
		return nil, time.Time{}, err
	}
	if cm.PaidAmount < 0 {
		return nil, time.Time{}, apperr.Invalid("amount", "is more than the commission's paid amount (%s before the clawback)",
			cm.PaidAmount+amt)
	}
	clawedBack := kind == commissionpayment.KindClawback || cm.Status == commission.StatusClawedBack
	status := commission.Status(lendingrules.CommissionStatus(cm.PaidAmount, cm.ExpectedAmount, clawedBack))
	if status == cm.Status {
		return cm, fundedAt, nil
	}
	// Read back only the stamp the update sets beside the status, so cm
	// is the row as stored.
	after, err := c.Commission.UpdateOne(cm).SetStatus(status).Select(commission.FieldUpdatedAt).Save(sys)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("setting the commission's status: %w", err)
	}
	cm.Status, cm.UpdatedAt = status, after.UpdatedAt
	return cm, fundedAt, nil
}
