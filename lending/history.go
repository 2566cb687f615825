package lending

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/activity"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/commissionpayment"
	"github.com/lendingpipe/svc/internal/history"
	"github.com/lendingpipe/svc/notify"
)

// What each lending flow records in its lead's history and whom it
// notifies, in the flow's transaction.

// recordSubmitted is an application's submission in its lead's history.
func recordSubmitted(ctx context.Context, c *ent.Client, a *ent.Application) error {
	return activity.Record(ctx, c, activity.Entry{OrgID: a.OrgID, LeadID: a.LeadID, Kind: history.ApplicationSubmitted,
		RecordID: a.ID, Summary: fmt.Sprintf("Submitted to %s for %s", a.LenderName, a.RequestedAmount)})
}

// recordDecided is a decision in the lead's history, and news for the
// lead's primary advisor.
func recordDecided(ctx context.Context, c *ent.Client, a *ent.Application, l *ent.Lead) error {
	kind, summary := history.ApplicationDeclined, fmt.Sprintf("%s declined the application", a.LenderName)
	if a.Status == application.StatusApproved {
		kind, summary = history.ApplicationApproved, fmt.Sprintf("%s approved %s", a.LenderName, a.ApprovedAmount)
	}
	if err := activity.Record(ctx, c, activity.Entry{OrgID: a.OrgID, LeadID: a.LeadID, Kind: kind,
		RecordID: a.ID, Summary: summary}); err != nil {
		return err
	}
	return notify.Send(ctx, c, notify.Notice{OrgID: a.OrgID, UserID: advisor(l.PrimaryAdvisorID),
		Kind: notify.ApplicationDecided, RecordID: a.ID, LeadID: a.LeadID, Summary: summary})
}

// recordWithdrawn is a withdrawal in the lead's history: the caller's, or
// the service's when another application of the lead was funded.
func recordWithdrawn(ctx context.Context, c *ent.Client, apps ...*ent.Application) error {
	entries := make([]activity.Entry, len(apps))
	for i, a := range apps {
		summary := "Application withdrawn"
		if a.LenderName != "" {
			summary = fmt.Sprintf("Application to %s withdrawn", a.LenderName)
		}
		entries[i] = activity.Entry{OrgID: a.OrgID, LeadID: a.LeadID, Kind: history.ApplicationWithdrawn,
			RecordID: a.ID, Summary: summary}
	}
	return activity.Record(ctx, c, entries...)
}

// recordFunded is a funding in the lead's history, and news for the lead's
// primary advisor.
func recordFunded(ctx context.Context, c *ent.Client, d *ent.FundedDeal, l *ent.Lead) error {
	summary := fmt.Sprintf("Funded %s by %s", d.FundedAmount, d.LenderName)
	if err := activity.Record(ctx, c, activity.Entry{OrgID: d.OrgID, LeadID: d.LeadID, Kind: history.DealFunded,
		RecordID: d.ID, Summary: summary}); err != nil {
		return err
	}
	return notify.Send(ctx, c, notify.Notice{OrgID: d.OrgID, UserID: advisor(l.PrimaryAdvisorID),
		Kind: notify.DealFunded, RecordID: d.ID, LeadID: d.LeadID, Summary: summary})
}

// recordPayment is a commission payment or clawback in the deal's lead's
// history, and news for the deal's advisor.
func recordPayment(ctx context.Context, c *ent.Client, cm *ent.Commission, paid *ent.CommissionPayment) error {
	kind, note, summary := history.CommissionPaid, notify.CommissionPaid, fmt.Sprintf("Commission of %s paid", paid.Amount)
	if paid.Kind == commissionpayment.KindClawback {
		kind, note, summary = history.CommissionClawedBack, notify.CommissionClawedBack, fmt.Sprintf("Commission of %s clawed back", paid.Amount)
	}
	if err := activity.Record(ctx, c, activity.Entry{OrgID: cm.OrgID, LeadID: cm.LeadID, Kind: kind,
		RecordID: paid.ID, Summary: summary}); err != nil {
		return err
	}
	return notify.Send(ctx, c, notify.Notice{OrgID: cm.OrgID, UserID: advisor(cm.AdvisorID),
		Kind: note, RecordID: cm.ID, LeadID: cm.LeadID, Summary: summary})
}

func advisor(id *uuid.UUID) uuid.UUID {
	if id == nil {
		return uuid.Nil
	}
	return *id
}
